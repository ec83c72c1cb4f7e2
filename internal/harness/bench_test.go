package harness_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/gateway"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// BenchmarkCLIStartup measures each CLI's start-up per case: one run that answers at once (one
// model call through the gateway, no tool), in the bubblewrap sandbox and on the host (--sandbox
// none: the same gateway and files), against a plain exec of `true`, the three back to back in
// each iteration so that they meet the same load. The metrics are the medians: exec-ms,
// host-ms (the CLI's own start-up and one call), sandbox-ms, and overhead-ms (sandbox - host).
func BenchmarkCLIStartup(b *testing.B) {
	boxed, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		b.Skipf("bubblewrap cannot run here: %v", err)
	}
	host, err := sandbox.New(context.Background(), sandbox.Options{Mode: sandbox.ModeNone})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range realCLIs() {
		b.Run(tc.cli, func(b *testing.B) {
			cli := harness.CLIs()[tc.cli]
			in, err := cli.Locate("")
			if errors.Is(err, harness.ErrNotInstalled) {
				b.Skipf("%v", err)
			}
			answer := llmtest.Reply{Text: `{"vulnerable": false, "reason": "ok"}`, InputTokens: 100, OutputTokens: 10}
			var srv *llmtest.Server
			switch tc.api.Provider() {
			case "anthropic":
				srv = llmtest.NewAnthropic(llmtest.Fixed(answer.Text), llmtest.WithoutLog())
			case "gemini":
				srv = llmtest.NewGemini(llmtest.Fixed(answer.Text), llmtest.WithoutLog())
			default:
				srv = llmtest.NewOpenAI(llmtest.Fixed(answer.Text), llmtest.WithoutLog())
			}
			defer srv.Close()
			stack, err := llm.New(tc.spec, llm.Options{BaseURL: srv.BaseURL(), Getenv: func(string) string { return "k" }})
			if err != nil {
				b.Fatal(err)
			}
			raw, _ := llm.AsRaw(stack.Model)
			_, model, _ := llm.ParseSpec(tc.spec)
			once := func(sb *sandbox.Sandbox) time.Duration {
				gw, err := gateway.Start(gateway.Config{Model: raw})
				if err != nil {
					b.Fatal(err)
				}
				defer gw.Close()
				spec, err := cli.Spec(in, harness.Run{Prompt: "Answer with a JSON object.", Model: model, API: tc.api, Token: gw.Token(), Gateway: gw.Socket(), Timeout: 5 * time.Minute})
				if err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				res, err := sb.Run(context.Background(), spec)
				d := time.Since(t0)
				if a, aerr := cli.Answer(res); err != nil || aerr != nil || !strings.Contains(a, "vulnerable") {
					b.Fatalf("%s: %v %v\n%s", sb.Mode(), err, aerr, res.Stderr)
				}
				return d
			}
			var plain, onHost, inBox, diff []float64
			for b.Loop() {
				t0 := time.Now()
				if err := exec.Command("true").Run(); err != nil {
					b.Fatal(err)
				}
				e := time.Since(t0)
				h := once(host)
				s := once(boxed)
				plain, onHost, inBox = append(plain, ms(e)), append(onHost, ms(h)), append(inBox, ms(s))
				diff = append(diff, ms(s-h))
			}
			b.ReportMetric(median(plain), "exec-ms")
			b.ReportMetric(median(onHost), "host-ms")
			b.ReportMetric(median(inBox), "sandbox-ms")
			b.ReportMetric(median(diff), "overhead-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// callLoop is a program that makes n streamed calls of body to http://127.0.0.1:PORT/PATH and
// prints the median seconds of one call: the same on the host and in the sandbox. With "keep"
// the calls share one connection (as the CLIs' HTTP clients keep theirs), with "new" each opens
// its own.
const callLoop = `import http.client, statistics, sys, time
port, path, key, n, mode, body = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.stdin.buffer.read()
headers = {"x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json"}
conn, ts = None, []
for _ in range(n):
    t0 = time.perf_counter()
    if conn is None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=float(sys.argv[6]) if len(sys.argv) > 6 else 60)
    conn.request("POST", path, body=body, headers=headers)
    r = conn.getresponse()
    r.read()
    if r.status != 200:
        sys.exit("status %d" % r.status)
    if mode == "new":
        conn.close()
        conn = None
    ts.append(time.perf_counter() - t0)
print(statistics.median(ts))
`

// BenchmarkModelCallFromSandbox measures the gateway's overhead per model call as an agent in
// the sandbox meets it: a program in the sandbox calls the gateway on the sandbox's loopback
// (the helper handing the connection to the host, the host relay, the gateway on its Unix socket, the llm
// stack, the fake provider), and the same program on the host calls the fake provider
// directly; each makes 20 streamed Claude Code-sized calls and reports its median, on one kept
// connection ("keep") or a new one per call ("new"). Both run in each iteration, so that they
// meet the same load. The metrics are the medians over the iterations: direct-µs, gateway-µs
// and overhead-µs per call.
func BenchmarkModelCallFromSandbox(b *testing.B) {
	boxed, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		b.Skipf("bubblewrap cannot run here: %v", err)
	}
	host, err := sandbox.New(context.Background(), sandbox.Options{Mode: sandbox.ModeNone})
	if err != nil {
		b.Fatal(err)
	}
	reply := llmtest.Reply{Text: strings.Repeat("The function is not reachable. ", 20)}
	srv := llmtest.NewAnthropic(llmtest.Sequence(reply), llmtest.WithoutLog())
	defer srv.Close()
	stack, err := llm.New("anthropic:claude-sonnet-4-5", llm.Options{BaseURL: srv.BaseURL(), Getenv: func(string) string { return "k" }})
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := llm.AsRaw(stack.Model)
	gw, err := gateway.Start(gateway.Config{Model: raw})
	if err != nil {
		b.Fatal(err)
	}
	defer gw.Close()
	body := `{"model":"claude-sonnet-4-5","max_tokens":4096,"stream":true,"system":"` + strings.Repeat("You audit a repository. ", 400) +
		`","messages":[{"role":"user","content":"Is the project affected?"}]}`
	srvURL, err := url.Parse(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	loop := func(sb *sandbox.Sandbox, spec sandbox.Spec, port, key, mode string) float64 {
		spec.Args = []string{"/usr/bin/python3", "-c", callLoop, port, "/v1/messages", key, "20", mode}
		spec.Stdin = strings.NewReader(body)
		res, err := sb.Run(context.Background(), spec)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%s: %v %s", sb.Mode(), err, res.Stderr)
		}
		var s float64
		if _, err := fmt.Sscan(string(res.Stdout), &s); err != nil {
			b.Fatalf("%s printed %q", sb.Mode(), res.Stdout)
		}
		return s * 1e6
	}
	for _, mode := range []string{"keep", "new"} {
		b.Run(mode, func(b *testing.B) {
			var direct, via, diff []float64
			for b.Loop() {
				d := loop(host, sandbox.Spec{}, srvURL.Port(), "k", mode)
				g := loop(boxed, sandbox.Spec{Gateway: gw.Socket()}, fmt.Sprint(sandbox.GatewayPort), gw.Token(), mode)
				direct, via, diff = append(direct, d), append(via, g), append(diff, g-d)
			}
			b.ReportMetric(median(direct), "direct-µs")
			b.ReportMetric(median(via), "gateway-µs")
			b.ReportMetric(median(diff), "overhead-µs")
		})
	}
}
