package docs_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vulnbench/vulnbench/internal/cli"
	"github.com/vulnbench/vulnbench/internal/docs"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
)

// withPostgres stops the tests' Postgres cluster (internal/store/pgtest) once every test ran.
type withPostgres struct{ m *testing.M }

func (w withPostgres) Run() int {
	code := w.m.Run()
	if err := pgtest.Stop(); err != nil && code == 0 {
		code = 1
	}
	return code
}

func TestMain(m *testing.M) {
	testscript.Main(withPostgres{m}, map[string]func(){
		"vulnbench": func() {
			os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// fakes are a journey's model providers: internal/llmtest's servers answering with
// llmtest.Answers, batch APIs on.
type fakes struct {
	openai, anthropic *llmtest.Server
}

func (f *fakes) server(name string) *llmtest.Server {
	if name == "anthropic" {
		return f.anthropic
	}
	return f.openai
}

// TestJourneys runs each journey of testdata/docs: documented blocks (`doc NAME`) typed as a
// new user would, in a clean HOME, a minimal PATH, no git configuration but the journey's own,
// against fake model providers (OPENAI_BASE_URL, ANTHROPIC_BASE_URL and keys in the
// environment, as a user's shell has them), the tests' Postgres (VULNBENCH_DB) and
// repositories the journey builds.
func TestJourneys(t *testing.T) {
	blocks := map[string]docs.Block{}
	for _, b := range allBlocks(t) {
		if b.Name != "" {
			blocks[b.Name] = b
		}
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("the journeys need the go command (make demo builds with it)")
	}
	goenv := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
		out, err := exec.Command(gobin, "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		goenv[k] = strings.TrimSpace(string(out))
	}
	// Journeys that use Postgres name $VULNBENCH_DB: each gets a database of the tests' cluster.
	dsns := map[string]string{}
	scripts, _ := filepath.Glob(filepath.Join(journeyDir, "*.txtar"))
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "# needs: postgres") {
			dsns[strings.TrimSuffix(filepath.Base(s), ".txtar")] = pgtest.DSN(t)
		}
	}
	testscript.Run(t, testscript.Params{
		Dir:                 journeyDir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			name := strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")
			bindir := strings.Split(env.Getenv("PATH"), string(os.PathListSeparator))[0]
			home := filepath.Join(env.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			f := &fakes{
				openai:    llmtest.NewOpenAI(llmtest.Answers(), llmtest.WithBatches(llmtest.BatchOptions{Polls: 2}), llmtest.WithoutLog()),
				anthropic: llmtest.NewAnthropic(llmtest.Answers(), llmtest.WithBatches(llmtest.BatchOptions{Polls: 2}), llmtest.WithoutLog()),
			}
			env.Defer(f.openai.Close)
			env.Defer(f.anthropic.Close)
			env.Values[fakesKey{}] = f
			env.Values[rootKey{}] = rootAbs
			// A new user's environment: nothing of the test process's but the machine's Go
			// installation and caches, and where make deps installed vulnbench's npm programs.
			env.Vars = []string{
				"WORK=" + env.WorkDir,
				"TMPDIR=" + env.Getenv("TMPDIR"),
				"HOME=" + home,
				"USER=" + "journey",
				"LANG=C.UTF-8",
				"PATH=" + strings.Join([]string{bindir, filepath.Dir(gobin), "/usr/local/bin", "/usr/bin", "/bin"}, string(os.PathListSeparator)),
				"GIT_CONFIG_NOSYSTEM=1",
				"GOCACHE=" + goenv["GOCACHE"], "GOMODCACHE=" + goenv["GOMODCACHE"], "GOPATH=" + goenv["GOPATH"],
				"GOPROXY=off", "GOFLAGS=", "GOTOOLCHAIN=local",
				"VULNBENCH_NODE=" + harness.NodePrefix(),
				"OPENAI_BASE_URL=" + f.openai.BaseURL(), "OPENAI_API_KEY=sk-journey-openai",
				"ANTHROPIC_BASE_URL=" + f.anthropic.BaseURL(), "ANTHROPIC_API_KEY=sk-ant-journey",
				":=" + string(os.PathListSeparator),
				"/=" + string(os.PathSeparator),
			}
			if pg := os.Getenv("VULNBENCH_PGBIN"); pg != "" {
				env.Vars = append(env.Vars, "VULNBENCH_PGBIN="+pg)
			}
			if dsn, ok := dsns[name]; ok {
				env.Vars = append(env.Vars, "VULNBENCH_DB="+dsn)
			}
			env.Cd = env.WorkDir
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"doc":       cmdDoc(blocks, false),
			"docfile":   cmdDoc(blocks, true),
			"clonerepo": cmdCloneRepo,
			"fake":      cmdFake,
		},
	})
}

type (
	fakesKey struct{}
	rootKey  struct{}
)

// cmdDoc is `doc NAME [N|N-M ...]`: the block's commands (all, or those numbered) run verbatim
// by bash (set -eo pipefail) in the script's directory and environment; its output is what
// stdout and stderr then check. As `docfile NAME [N ...] FILE` it writes them to FILE for `exec
// bash FILE &` (a single simple command is exec'd, so that kill reaches vulnbench itself).
func cmdDoc(blocks map[string]docs.Block, toFile bool) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		file := ""
		if toFile {
			if len(args) < 2 {
				ts.Fatalf("usage: docfile NAME [N|N-M ...] FILE")
			}
			file, args = args[len(args)-1], args[:len(args)-1]
		}
		if len(args) == 0 {
			ts.Fatalf("usage: doc NAME [N|N-M ...]")
		}
		b, ok := blocks[args[0]]
		if !ok {
			ts.Fatalf("no README or docs block is named %q (<!-- doc: %s -->)", args[0], args[0])
		}
		cmds := b.Commands()
		sel, err := selection(args[1:])
		if err != nil {
			ts.Fatalf("%v", err)
		}
		if len(sel) == 0 {
			for _, c := range cmds {
				sel = append(sel, c.N)
			}
		}
		var script strings.Builder
		script.WriteString("set -eo pipefail\n")
		for _, n := range sel {
			if n < 1 || n > len(cmds) {
				ts.Fatalf("doc %s has commands 1 to %d, not %d", args[0], len(cmds), n)
			}
			c := cmds[n-1]
			ts.Logf("doc %s:%d (%s %d): %s", b.File, c.Line, args[0], n, c.Text)
			if toFile && len(sel) == 1 && len(docs.Simple(c.Text)) == 1 && !strings.ContainsAny(c.Text, "|&;<>()") {
				script.WriteString("exec ")
			}
			script.WriteString(c.Text + "\n")
		}
		if toFile {
			ts.Check(os.WriteFile(ts.MkAbs(file), []byte(script.String()), 0o644))
			return
		}
		path := filepath.Join(ts.Getenv("WORK"), fmt.Sprintf(".doc-%s-%d.sh", args[0], time.Now().UnixNano()))
		ts.Check(os.WriteFile(path, []byte(script.String()), 0o644))
		err = ts.Exec("bash", path)
		if err != nil && !neg {
			ts.Fatalf("doc %s: %v", strings.Join(args, " "), err)
		}
		if err == nil && neg {
			ts.Fatalf("doc %s: unexpected success", strings.Join(args, " "))
		}
	}
}

