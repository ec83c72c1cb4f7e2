package preflight_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/preflight"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/suite"
)

type repoConfig struct{}

func (repoConfig) Validate() error { return nil }

// repoKind is a kind named k judging vex cases, whose every case with a repository needs it and
// its advisory, with no --advisories given.
func repoKind() subject.Factory {
	return subject.Factory{Name: "k", Kinds: []suite.Kind{suite.KindVEX},
		Repository: func(_ subject.Config, c *suite.Case) bool { return subject.CaseRepo(c) },
		Advisories: func(_ subject.Config, c *suite.Case) ([]string, string) { return subject.CaseAdvisory(c), "" }}
}

// modelKind is a kind calling the model of its modelkit.Config.
func modelKind() subject.Factory {
	return subject.Factory{Name: "llm", Kinds: suite.Kinds,
		Model: func(c subject.Config) subject.ModelNeed { return c.(modelkit.Config).Need() }}
}

const twoRepos = `{"id":"a","kind":"vex","label":"vul","cve":"CVE-1","repo":{"url":"https://github.com/o/a","commit":"1111111"},"vex":{"category":"vulnerable","ecosystem":"Go"}}
{"id":"b","kind":"vex","label":"ben","cve":"CVE-1","repo":{"url":"https://github.com/o/b","commit":"2222222"},"vex":{"category":"code_not_present","ecosystem":"Go"}}
{"id":"c","kind":"function","label":"ben","pair":"p","code":"x","repo":{"url":"https://github.com/o/c","commit":"3333333"}}
`

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(twoRepos), 0o644); err != nil {
		t.Fatal(err)
	}
	noKey := func(string) string { return "" }
	withKey := func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "k"
		}
		return ""
	}
	missing := func(string) (string, error) { return "", errors.New("not found") }
	vex := repoKind()
	vex.Needs = subject.Needs{Binaries: []subject.Binary{{Name: "scan", Install: "make deps"}}, Env: []string{"SCAN_TOKEN"}}
	model := modelKind()
	tests := []struct {
		name     string
		fac      subject.Factory
		cfg      subject.Config
		getenv   func(string) string
		misses   []preflight.Miss
		warnings []string
	}{
		{"every miss at once; the function case is not judged", vex, repoConfig{}, noKey, []preflight.Miss{
			{What: "subject k needs the program scan, which is not on PATH", Fix: "make deps"},
			{What: "subject k needs the environment variable SCAN_TOKEN", Fix: "export SCAN_TOKEN=..."},
			{What: "repository https://github.com/o/a (1 case): no --repos directory was given", Fix: "vulnbench fetch repos --suite " + path + " --repos repos  (then run with --repos repos)"},
			{What: "repository https://github.com/o/b (1 case): no --repos directory was given", Fix: "vulnbench fetch repos --suite " + path + " --repos repos  (then run with --repos repos)"},
			{What: "advisory CVE-1 (2 cases): no --advisories was given", Fix: "vulnbench fetch advisories --suite " + path + " --advisories advisories  (then run with --advisories advisories)"},
		}, nil},
		{"a hosted model without its key", model, modelkit.Config{Model: "openai:gpt-4o-mini"}, noKey, []preflight.Miss{
			{What: "the model openai:gpt-4o-mini needs an API key in OPENAI_API_KEY", Fix: "export OPENAI_API_KEY=...  (or --base-url URL for a local server)"},
		}, nil},
		{"a hosted model with its key", model, modelkit.Config{Model: "openai:gpt-4o-mini"}, withKey, nil, nil},
		{"a local model: no key, unpriced is a warning", model, modelkit.Config{Model: "openai:my-local", BaseURL: "http://127.0.0.1:8000/v1"}, noKey, nil,
			[]string{"openai:my-local is not in the price table: its costs will show as unpriced (add it with --prices FILE)"}},
		{"an unknown provider", model, modelkit.Config{Model: "acme:m"}, withKey, []preflight.Miss{
			{What: `--model "acme:m": unknown provider "acme" (use openai for any OpenAI-compatible server, anthropic or gemini)`, Fix: "--model openai:gpt-4o-mini (or another PROVIDER:MODEL)"},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := preflight.Check(context.Background(), preflight.Input{Suite: path, Factory: tt.fac, Config: tt.cfg, Getenv: tt.getenv, LookPath: missing})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.misses, rep.Misses); d != "" {
				t.Errorf("misses (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.warnings, rep.Warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
			if (rep.Err() == nil) != (len(tt.misses) == 0) {
				t.Errorf("Err() = %v with %d misses", rep.Err(), len(tt.misses))
			}
		})
	}
}

// TestCheckStoredCases: a worker's run has no suite file: its cases come from the store
// (Input.Cases), and the suite's path only names it in the fixes.
func TestCheckStoredCases(t *testing.T) {
	c := &suite.Case{ID: "a", Kind: suite.KindVEX, Label: "vul", CVE: "CVE-1", Repo: &suite.Repo{URL: "https://github.com/o/a", Commit: "1111111"}}
	in := preflight.Input{Suite: "stored.jsonl", Factory: repoKind(), Config: repoConfig{},
		Getenv: func(string) string { return "" }, Cases: func(fn func(*suite.Case) error) error { return fn(c) }}
	rep, err := preflight.Check(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []preflight.Miss{
		{What: "repository https://github.com/o/a (1 case): no --repos directory was given", Fix: "vulnbench fetch repos --suite stored.jsonl --repos repos  (then run with --repos repos)"},
		{What: "advisory CVE-1 (1 case): no --advisories was given", Fix: "vulnbench fetch advisories --suite stored.jsonl --advisories advisories  (then run with --advisories advisories)"},
	}
	if d := cmp.Diff(want, rep.Misses); d != "" {
		t.Errorf("misses (-want +got):\n%s", d)
	}
}
