package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/builtin"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// BenchmarkPlainLLMRun is the harness's own cost per case (issue 37, item 3): a plain-LLM run of
// 1,000 function cases against an instant fake OpenAI server, 16 at once, on a fresh SQLite
// store each time, as `vulnbench run --subject llm` does it (the CLI aside). Reported per case;
// run with -benchmem, -cpuprofile and -memprofile to see where it goes.
func BenchmarkPlainLLMRun(b *testing.B) {
	const n = 1000
	dir := b.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := suite.NewWriter(f)
	for i := range n {
		label, op := suite.Vul, ">"
		if i%2 == 1 {
			label, op = suite.Ben, ">="
		}
		c := &suite.Case{ID: fmt.Sprintf("c-%05d", i), Kind: suite.KindFunction, Label: label, Pair: fmt.Sprintf("p%05d", i/2),
			Language: "c", CWE: []string{"CWE-787"},
			Code: fmt.Sprintf("int f%d(char *s, int n) {\n  char b[16];\n  if (n %s 16) return -1;\n  memcpy(b, s, n);\n  return b[0];\n}\n", i/2, op)}
		if err := w.Write(c); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil || f.Close() != nil {
		b.Fatal("write the suite")
	}
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: fmt.Sprintf(`{"vulnerable": %v, "cwe": "CWE-787", "confidence": 0.7, "reason": "bench"}`,
			strings.Contains(r.Prompt(), "> 16")), InputTokens: 900, OutputTokens: 40}
	}, llmtest.WithoutLog())
	defer srv.Close()
	b.Setenv("OPENAI_API_KEY", "bench-key")
	fac, arg, err := builtin.Registry().Lookup("llm")
	if err != nil {
		b.Fatal(err)
	}
	flags := map[string]string{}
	for _, fl := range fac.Flags {
		flags[fl.Name] = fmt.Sprint(fl.Default)
	}
	flags["model"], flags["base-url"] = "openai:bench", srv.BaseURL()
	cfg, err := fac.Configure(arg, subject.TextValues(flags))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		st, err := store.Open(ctx, filepath.Join(dir, fmt.Sprintf("v%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		s := Spec{Version: "bench", RunID: "b", Suite: path, Subject: Subject{Factory: fac, Spec: "llm", Config: cfg, Flags: flags},
			Repeats: 1, Host: Host{Concurrency: 16, Deps: subject.Deps{Cache: st, Getenv: os.Getenv}}}
		b.StartTimer()
		out, err := execute(st, s, Local{})
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if out.Result.OK != n {
			b.Fatalf("%d of %d cases ok", out.Result.OK, n)
		}
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "us/case")
}
