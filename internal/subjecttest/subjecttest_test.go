package subjecttest_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// reader answers vul when the snapshot's main.c calls strcpy, and says how many definitions of
// f its code graph holds; it must not read outside the snapshot.
func reader(ctx context.Context, _ subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	s, err := env.Snapshot(ctx)
	if err != nil {
		return verdict.Verdict{}, err
	}
	b, err := s.ReadFile("main.c")
	if err != nil {
		return verdict.Verdict{}, err
	}
	if _, err := s.ReadFile("../../etc/passwd"); err == nil {
		return verdict.Verdict{}, errors.New("read outside the snapshot")
	}
	g, err := env.Graph(ctx)
	if err != nil {
		return verdict.Verdict{}, err
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Explanation: fmt.Sprintf("%d definitions of f", len(g.Definitions("f", query.Near{})))}
	if strings.Contains(string(b), "strcpy") {
		v.Label = suite.Vul
	}
	return v, nil
}

func TestUnitReadsItsSnapshotAndGraph(t *testing.T) {
	repos := t.TempDir()
	commit := gittest.Repo(t, filepath.Join(repos, "acme", "lib"), map[string]string{"main.c": "void f(char *s){char b[4];strcpy(b,s);}\n"})
	kind := subjecttest.FakeKind("reader", subjecttest.Fake{Answer: reader})
	tests := []struct {
		name string
		c    suite.Case
		want string
	}{
		{"repository", suite.Case{ID: "v", Kind: suite.KindJIT, Repo: &suite.Repo{URL: "https://github.com/acme/lib", Commit: commit}}, "ok vul 1 definitions of f"},
		{"no repository", suite.Case{ID: "n", Kind: suite.KindFunction}, "error  the case has no repository snapshot"},
		{"not cloned", suite.Case{ID: "m", Kind: suite.KindJIT, Repo: &suite.Repo{URL: "https://github.com/acme/gone", Commit: commit}}, "error  case m: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := subjecttest.RunUnit(t, kind, nil, &tt.c, nil, subjecttest.Repos(repos))
			got := fmt.Sprintf("%s %s %s%s", v.Status, v.Label, v.Explanation, v.Reason)
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("verdict %q, want %q...", got, tt.want)
			}
		})
	}
}

// A subject's model is metered: every call is in the trace and the verdict's usage, and the
// unit's step limit refuses the call past it.
func TestModelIsMetered(t *testing.T) {
	srv := llmtest.NewOpenAI(llmtest.Fixed("an answer"))
	defer srv.Close()
	model, err := llm.New("openai:m", llm.Options{BaseURL: srv.BaseURL(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	twice := subjecttest.Fake{Answer: func(ctx context.Context, _ subject.Unit, env *subject.Env) (verdict.Verdict, error) {
		for range 2 {
			if _, err := env.Model.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: "is it?"}}}); err != nil {
				return verdict.Verdict{}, err
			}
		}
		return verdict.Verdict{Status: verdict.OK, Label: suite.Vul}, nil
	}}
	kind := subjecttest.FakeKind("twice", twice.WithModel(model, llm.Prices{}))
	c := &suite.Case{ID: "a", Kind: suite.KindFunction, Code: "x"}
	for _, tt := range []struct {
		steps int
		want  string
		kinds []trace.Kind
	}{
		{0, "ok calls=2 ", []trace.Kind{trace.ModelRequest, trace.ModelResponse, trace.ModelRequest, trace.ModelResponse}},
		{1, "failed calls=1 stopped by its limit: 1 model calls (--max-steps 1) (a failed answer, counted)", []trace.Kind{trace.ModelRequest, trace.ModelResponse, trace.Error}},
	} {
		v, evs := subjecttest.RunUnit(t, kind, nil, c, nil, subjecttest.Limits(subject.Limits{Steps: tt.steps}))
		if got := fmt.Sprintf("%s calls=%d %s", v.Status, v.Usage.Calls, v.Reason); got != tt.want {
			t.Errorf("--max-steps %d: %q, want %q", tt.steps, got, tt.want)
		}
		var kinds []trace.Kind
		for _, e := range evs {
			kinds = append(kinds, e.Kind)
		}
		if d := cmp.Diff(tt.kinds, kinds); d != "" {
			t.Errorf("--max-steps %d: trace (-want +got):\n%s", tt.steps, d)
		}
	}
}

// A unit over its --timeout ends in an error verdict, as in a run.
func TestUnitTimesOut(t *testing.T) {
	wait := subjecttest.Fake{Answer: func(ctx context.Context, _ subject.Unit, _ *subject.Env) (verdict.Verdict, error) {
		<-ctx.Done()
		return verdict.Verdict{}, ctx.Err()
	}}
	v, _ := subjecttest.RunUnit(t, subjecttest.FakeKind("wait", wait), nil, &suite.Case{ID: "a", Kind: suite.KindFunction}, nil,
		subjecttest.Limits(subject.Limits{Wall: 20 * time.Millisecond}))
	if !verdict.IsStopped(v) || !strings.Contains(v.Reason, "--timeout") {
		t.Errorf("verdict %s %q, want failed, stopped by --timeout", v.Status, v.Reason)
	}
}
