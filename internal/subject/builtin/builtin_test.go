package builtin_test

import (
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/builtin"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func TestLookup(t *testing.T) {
	reg := builtin.Registry()
	tests := []struct {
		spec, name, arg, err string
	}{
		{spec: "random", name: "random"},
		{spec: "constant:vul", name: "constant", arg: "vul"},
		{spec: "predictions:a:b.jsonl", name: "predictions", arg: "a:b.jsonl"},
		{spec: "constant", err: `subject "constant" needs an argument: constant:vul|ben`},
		{spec: "random:3", err: `subject "random:3" takes no argument: random`},
		{spec: "gpt", err: `unknown subject "gpt"; known subjects: random, constant:vul|ben, predictions:FILE, llm, depaug, react, flawfinder, cppcheck, bandit, gosec, eslint, sarif:FILE, sca, govulncheck, vex-agent, memory-probe, claude-code, codex, opencode, gemini-cli, qwen-code, pi, cline, kilo, cmd`},
	}
	for _, tt := range tests {
		f, arg, err := reg.Lookup(tt.spec)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err || (err == nil && (f.Name != tt.name || arg != tt.arg)) {
			t.Errorf("Lookup(%q) = %q, %q, %q; want %q, %q, %q", tt.spec, f.Name, arg, got, tt.name, tt.arg, tt.err)
		}
	}
}

func TestConstantRefusesBadLabel(t *testing.T) {
	f, arg, err := builtin.Registry().Lookup("constant:maybe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Configure(arg, nil); err == nil || !strings.Contains(err.Error(), "vul or ben") {
		t.Errorf("constant:maybe: err = %v", err)
	}
}

func TestMissingBinarySaysHowToInstall(t *testing.T) {
	f := subject.Factory{Name: "nosuch", Needs: subject.Needs{Binaries: []subject.Binary{{Name: "vulnbench-no-such-tool", Install: "apt-get install nosuch"}}}}
	err := subject.CheckNeeds(f)
	want := "subject nosuch needs the vulnbench-no-such-tool program, which is not on PATH; install it with: apt-get install nosuch"
	if err == nil || err.Error() != want {
		t.Errorf("CheckNeeds = %v, want %q", err, want)
	}
	// eslint lives in vulnbench's npm prefix, not on PATH.
	t.Setenv(sast.NodePrefixEnv, "/nonexistent/vulnbench-node")
	f, _, err = builtin.Registry().Lookup("eslint")
	if err != nil {
		t.Fatal(err)
	}
	err = subject.CheckNeeds(f)
	want = "subject eslint needs /nonexistent/vulnbench-node/node_modules/.bin/eslint, which is not installed; install it with: " + sast.ESLintInstall
	if err == nil || err.Error() != want {
		t.Errorf("CheckNeeds = %v, want %q", err, want)
	}
}

// Defect: flawfinder judged Java, PHP and Terraform cases as "ok" and printed an F1. Subjects now
// declare the languages they read, and a case in another language is named as unsupported.
func TestUnsupportedLanguages(t *testing.T) {
	reg := builtin.Registry()
	ff, _, err := reg.Lookup("flawfinder")
	if err != nil {
		t.Fatal(err)
	}
	rnd, _, _ := reg.Lookup("random")
	bd, _, _ := reg.Lookup("bandit")
	sf, _, _ := reg.Lookup("sarif:x")
	tests := []struct {
		f    subject.Factory
		c    suite.Case
		want string
	}{
		{ff, suite.Case{Kind: suite.KindFunction, Language: "c"}, ""},
		{ff, suite.Case{Kind: suite.KindAppSec, Language: "cpp"}, ""},
		{ff, suite.Case{Kind: suite.KindFunction}, ""},
		{ff, suite.Case{Kind: suite.KindAppSec, Language: "java"}, "subject flawfinder cannot judge java code (it judges c, cpp, c++)"},
		{ff, suite.Case{Kind: suite.KindAppSec, Language: "Terraform"}, "subject flawfinder cannot judge Terraform code (it judges c, cpp, c++)"},
		{ff, suite.Case{Kind: suite.KindVEX, Language: "c"}, ""}, // its snapshot is scanned
		{bd, suite.Case{Kind: suite.KindJIT, Language: "c"}, "subject bandit cannot judge c code (it judges python, py)"},
		{sf, suite.Case{Kind: suite.KindVEX, Language: "c"}, "subject sarif cannot judge vex cases (it judges function, jit, appsec)"},
		{rnd, suite.Case{Kind: suite.KindVEX, Language: "go"}, ""},
	}
	for _, tt := range tests {
		if got := tt.f.Unsupported(&tt.c); got != tt.want {
			t.Errorf("%s on %s/%s: %q, want %q", tt.f.Name, tt.c.Kind, tt.c.Language, got, tt.want)
		}
	}
}
