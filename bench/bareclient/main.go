// Command bareclient is the floor bench/floor.sh measures vulnbench against: Go's own HTTP
// client sending recorded chat requests (bench/llmserver --record) to an OpenAI-compatible
// server, --concurrency at once on kept-alive connections, each answer read whole and its JSON
// decoded (the message and the usage) — what any client must do, and nothing else: no store, no
// prompt, no retries. It fails on any answer that is not a 200 with a message.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

func main() {
	url := flag.String("base-url", "", "the server's base URL (its /chat/completions is posted to)")
	requests := flag.String("requests", "", "file of request bodies, one JSON document a line")
	concurrency := flag.Int("concurrency", 16, "requests at once")
	flag.Parse()
	if *url == "" || *requests == "" || *concurrency < 1 {
		fmt.Fprintln(os.Stderr, "bareclient: --base-url and --requests are required, --concurrency at least 1")
		os.Exit(2)
	}
	bodies, err := read(*requests)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bareclient:", err)
		os.Exit(1)
	}
	n, err := send(strings.TrimSuffix(*url, "/")+"/chat/completions", os.Getenv("OPENAI_API_KEY"), bodies, *concurrency)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bareclient:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "bareclient: %d requests answered, %d output tokens\n", len(bodies), n)
}

func read(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var bodies [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			bodies = append(bodies, bytes.Clone(sc.Bytes()))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(bodies) == 0 {
		return nil, fmt.Errorf("%s: no requests", path)
	}
	return bodies, nil
}

type answer struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// send posts every body, c at once, and returns the output tokens of the answers.
func send(url, key string, bodies [][]byte, c int) (int64, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c}}
	var (
		next, tokens atomic.Int64
		once         sync.Once
		firstErr     error
		wg           sync.WaitGroup
	)
	fail := func(err error) { once.Do(func() { firstErr = err }) }
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(bodies) {
					return
				}
				n, err := post(client, url, key, bodies[i])
				if err != nil {
					fail(fmt.Errorf("request %d: %w", i+1, err))
					return
				}
				tokens.Add(n)
			}
		}()
	}
	wg.Wait()
	return tokens.Load(), firstErr
}

func post(client *http.Client, url, key string, body []byte) (int64, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d: %.200s", resp.StatusCode, b)
	}
	var a answer
	if err := json.Unmarshal(b, &a); err != nil {
		return 0, err
	}
	if len(a.Choices) == 0 || a.Choices[0].Message.Content == "" {
		return 0, fmt.Errorf("an answer with no message: %.200s", b)
	}
	return a.Usage.CompletionTokens, nil
}
