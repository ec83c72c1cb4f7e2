package subject_test

import (
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/subject"
)

func TestLookup(t *testing.T) {
	reg := subject.Builtin()
	tests := []struct {
		spec, name, arg, err string
	}{
		{spec: "random", name: "random"},
		{spec: "constant:vul", name: "constant", arg: "vul"},
		{spec: "predictions:a:b.jsonl", name: "predictions", arg: "a:b.jsonl"},
		{spec: "constant", err: `subject "constant" needs an argument: constant:vul|ben`},
		{spec: "random:3", err: `subject "random:3" takes no argument: random`},
		{spec: "gpt", err: `unknown subject "gpt"; known subjects: random, constant:vul|ben, predictions:FILE, llm, flawfinder`},
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
	f, arg, err := subject.Builtin().Lookup("constant:maybe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.New(arg, subject.Options{}); err == nil || !strings.Contains(err.Error(), "vul or ben") {
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
}
