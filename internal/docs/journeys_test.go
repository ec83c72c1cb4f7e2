package docs_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vulnbench/vulnbench/internal/docs"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/progs"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// fakes are a journey's model providers: internal/llmtest's servers answering with
// llmtest.Answers, batch APIs on.
type fakes struct {
	openai, anthropic         *llmtest.Server
	net                       *internet
	openaiGate, anthropicGate gate
}

func (f *fakes) gate(provider string) *gate {
	if provider == "anthropic" {
		return &f.anthropicGate
	}
	return &f.openaiGate
}

func (f *fakes) server(name string) *llmtest.Server {
	if name == "anthropic" {
		return f.anthropic
	}
	return f.openai
}

// TestJourneys runs each journey of testdata/docs: documented blocks (`doc NAME`) typed as a
// new user would, in a clean HOME, a minimal PATH, no git configuration but the journey's own,
// on a network of the journey's own (internet: the fake model providers at api.openai.com and
// api.anthropic.com, keys in the environment as a user's shell has them; git repositories and
// files the journey puts under $WORK/internet/HOST), and the tests' Postgres (VULNBENCH_DB).
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
	// The real binaries, as make build makes them, first on the journeys' PATH.
	bindir := t.TempDir()
	for _, c := range []string{"vulnbench", "vulnbench-forward"} {
		if out, err := exec.Command(gobin, "build", "-o", filepath.Join(bindir, c), "../../cmd/"+c).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", c, err, out)
		}
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
			home := filepath.Join(env.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			// Batches end at their first retrieval: a run polls at once after its submission, and
			// then every 30 s (--batch-poll), which a journey should not wait for.
			f := &fakes{}
			f.openai = llmtest.NewOpenAI(llmtest.Answers(), llmtest.WithBatches(llmtest.BatchOptions{Created: f.openaiGate.wait}), llmtest.WithoutLog())
			f.anthropic = llmtest.NewAnthropic(llmtest.Answers(), llmtest.WithBatches(llmtest.BatchOptions{Created: f.anthropicGate.wait}), llmtest.WithoutLog())
			env.Defer(f.openai.Close)
			env.Defer(f.anthropic.Close)
			env.Defer(func() { f.openaiGate.release(); f.anthropicGate.release() }) // first: a held create would block Close
			net, err := newInternet(filepath.Join(env.WorkDir, "internet"), map[string]string{
				"api.openai.com": f.openai.URL, "api.anthropic.com": f.anthropic.URL})
			if err != nil {
				return err
			}
			env.Defer(net.Close)
			f.net = net
			ca := filepath.Join(env.WorkDir, ".internet-ca.pem")
			if err := os.WriteFile(ca, net.caPEM, 0o644); err != nil {
				return err
			}
			env.Values[fakesKey{}] = f
			env.Values[rootKey{}] = rootAbs
			// A new user's machine: nothing of the test process's environment but the machine's Go
			// installation and caches and where make deps installed vulnbench's npm programs; a
			// network (internet) whose certificate authority the machine trusts; model keys in the
			// environment, as a user's shell has them.
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
				"VULNBENCH_NODE=" + progs.NodePrefix(),
				"HTTPS_PROXY=" + net.ProxyURL(), "https_proxy=" + net.ProxyURL(),
				"SSL_CERT_FILE=" + ca, "GIT_SSL_CAINFO=" + ca,
				"OPENAI_API_KEY=sk-journey-openai", "ANTHROPIC_API_KEY=sk-ant-journey",
				":=" + string(os.PathListSeparator),
				"/=" + string(os.PathSeparator),
			}
			var keys []string
			defer func() {
				for _, kv := range env.Vars {
					k, _, _ := strings.Cut(kv, "=")
					keys = append(keys, k)
				}
				env.Values[envKey{}] = keys
			}()
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
			"shared":    cmdShared,
			"count":     cmdCount,
			"waitfor":   cmdWaitFor,
			"hold":      cmdHold,
			"release":   cmdRelease,
		},
	})
}

