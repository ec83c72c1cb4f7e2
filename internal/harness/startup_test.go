package harness_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/gateway"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// startupModels is the model each CLI starts on in BenchmarkStartup.
var startupModels = map[string]string{"claude-code": "anthropic:claude-sonnet-4-5", "codex": "openai:gpt-5.4-mini", "gemini-cli": "gemini:gemini-2.5-flash"}

// BenchmarkStartup: each CLI's start-up per case in the sandbox, as a run pays it: from the
// sandbox's start to the CLI's first model call reaching the fake through the gateway
// (s-to-first-call), and the whole run of a case the model answers at once (s-per-case). Each
// metric is the median of the b.N runs (-benchtime 5x: the median of 5):
//
//	go test ./internal/harness/ -run '^$' -bench Startup -benchtime 5x
func BenchmarkStartup(b *testing.B) {
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		b.Skipf("bubblewrap cannot run here: %v", err)
	}
	for _, name := range harness.Names() {
		b.Run(name, func(b *testing.B) {
			cli := harness.CLIs()[name]
			in, err := cli.Locate("")
			if errors.Is(err, harness.ErrNotInstalled) {
				b.Skipf("%v", err)
			}
			spec := startupModels[name]
			if spec == "" {
				spec = "openai:gpt-4.1"
			}
			// before: without harness.StartupCuts (OpenCode and Kilo), each round's two runs
			// one after the other, so that both meet the same load.
			var first, whole, firstBefore, wholeBefore []float64
			for i := 0; i < b.N; i++ {
				f, w := startOnce(b, sb, cli, in, spec, false)
				first, whole = append(first, f), append(whole, w)
				if name == "opencode" || name == "kilo" {
					f, w = startOnce(b, sb, cli, in, spec, true)
					firstBefore, wholeBefore = append(firstBefore, f), append(wholeBefore, w)
				}
			}
			b.ReportMetric(median(first), "s-to-first-call")
			b.ReportMetric(median(whole), "s-per-case")
			if firstBefore != nil {
				b.ReportMetric(median(firstBefore), "s-to-first-call-before")
				b.ReportMetric(median(wholeBefore), "s-per-case-before")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// startOnce runs the CLI once on a case the model answers at once: the seconds to its first
// model call and to its end.
func startOnce(b *testing.B, sb *sandbox.Sandbox, cli harness.CLI, in harness.Install, spec string, uncut bool) (float64, float64) {
	var once sync.Once
	var firstAt time.Time
	h := func(r llmtest.Request) llmtest.Reply {
		once.Do(func() { firstAt = time.Now() })
		return llmtest.Reply{Text: finalAnswer, InputTokens: 100, OutputTokens: 10}
	}
	provider, model, _ := llm.ParseSpec(spec)
	var srv *llmtest.Server
	switch provider {
	case "anthropic":
		srv = llmtest.NewAnthropic(h)
	case "gemini":
		srv = llmtest.NewGemini(h)
	default:
		srv = llmtest.NewOpenAI(h)
	}
	defer srv.Close()
	stack, err := llm.New(spec, llm.Options{BaseURL: srv.BaseURL(), Getenv: func(string) string { return "k" }})
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := llm.AsRaw(stack.Model)
	gw, err := gateway.Start(gateway.Config{Model: raw})
	if err != nil {
		b.Fatal(err)
	}
	defer gw.Close()
	project := b.TempDir()
	if err := os.WriteFile(project+"/main.c", []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ps, err := cli.Spec(in, harness.Run{Prompt: "Is main.c vulnerable? Answer with a JSON object.", Model: model, API: cli.APIs[provider], Token: gw.Token(),
		Project: project, Gateway: gw.Socket(), Timeout: 4 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	if uncut {
		ps.Env = slices.DeleteFunc(ps.Env, func(kv string) bool {
			for _, c := range harness.StartupCuts {
				if strings.HasPrefix(kv, "OPENCODE_"+c+"=") || strings.HasPrefix(kv, "KILO_"+c+"=") {
					return true
				}
			}
			return false
		})
	}
	start := time.Now()
	res, err := sb.Run(context.Background(), ps)
	end := time.Now()
	if err != nil {
		b.Fatalf("%s: %v\n%s", cli.Name, err, res.Stderr)
	}
	if _, err := cli.Answer(res); err != nil || firstAt.IsZero() {
		b.Fatalf("%s answered %v (first call seen: %v)", cli.Name, err, !firstAt.IsZero())
	}
	return firstAt.Sub(start).Seconds(), end.Sub(start).Seconds()
}
