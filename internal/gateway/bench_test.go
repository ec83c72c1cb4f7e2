package gateway_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/gateway"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
)

// benchBody is a streamed Claude Code-sized call: a long system prompt, a tool, a few turns.
func benchBody() string {
	system := strings.Repeat("You are an agent auditing a repository for one CVE. ", 400)
	return `{"model":"claude-sonnet-4-5","max_tokens":4096,"stream":true,"system":"` + system + `",` +
		`"tools":[{"name":"Bash","description":"run a command","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}],` +
		`"messages":[{"role":"user","content":"Is the project affected?"}]}`
}

func benchPost(b *testing.B, hc *http.Client, url, key, body string) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || n == 0 {
		b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
	}
}

// BenchmarkModelCall compares one streamed call sent straight to the fake provider (what a
// CLI outside any gateway does) with the same call through the gateway: Unix socket, the body
// prepared, the llm stack (first-call, retry, limits, timeout layers; no cache), the whole
// stream read, parsed and written back, the trace recorded. Each iteration makes both calls,
// one after the other, so that both meet the same load on a shared machine; the metrics are the
// medians of each and of their difference, the gateway's overhead per call.
func BenchmarkModelCall(b *testing.B) {
	reply := llmtest.Reply{Text: strings.Repeat("The function is not reachable. ", 20),
		ToolCalls: []llmtest.ToolCall{{Name: "Bash", Arguments: `{"command":"grep -rn parse_header src/"}`}}}
	srv := llmtest.NewAnthropic(llmtest.Sequence(reply), llmtest.WithoutLog())
	defer srv.Close()
	body := benchBody()
	st, err := llm.New("anthropic:claude-sonnet-4-5", llm.Options{BaseURL: srv.BaseURL(), Getenv: func(string) string { return "k" }})
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := llm.AsRaw(st.Model)
	g, err := gateway.Start(gateway.Config{Model: raw})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	viaGateway := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", g.Socket())
	}}}
	direct := &http.Client{}
	var d, gw, diff []float64
	for b.Loop() {
		t0 := time.Now()
		benchPost(b, direct, srv.URL+"/v1/messages", "k", body)
		t1 := time.Now()
		benchPost(b, viaGateway, "http://gateway/v1/messages", g.Token(), body)
		t2 := time.Now()
		d, gw = append(d, float64(t1.Sub(t0).Microseconds())), append(gw, float64(t2.Sub(t1).Microseconds()))
		diff = append(diff, float64(t2.Sub(t1)-t1.Sub(t0))/1e3)
	}
	b.ReportMetric(median(d), "direct-µs")
	b.ReportMetric(median(gw), "gateway-µs")
	b.ReportMetric(median(diff), "overhead-µs")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
