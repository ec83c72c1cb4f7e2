package harness_test

import (
	"context"
	"errors"
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
	"github.com/vulnbench/vulnbench/internal/trace"
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
			if tc.api == llm.AnthropicMessages {
				srv = llmtest.NewAnthropic(llmtest.Fixed(answer.Text), llmtest.WithoutLog())
			} else {
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
				gw, err := gateway.Start(gateway.Config{Model: raw, Recorder: trace.Discard{}})
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
