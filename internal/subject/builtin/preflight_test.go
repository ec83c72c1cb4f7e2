package builtin_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/preflight"
	"github.com/vulnbench/vulnbench/internal/subject/builtin"
)

// Issue 31: preflight checked no repository nor advisory for claude-code, codex, opencode and cmd
// (their configs declared neither need), and did not ask for --advisories on a vex-agent run.
// Now every kind's declared needs are checked: a vex case needs its repository under --repos and
// its advisory under --advisories, and a run that gives neither is told to fetch both.
func TestPreflightChecksDeclaredNeeds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "vex.jsonl")
	const vexCase = `{"id":"a","kind":"vex","label":"vul","cve":"CVE-2024-1","repo":{"url":"https://github.com/o/a","commit":"1111111"},"vex":{"category":"vulnerable","ecosystem":"Go"}}` + "\n"
	if err := os.WriteFile(path, []byte(vexCase), 0o644); err != nil {
		t.Fatal(err)
	}
	repoMiss := preflight.Miss{What: "repository https://github.com/o/a (1 case): no --repos directory was given",
		Fix: "vulnbench fetch repos --suite " + path + " --repos repos  (then run with --repos repos)"}
	advMiss := preflight.Miss{What: "advisory CVE-2024-1 (1 case): no --advisories was given",
		Fix: "vulnbench fetch advisories --suite " + path + " --advisories advisories  (then run with --advisories advisories)"}
	reg := builtin.Registry()
	for _, tt := range []struct {
		spec  string
		flags map[string]string
	}{
		{"claude-code", map[string]string{"model": "anthropic:claude-sonnet-4-5"}},
		{"codex", map[string]string{"model": "openai:gpt-5.4-mini"}},
		{"opencode", map[string]string{"model": "openai:gpt-5.4-mini"}},
		{"cmd", map[string]string{"model": "openai:gpt-5.4-mini", "agent-cmd": "my-agent {prompt_file}"}},
		{"vex-agent", map[string]string{"model": "openai:gpt-5.4-mini"}},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			f, arg, err := reg.Lookup(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			vals := textValues{}
			for _, fl := range f.Flags {
				vals[fl.Name] = fmt.Sprint(fl.Default)
			}
			for k, v := range tt.flags {
				vals[k] = v
			}
			cfg, err := f.Configure(arg, vals)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := preflight.Check(context.Background(), preflight.Input{Suite: path, Factory: f, Config: cfg,
				Getenv: func(string) string { return "key" }, LookPath: func(p string) (string, error) { return p, nil }})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]preflight.Miss{repoMiss, advMiss}, rep.Misses); d != "" {
				t.Errorf("misses (-want +got):\n%s", d)
			}
		})
	}
}