// cmdCloneRepo is `clonerepo DIR`: the module's files (tracked and untracked, not ignored) copied
// into DIR as a new git repository of one commit, as a fresh clone has them.
func cmdCloneRepo(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: clonerepo DIR")
	}
	src := ts.Value(rootKey{}).(string)
	dst := ts.MkAbs(args[0])
	out, err := exec.Command("git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	ts.Check(err)
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fi, err := os.Lstat(filepath.Join(src, rel))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		ts.Check(err)
		ts.Check(os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755))
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(filepath.Join(src, rel))
			ts.Check(err)
			ts.Check(os.Symlink(target, filepath.Join(dst, rel)))
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, rel))
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(dst, rel), data, fi.Mode().Perm()))
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dst}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=journey", "GIT_AUTHOR_EMAIL=journey@example.com", "GIT_COMMITTER_NAME=journey", "GIT_COMMITTER_EMAIL=journey@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "a fresh clone")
}

// cmdFake is `fake PROVIDER batches N`: the journey's fake PROVIDER (openai, anthropic) has
// created N batches; `fake PROVIDER wait-batches N` waits up to a minute until it has; `fake
// PROVIDER requests`: it has been sent at least one request.
func cmdFake(ts *testscript.TestScript, neg bool, args []string) {
	f := ts.Value(fakesKey{}).(*fakes)
	if len(args) < 2 {
		ts.Fatalf("usage: fake openai|anthropic batches N | wait-batches N | requests")
	}
	srv := f.server(args[0])
	switch args[1] {
	case "requests":
		if got := srv.Requests(); (got > 0) == neg {
			ts.Fatalf("fake %s: %d requests", args[0], got)
		}
	case "batches", "wait-batches":
		var want int
		if len(args) != 3 {
			ts.Fatalf("usage: fake PROVIDER %s N", args[1])
		}
		if _, err := fmt.Sscan(args[2], &want); err != nil {
			ts.Fatalf("fake: %q is not a number", args[2])
		}
		deadline := time.Now().Add(time.Minute)
		for args[1] == "wait-batches" && srv.BatchesCreated() < want && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if got := srv.BatchesCreated(); (got == want) == neg {
			ts.Fatalf("fake %s: %d batches created, want %d", args[0], got, want)
		}
	default:
		ts.Fatalf("fake: unknown check %q", args[1])
	}
}
