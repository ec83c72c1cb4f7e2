package batch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// do sends one request to the batch API and decodes a JSON answer into out (nil: returns the
// body). A non-2xx answer is an *llm.APIError-like error naming the status and the message.
func (c *Client) do(ctx context.Context, method, url, contentType string, body io.Reader, out any) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.provider == "openai" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	} else {
		req.Header.Set("x-api-key", c.key)
		req.Header.Set("anthropic-version", "2023-06-01")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s batch API: %w", c.provider, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s batch API: %w", c.provider, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s batch API: %s %s: HTTP %d: %s", c.provider, method, req.URL.Path, resp.StatusCode, errorMessage(b))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return nil, fmt.Errorf("%s batch API: %s %s: unreadable answer: %w", c.provider, method, req.URL.Path, err)
		}
	}
	return b, nil
}

// errorMessage is the message of a provider's error body ({"error": {"message": ...}}), else
// the body.
func errorMessage(b []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

// eachLine calls fn with each non-empty line of a JSONL body.
func eachLine(body []byte, fn func([]byte) error) error {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			if err := fn(l); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}
