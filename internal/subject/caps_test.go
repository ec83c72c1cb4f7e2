package subject_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/suite"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

type noConfig struct{}

func (noConfig) Validate() error { return nil }

// plain judges and does nothing else; described also says what it is, closer holds something.
type plain struct{}

func (*plain) Assess(context.Context, subject.Unit, *subject.Env) (verdict.Verdict, error) {
	return verdict.Verdict{Status: verdict.OK, Label: suite.Ben}, nil
}

type described struct{ plain }

func (*described) Describe() map[string]any { return map[string]any{"tool": "x"} }

type closer struct{ plain }

func (*closer) Close() error { return nil }

func kindOf[S subject.Subject](s S, can subject.Can) subject.Factory {
	return subject.Kind[noConfig, S]{Name: "k", Usage: "k", Version: "1", Kinds: suite.Kinds, Can: can,
		Configure: func(string, subject.Values) (noConfig, error) { return noConfig{}, nil },
		New:       func(noConfig, subject.Deps) (S, error) { return s, nil }}.Factory()
}

// TestDeclared: a kind whose subject does what it does not declare, or declares what it does not
// do, is refused when registered (Declared) and when built (New); one that agrees is not.
func TestDeclared(t *testing.T) {
	tests := []struct {
		name string
		f    subject.Factory
		want string
	}{
		{"agrees", kindOf(&described{}, subject.Can{Describe: true}), ""},
		{"nothing to declare", kindOf(&plain{}, subject.Can{}), ""},
		{"undeclared Describe", kindOf(&described{}, subject.Can{}), "subject k: its subject *subject_test.described implements Describe without declaring it"},
		{"undeclared Close", kindOf(&closer{}, subject.Can{}), "implements Close without declaring it"},
		{"declared, not done", kindOf(&plain{}, subject.Can{Requests: true, Batch: true}),
			"declares Request (estimates) and does not implement it; declares UseBatch (run --batch) and does not implement it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, step := range []struct {
				what string
				err  error
			}{{"Declared", tt.f.Declared()}, {"New", newErr(tt.f)}} {
				got := ""
				if step.err != nil {
					got = step.err.Error()
				}
				if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
					t.Errorf("%s = %q, want %q", step.what, got, tt.want)
				}
			}
		})
	}
}

func newErr(f subject.Factory) error {
	_, err := f.New(noConfig{}, subject.Deps{})
	return err
}

// TestUndeclaredIsNotUsed: what a kind does not declare is not used, even where its subject
// has it (a Factory written by hand): Describe says nothing, and the kind reads no repository.
func TestUndeclaredIsNotUsed(t *testing.T) {
	f := subject.Factory{Name: "k"}
	if d := f.Describe(&described{}); d != nil {
		t.Errorf("Describe of an undeclared Describer = %v", d)
	}
	if f.ReadsRepository() || f.NeedsRepository(noConfig{}, &suite.Case{Repo: &suite.Repo{URL: "https://h/o/n"}}) {
		t.Error("a kind that declares no repository reads one")
	}
	if got := f.StepsOf(noConfig{}, subject.Limits{Steps: 9}); got != 1 {
		t.Errorf("StepsOf a one-call kind = %d", got)
	}
}
