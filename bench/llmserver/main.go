// Command llmserver serves internal/llmtest's fake OpenAI-compatible API on loopback for
// bench/llm.sh and bench/faults.sh: it prints the base URL, answers every request after
// --latency, and exits when its standard input closes. It can fault a reproducible share of
// requests (--p429 with Retry-After: 0, --p500) and enforce a rate limit (--rpm, 429 with
// Retry-After over it, x-ratelimit-* headers on every answer); on exit it writes what it counted
// to --counts: one line per second since it started, "second accepted refused" (by the rate
// limit), and prints the totals on standard error. With --tools it plays an agent's model: on
// its turns 0, 1, ... it calls the listed tools in order (native tool calls), each with the
// function the prompt asks about ({"function": NAME}, NAME from the prompt's first `NAME`
// after "function"), and then answers as usual. With --record FILE it writes the body of every
// chat request it answered, one compact JSON document a line, for bench/bareclient to replay.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vulnbench/vulnbench/internal/llmtest"
)

func main() {
	latency := flag.Duration("latency", 0, "time before each answer, faults included")
	p429 := flag.Float64("p429", 0, "share of requests answered 429 with Retry-After: 0")
	p500 := flag.Float64("p500", 0, "share of requests answered 500")
	seed := flag.Int64("seed", 1, "seed that picks the faulted requests")
	rpm := flag.Int("rpm", 0, "requests accepted per minute (0: no limit)")
	fixed := flag.Bool("fixed-window", false, "with --rpm: fixed one-minute windows instead of a sliding window")
	counts := flag.String("counts", "", "file to write the per-second counts to on exit")
	record := flag.String("record", "", "file to write every chat request's body to, one a line")
	tools := flag.String("tools", "", "comma-separated tools to call, one per turn, on the prompt's target function before answering (e.g. get_callers,get_callees,get_definition)")
	flag.Parse()
	var script []string
	if *tools != "" {
		script = strings.Split(*tools, ",")
	}
	target := regexp.MustCompile("function `([^`]+)`")

	var faults429, faults500 atomic.Int64
	ok := func(r llmtest.Request) llmtest.Reply {
		if turn := r.Turn(); turn < len(script) && len(r.Messages) > 0 {
			name := ""
			if m := target.FindStringSubmatch(r.Messages[0].Content); m != nil {
				name = m[1]
			}
			args, _ := json.Marshal(map[string]string{"function": name})
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%d", turn), Name: script[turn], Arguments: string(args)}},
				Latency: *latency, InputTokens: 900, OutputTokens: 20}
		}
		vul := strings.Contains(r.Prompt(), "strcpy")
		return llmtest.Reply{Text: fmt.Sprintf(`{"vulnerable": %v, "cwe": "CWE-787", "confidence": 0.7, "reason": "bench"}`, vul),
			Latency: *latency, InputTokens: 900, OutputTokens: 40}
	}
	h := llmtest.Faults(*seed, ok,
		llmtest.Fault{P: *p429, Reply: llmtest.Reply{Status: 429, RetryNow: true, Latency: *latency}},
		llmtest.Fault{P: *p500, Reply: llmtest.Reply{Status: 500, Latency: *latency}})
	var (
		recMu  sync.Mutex
		recBuf bytes.Buffer
	)
	counted := func(r llmtest.Request) llmtest.Reply {
		if *record != "" {
			recMu.Lock()
			if err := json.Compact(&recBuf, r.Raw); err == nil {
				recBuf.WriteByte('\n')
			}
			recMu.Unlock()
		}
		rep := h(r)
		switch rep.Status {
		case 429:
			faults429.Add(1)
		case 500:
			faults500.Add(1)
		}
		return rep
	}
	opts := []llmtest.Option{llmtest.WithoutLog()}
	if *rpm > 0 {
		opts = append(opts, llmtest.WithRateLimit(llmtest.RateLimit{Requests: *rpm, Fixed: *fixed}))
	}
	srv := llmtest.NewOpenAI(counted, opts...)
	fmt.Println(srv.BaseURL())
	io.Copy(io.Discard, os.Stdin) // until the script closes our input
	srv.Close()
	var acc, ref int
	per := srv.RateCounts()
	for _, c := range per {
		acc, ref = acc+c.Accepted, ref+c.Refused
	}
	fmt.Fprintf(os.Stderr, "llmserver: %d requests served; faults: %d 429, %d 500; rate limit: %d accepted, %d refused\n",
		srv.Requests(), faults429.Load(), faults500.Load(), acc, ref)
	if *record != "" {
		recMu.Lock()
		err := os.WriteFile(*record, recBuf.Bytes(), 0o644)
		recMu.Unlock()
		if err != nil {
			fmt.Fprintln(os.Stderr, "llmserver:", err)
			os.Exit(1)
		}
	}
	if *counts != "" {
		f, err := os.Create(*counts)
		if err != nil {
			fmt.Fprintln(os.Stderr, "llmserver:", err)
			os.Exit(1)
		}
		w := bufio.NewWriter(f)
		for _, c := range per {
			fmt.Fprintf(w, "%d %d %d\n", c.Second, c.Accepted, c.Refused)
		}
		if err := w.Flush(); err != nil || f.Close() != nil {
			fmt.Fprintln(os.Stderr, "llmserver: writing", *counts, "failed")
			os.Exit(1)
		}
	}
}
