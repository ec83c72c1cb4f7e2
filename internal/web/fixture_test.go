package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/cli"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
)

// TestMain stops the tests' Postgres cluster (internal/store/pgtest) once every test ran.
func TestMain(m *testing.M) { pgtest.Main(m) }

// The repository the jit cases read: copy() gains a length check at the fix.
const vulC = "#include <string.h>\n\nstatic int fits(const char *s, size_t n)\n{\n\treturn strlen(s) < n;\n}\n\nvoid copy(char *dst, const char *s)\n{\n\tstrcpy(dst, s);\n}\n\nvoid handle(const char *in)\n{\n\tchar buf[8];\n\tcopy(buf, in);\n}\n"
const fixC = "#include <string.h>\n\nstatic int fits(const char *s, size_t n)\n{\n\treturn strlen(s) < n;\n}\n\nvoid copy(char *dst, const char *s)\n{\n\tif (!fits(s, 8))\n\t\treturn;\n\tstrcpy(dst, s);\n}\n\nvoid handle(const char *in)\n{\n\tchar buf[8];\n\tcopy(buf, in);\n}\n"

// xss is in the code of case v0: it must be shown as text.
const xss = `/* <script>document.title="pwned"</script> */`

// fixture is a store with three runs of one suite of 30 jit pairs: random, constant:vul and
// the react agent on the llmtest fake, which asks get_callers (twice on vul cases) before it
// answers. Case v0's code carries markup.
type fixture struct {
	dir, db, suite       string
	random, vul, agent   string
	agentToolCallsOnV0   int
	cases, pairs, vulCWE int
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newFixture(t *testing.T) *fixture { return newFixtureIn(t, "") }

// newFixtureIn builds the fixture in the store at db ("": a SQLite file of its own).
func newFixtureIn(t *testing.T, db string) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("runs three subjects through the CLI")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repos", "acme", "lib")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q")
	var commits []string
	for _, src := range []string{vulC, fixC} {
		if err := os.WriteFile(filepath.Join(repo, "main.c"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, repo, "add", ".")
		git(t, repo, "commit", "-q", "-m", "c")
		commits = append(commits, git(t, repo, "rev-parse", "HEAD"))
	}
	fn := func(src string) string {
		i := strings.Index(src, "void copy(")
		j := strings.Index(src[i:], "\n}\n")
		return src[i : i+j+2]
	}
	if db == "" {
		db = filepath.Join(dir, "v.db")
	}
	f := &fixture{dir: dir, db: db, suite: filepath.Join(dir, "suite.jsonl"), cases: 60, pairs: 30}
	var b strings.Builder
	for i := range f.pairs {
		cwe := "CWE-787"
		if i%3 == 0 {
			cwe = "CWE-120"
		} else {
			f.vulCWE++
		}
		for k, label := range []string{"vul", "ben"} {
			code := fn([]string{vulC, fixC}[k])
			if i == 0 && label == "vul" {
				code = xss + "\n" + code
			}
			c, _ := json.Marshal(code)
			fmt.Fprintf(&b, `{"id":"%s%d","kind":"jit","label":%q,"pair":"p%d","language":"c","cwe":[%q],"code":%s,"repo":{"url":"https://github.com/acme/lib","commit":%q},"target":{"file":"main.c","function":"copy","line":8,"end_line":%d}}`+"\n",
				label[:1], i, label, i, cwe, c, commits[k], 8+strings.Count(code, "\n"))
		}
	}
	if err := os.WriteFile(f.suite, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	runCLI := func(args ...string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), args, nil, &out, &errb); code != 0 {
			t.Fatalf("vulnbench %v: exit %d\n%s\n%s", args, code, out.String(), errb.String())
		}
	}
	f.random, f.vul, f.agent = "base-random", "base-vul", "agent"
	runCLI("run", "--db", f.db, "--suite", f.suite, "--subject", "random", "--run-id", f.random, "--no-score")
	runCLI("run", "--db", f.db, "--suite", f.suite, "--subject", "constant:vul", "--run-id", f.vul, "--no-score")
	h := func(r llmtest.Request) llmtest.Reply {
		user := r.Messages[0].Content
		ben := strings.Contains(user, "fits(s, 8)")
		calls := 1
		if !ben {
			calls = 2
		}
		if r.Turn() < calls {
			return llmtest.Reply{InputTokens: 300, OutputTokens: 20,
				ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprint("c", r.Turn()), Name: "get_callers", Arguments: `{"function":"copy"}`}}}
		}
		if !ben {
			return llmtest.Reply{Text: `{"vulnerable": true, "cwe": "CWE-787"}`, InputTokens: 500, OutputTokens: 30}
		}
		return llmtest.Reply{Text: `{"vulnerable": false}`, InputTokens: 500, OutputTokens: 30}
	}
	srv := llmtest.NewOpenAI(h)
	defer srv.Close()
	runCLI("run", "--db", f.db, "--suite", f.suite, "--subject", "react", "--model", "openai:gpt-4o-mini", "--base-url", srv.BaseURL(),
		"--repos", filepath.Join(dir, "repos"), "--snapshot-cache", filepath.Join(dir, "cache"), "--run-id", f.agent, "--no-score", "--max-retries", "0")
	f.agentToolCallsOnV0 = 2
	return f
}