type (
	fakesKey struct{}
	rootKey  struct{}
	envKey   struct{} // the names of the script's environment variables
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

// cmdShared is `shared FILE DEST`: copies ../shared/FILE (real data nobody here wrote, next to
// the module) to DEST, making its directories.
func cmdShared(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: shared FILE DEST")
	}
	src := filepath.Join(ts.Value(rootKey{}).(string), "..", "shared", filepath.FromSlash(args[0]))
	data, err := os.ReadFile(src)
	ts.Check(err)
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, data, 0o644))
}

// cmdCount is `count requests HOST`: how many requests the journey's internet answered for
// HOST; `count batches openai|anthropic`: how many batches the fake provider created. The number
// is written to stdout, for `stdout '^N$'`.
func cmdCount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: count requests HOST | count batches openai|anthropic")
	}
	fmt.Fprintln(ts.Stdout(), counter(ts, args[0], args[1])())
}

// cmdWaitFor is `waitfor batches|requests WHAT N`: waits up to a minute until the count reaches
// N; `waitfor output REGEXP PROGRAM ARGS...`: runs the program (in the script's directory and
// environment) every 200 ms, up to a minute, until its standard output matches.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) >= 3 && args[0] == "output" && !neg {
		waitForOutput(ts, args[1], args[2:])
		return
	}
	if len(args) != 3 || neg {
		ts.Fatalf("usage: waitfor batches openai|anthropic N | waitfor requests HOST N | waitfor output REGEXP PROGRAM ARGS...")
	}
	var want int64
	if _, err := fmt.Sscan(args[2], &want); err != nil {
		ts.Fatalf("waitfor: %q is not a number", args[2])
	}
	c := counter(ts, args[0], args[1])
	for deadline := time.Now().Add(time.Minute); c() < want; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor %s %s: %d after a minute, want %d", args[0], args[1], c(), want)
		}
	}
}

func waitForOutput(ts *testscript.TestScript, pattern string, argv []string) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		ts.Fatalf("waitfor output: %v", err)
	}
	var env []string
	for _, k := range ts.Value(envKey{}).([]string) {
		env = append(env, k+"="+ts.Getenv(k))
	}
	var out []byte
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		prog, err := lookPath(ts, argv[0])
		if err != nil {
			ts.Fatalf("waitfor output: %v", err)
		}
		cmd := exec.Command(prog, argv[1:]...)
		cmd.Dir, cmd.Env = ts.MkAbs("."), env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err = cmd.Output()
		if re.Match(out) {
			return
		}
		if err != nil {
			out = fmt.Appendf(out, "%s(%v)", stderr.String(), err)
		}
	}
	ts.Fatalf("waitfor output %q: %s gave, after a minute:\n%s", pattern, strings.Join(argv, " "), out)
}

// lookPath finds a program on the script's PATH.
func lookPath(ts *testscript.TestScript, name string) (string, error) {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on the script's PATH", name)
}

// cmdHold is `hold batches openai|anthropic`: the fake provider's next batch creates wait, the
// batch made but its create not answered, until `release batches PROVIDER` (a client killed in
// that window must find the batch on its resume).
func cmdHold(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || args[0] != "batches" || neg {
		ts.Fatalf("usage: hold|release batches openai|anthropic")
	}
	ts.Value(fakesKey{}).(*fakes).gate(args[1]).hold()
}

func cmdRelease(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || args[0] != "batches" || neg {
		ts.Fatalf("usage: hold|release batches openai|anthropic")
	}
	ts.Value(fakesKey{}).(*fakes).gate(args[1]).release()
}

// gate holds batch creates while closed.
type gate struct {
	mu   sync.Mutex
	open chan struct{} // nil: open
}

func (g *gate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open == nil {
		g.open = make(chan struct{})
	}
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open != nil {
		close(g.open)
		g.open = nil
	}
}

func (g *gate) wait(string) {
	g.mu.Lock()
	ch := g.open
	g.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func counter(ts *testscript.TestScript, what, of string) func() int64 {
	f := ts.Value(fakesKey{}).(*fakes)
	switch what {
	case "requests":
		return func() int64 { return f.net.Requests(of) }
	case "batches":
		srv := f.server(of)
		return func() int64 { return int64(srv.BatchesCreated()) }
	}
	ts.Fatalf("count: %q is not requests or batches", what)
	return nil
}
