package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/cli"
	"github.com/vulnbench/vulnbench/internal/docs"
)

// root is the module's directory, two levels above this package.
const root = "../.."

// journeyDir holds the journeys: one txtar script each, running documented blocks with `doc`.
const journeyDir = root + "/testdata/docs"

// allBlocks reads every fenced block of README.md and docs/*.md.
func allBlocks(t *testing.T) []docs.Block {
	t.Helper()
	files, err := docs.Files(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []docs.Block
	for _, f := range files {
		bs, err := docs.Read(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i := range bs {
			bs[i].File = f
		}
		out = append(out, bs...)
	}
	return out
}

// TestEveryShellBlockIsRunOrIllustrative: each shell block is marked, each doc name is unique,
// and each command of a block marked to run is run by a journey (its `doc` lines, read here).
func TestEveryShellBlockIsRunOrIllustrative(t *testing.T) {
	blocks := allBlocks(t)
	named := map[string]docs.Block{}
	for _, b := range blocks {
		switch {
		case !b.Shell():
		case b.Name == "" && b.Illustrative == "":
			t.Errorf("%s: a shell block neither run nor marked: put <!-- doc: NAME --> before it and run it in a journey (%s), or <!-- illustrative: REASON -->", b.Where(), journeyDir)
		case b.Name != "":
			if o, dup := named[b.Name]; dup {
				t.Errorf("%s: doc name %q is %s's too", b.Where(), b.Name, o.Where())
			}
			named[b.Name] = b
		}
	}
	run, err := journeyLines()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range named {
		for _, c := range b.Commands() {
			if !run[name][c.N] && !run[name][0] {
				t.Errorf("%s:%d: command %d of doc %q is run by no journey in %s: %s", b.File, c.Line, c.N, name, journeyDir, c.Text)
			}
		}
	}
	for name, lines := range run {
		b, ok := named[name]
		if !ok {
			t.Errorf("a journey runs doc %q, which no README or docs block is named", name)
			continue
		}
		n := len(b.Commands())
		for l := range lines {
			if l != 0 && l > n {
				t.Errorf("a journey runs command %d of doc %q (%s), which has %d", l, name, b.Where(), n)
			}
		}
	}
}

// docLine is a journey's `doc [-bg] NAME [N|N-M ...]` or `docfile NAME [N...] FILE` line.
var docLine = regexp.MustCompile(`^\s*(?:!\s+)?(doc|docfile)\s+(.*)$`)

// journeyLines reads which commands of which doc blocks the journeys run.
func journeyLines() (map[string]map[int]bool, error) {
	files, err := filepath.Glob(filepath.Join(journeyDir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	out := map[string]map[int]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		script := string(data)
		if i := strings.Index(script, "\n-- "); i >= 0 {
			script = script[:i]
		}
		for _, line := range strings.Split(script, "\n") {
			m := docLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			args := strings.Fields(m[2])
			if m[1] == "doc" && len(args) > 0 && args[0] == "-bg" {
				args = args[1:]
			}
			if m[1] == "docfile" && len(args) > 0 {
				args = args[:len(args)-1]
			}
			if len(args) == 0 {
				return nil, fmt.Errorf("%s: %q names no doc", f, line)
			}
			name, sel := args[0], args[1:]
			if out[name] == nil {
				out[name] = map[int]bool{}
			}
			if len(sel) == 0 {
				out[name][0] = true // 0: every command of the block
			}
			nums, err := selection(sel)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %v", f, line, err)
			}
			for _, n := range nums {
				out[name][n] = true
			}
		}
	}
	return out, nil
}

// selection reads command numbers: N or N-M.
func selection(args []string) ([]int, error) {
	var out []int
	for _, a := range args {
		lo, hi, rng := strings.Cut(a, "-")
		from, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("%q is not a command number or range N-M", a)
		}
		to := from
		if rng {
			if to, err = strconv.Atoi(hi); err != nil || to < from {
				return nil, fmt.Errorf("%q is not a range N-M", a)
			}
		}
		for n := from; n <= to; n++ {
			out = append(out, n)
		}
	}
	return out, nil
}

// TestDocumentedCommandsParse: every vulnbench command of every shell block (illustrative ones
// too) names a command and flags that exist, with arguments it takes; every `make TARGET` names
// a target of the Makefile.
func TestDocumentedCommandsParse(t *testing.T) {
	for _, p := range commandProblems(allBlocks(t), makeTargets(t)) {
		t.Error(p)
	}
}

// TestCommandProblemsFindsAMissingFlag: the check above fails on a flag no command has, a
// command that does not exist, a missing argument and an unknown make target, and passes the
// same lines spelt right.
func TestCommandProblemsFindsAMissingFlag(t *testing.T) {
	b := docs.Block{File: "README.md", Line: 10, Lang: "sh", Text: `vulnbench run --suite s.jsonl --subject random --no-such-flag
vulnbench frobnicate --db x.db
vulnbench stop
OPENAI_API_KEY=x vulnbench score --run A --format md && vulnbench runs | head
make demo
make nothing
vulnbench run --suite s.jsonl --subject llm --model openai:m \
    --base-url $(cat url.txt) --estimate`}
	got := commandProblems([]docs.Block{b}, map[string]bool{"demo": true})
	want := []string{
		"README.md:11: vulnbench run --suite s.jsonl --subject random --no-such-flag: unknown flag: --no-such-flag",
		`README.md:12: vulnbench frobnicate --db x.db: unknown command "frobnicate" for "vulnbench"`,
		"README.md:13: vulnbench stop: vulnbench stop takes the run id (list them with: vulnbench runs) (got 0 arguments)",
		`README.md:16: make nothing: the Makefile has no target "nothing"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// commandProblems checks the commands of blocks' shell blocks.
func commandProblems(blocks []docs.Block, targets map[string]bool) []string {
	var out []string
	for _, b := range blocks {
		if !b.Shell() {
			continue
		}
		for _, c := range b.Commands() {
			for _, words := range docs.Simple(c.Text) {
				if i := slices.Index(words, "--"); i > 0 && i+1 < len(words) && words[i+1] == "vulnbench" {
					words = words[i+1:] // a command run by another: bench/llmserver -- vulnbench ...
				}
				switch words[0] {
				case "vulnbench", "bin/vulnbench", "./bin/vulnbench":
					if err := cli.Check(words[1:]); err != nil {
						out = append(out, fmt.Sprintf("%s:%d: %s: %v", b.File, c.Line, strings.Join(words, " "), err))
					}
				case "make":
					for _, w := range words[1:] {
						if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") && !targets[w] {
							out = append(out, fmt.Sprintf("%s:%d: make %s: the Makefile has no target %q", b.File, c.Line, w, w))
						}
					}
				}
			}
		}
	}
	return out
}

// otherFlags are flags of other programs that the docs' prose names alone in backticks.
var otherFlags = map[string]string{
	"first-parent":  "git log",
	"diff-merges":   "git log",
	"raw":           "git log",
	"max-count":     "git rev-list",
	"reachable":     "git commit-graph",
	"changed-paths": "git commit-graph",
	"block-fd":      "bwrap",
	"args":          "bwrap",
	"overlay-src":   "bwrap",
	"seccomp":       "bwrap",
	"version":       "the agent CLIs (docs/harness.md: each asked its version)",
	"variant":       "opencode and kilo (docs/harness.md's effort column)",
	"thinking":      "pi and cline (docs/harness.md's effort column)",
	"tools":         "bench/llmserver",
	"dialect":       "bench/llmserver",
	"forever":       "bench/llmserver",
	"check":         "npm ci",
	"count":         "go test",
	"task":          "the agent in docs/harness.md's example",
}

// TestDocumentedFlagsExist: a flag the prose names in backticks (`--flag`, `run --flag`,
// `vulnbench ...`) is a flag of a vulnbench command, or of another program named in otherFlags.
func TestDocumentedFlagsExist(t *testing.T) {
	flags := cli.Flags()
	files, err := docs.Files(root)
	if err != nil {
		t.Fatal(err)
	}
	flag := regexp.MustCompile(`(?:^|\s)--([a-z][a-z0-9-]*)`)
	for _, f := range files {
		spans, err := docs.Spans(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range spans {
			if strings.HasPrefix(s.Text, "vulnbench ") {
				for _, words := range docs.Simple(s.Text) {
					if words[0] != "vulnbench" || strings.ContainsAny(s.Text, "[]|…") || strings.Contains(s.Text, "...") || words[1] == "sandbox-forward" {
						continue // an outline or main's sandbox mode, not a command line
					}
					for i, w := range words {
						if placeholder.MatchString(w) && !strings.HasPrefix(words[i-1], "-") {
							words = words[:i] // `suite import NAME --in FILE`: a command's place
							break
						}
					}
					if err := cli.Check(append(words[1:], "--help")); err != nil {
						t.Errorf("%s:%d: `%s`: %v", f, s.Line, s.Text, err)
					}
				}
			}
			if w := strings.Fields(s.Text); len(w) > 0 && !strings.HasPrefix(w[0], "-") && !strings.HasPrefix(s.Text, "vulnbench ") && !vulnbenchWord(w[0]) {
				continue // another program's command line
			}
			for _, m := range flag.FindAllStringSubmatch(s.Text, -1) {
				if _, ok := flags[m[1]]; !ok && otherFlags[m[1]] == "" {
					t.Errorf("%s:%d: `%s`: no vulnbench command has --%s", f, s.Line, s.Text, m[1])
				}
			}
		}
	}
}

// placeholder is an upper-case word standing for a value: RUN, NAME, FILE.
var placeholder = regexp.MustCompile(`^[A-Z][A-Z_]+$`)

// vulnbenchWord reports whether w is a vulnbench command's name (`run --resume`).
func vulnbenchWord(w string) bool {
	return slices.Contains([]string{"run", "score", "compare", "runs", "board", "report", "export", "serve", "fetch", "suite", "worker", "probe", "judge", "code", "sarif", "stop", "cancel", "migrate"}, w)
}

// makeTargets are the Makefile's targets.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9_-]*)\s*:`).FindAllStringSubmatch(string(data), -1) {
		out[m[1]] = true
	}
	return out
}
