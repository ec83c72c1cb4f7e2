package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

func TestMain(m *testing.M) {
	// Sandboxes that reach a gateway run this test binary as their forwarder.
	if code, ok := sandbox.ForwardMain(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// newSandbox returns a bubblewrap sandbox, or skips the test saying what is missing.
func newSandbox(t *testing.T, opts sandbox.Options) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.New(context.Background(), opts)
	if errors.Is(err, sandbox.ErrUnavailable) && opts.Mode != sandbox.ModeNone {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

func run(t *testing.T, sb *sandbox.Sandbox, spec sandbox.Spec) sandbox.Result {
	t.Helper()
	res, err := sb.Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("Run %q: %v\nstdout: %s\nstderr: %s", spec.Args, err, res.Stdout, res.Stderr)
	}
	return res
}

func sh(script string) []string { return []string{"/bin/bash", "-c", script} }

// hostSecrets plants what no sandboxed process may see: a marker file outside the project, a
// store, the real key in this process's environment, a second loopback port. It returns the
// project directory (with symbolic links out), the things' paths and what no output may hold.
type hostSecrets struct {
	project, marker, store string
	port                   int
	forbidden              []string
}

func plant(t *testing.T) hostSecrets {
	t.Helper()
	var h hostSecrets
	tag := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	outside := t.TempDir()
	h.marker = filepath.Join(outside, "marker")
	h.store = filepath.Join(outside, "vulnbench.db")
	markerText, storeText, key, portText := "MARKER-"+tag, "STORE-"+tag, "sk-real-key-"+tag, "PORT-"+tag
	for p, body := range map[string]string{h.marker: markerText, h.store: storeText} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ANTHROPIC_API_KEY", key)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, portText) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	h.port = ln.Addr().(*net.TCPAddr).Port

	h.project = filepath.Join(t.TempDir(), "project")
	if err := os.Mkdir(h.project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.project, "main.c"), []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(h.project, h.marker)
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"abs": h.marker, "rel": rel, "store": h.store, "etc": "/etc", "up": "../../.."} {
		if err := os.Symlink(target, filepath.Join(h.project, name)); err != nil {
			t.Fatal(err)
		}
	}
	h.forbidden = []string{markerText, storeText, key, portText}
	return h
}

// TestBoundaries: a process that tries every way out sees none of the host's secrets.
func TestBoundaries(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
	h := plant(t)
	cwd, _ := os.Getwd()
	script := strings.Join([]string{
		"cat " + h.marker + " " + h.store,
		"cat abs rel store up" + h.marker + " up/" + strings.TrimPrefix(h.marker, "/"),
		"cat /proc/1/environ /proc/*/environ; env",
		"cat /proc/1/cmdline",
		"ls -la / /root /home " + cwd + " " + filepath.Dir(h.marker),
		"cat /etc/shadow /etc/npmrc /etc/gitconfig " + filepath.Join(cwd, "sandbox_test.go"),
		"curl -s -m 2 http://127.0.0.1:" + fmt.Sprint(h.port) + "/",
		"(exec 3<>/dev/tcp/127.0.0.1/" + fmt.Sprint(h.port) + " && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3)",
		"touch main.c new.c; echo written > /project/x",
		"id; hostname",
	}, "\n")
	res := run(t, sb, sandbox.Spec{Project: h.project, Args: sh(script), Env: []string{"DUMMY=1"}, Timeout: 30 * time.Second})
	out := string(res.Stdout) + string(res.Stderr)
	for _, f := range h.forbidden {
		if strings.Contains(out, f) {
			t.Errorf("the sandboxed process saw %q:\n%s", f, out)
		}
	}
	for _, want := range []string{
		"uid=1000(sandbox) gid=1000", // no root inside
		"Read-only file system",      // the project is read-only
		"DUMMY=1",                    // its environment is the spec's
		"/usr/bin/bwrap",             // /proc/1 is bubblewrap...
		"DUMMY=1\x00PATH=/usr/local/bin:/usr/bin:/bin", // ...started with the process's environment only
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "/root/") || strings.Contains(out, "GOPATH") {
		t.Errorf("the host's environment reached the sandbox:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(h.project, "new.c")); err == nil {
		t.Error("the sandboxed process wrote into the project")
	}
}

// TestWritableProject: a writable project is a scratch copy: the process writes there, and the
// host's tree is unchanged.
func TestWritableProject(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeBwrap, sandbox.ModeNone} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, sandbox.Options{Mode: mode})
			h := plant(t)
			res := run(t, sb, sandbox.Spec{Project: h.project, Writable: true,
				Args: sh("echo changed > main.c && echo new > new.c && cat main.c new.c && readlink abs && pwd")})
			if got, want := string(res.Stdout), "changed\nnew\n"+h.marker+"\n"; !strings.HasPrefix(got, want) {
				t.Errorf("stdout %q, want it to start with %q", got, want)
			}
			if b, _ := os.ReadFile(filepath.Join(h.project, "main.c")); !strings.HasPrefix(string(b), "int main") {
				t.Errorf("the host's main.c became %q", b)
			}
			if _, err := os.Stat(filepath.Join(h.project, "new.c")); err == nil {
				t.Error("new.c appeared in the host's project")
			}
		})
	}
}

// TestGateway: with a gateway, the process reaches it (and only it) at {gateway}; under
// ModeNone too, through an in-process forwarder.
func TestGateway(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeBwrap, sandbox.ModeNone} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, sandbox.Options{Mode: mode})
			h := plant(t)
			sock := filepath.Join(t.TempDir(), "gw.sock")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, "gateway saw %s %s", r.Method, r.URL.Path)
			})}
			go srv.Serve(ln)
			defer srv.Close()
			script := `curl -s -m 5 -X POST {gateway}/v1/messages; echo; echo "url=$GW"`
			if mode == sandbox.ModeBwrap {
				script += fmt.Sprintf("; curl -s -m 2 http://127.0.0.1:%d/ || echo no-second-port", h.port)
			}
			res := run(t, sb, sandbox.Spec{Gateway: sock, Args: sh(script), Env: []string{"GW={gateway}"}})
			out := string(res.Stdout)
			if !strings.Contains(out, "gateway saw POST /v1/messages") || !strings.Contains(out, "url=http://127.0.0.1:") {
				t.Errorf("the process did not reach the gateway:\n%s\n%s", out, res.Stderr)
			}
			if mode == sandbox.ModeBwrap && (!strings.Contains(out, "no-second-port") || strings.Contains(out, h.forbidden[3])) {
				t.Errorf("the process reached another host port:\n%s", out)
			}
		})
	}
}

// TestGatewayConnections: a program that opens a new connection for each of many calls (the
// helper hands each to the host and forgets its own descriptors) gets every answer, none
// dropped or left hanging.
func TestGatewayConnections(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
	sock := filepath.Join(t.TempDir(), "gw.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "call %d read %d", calls.Add(1), n)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	const n = 3000
	script := `import http.client, sys
port, n, body = int(sys.argv[1]), int(sys.argv[2]), b"x" * 65536
for i in range(n):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("POST", "/v1/messages", body=body)
    r = c.getresponse()
    got = r.read().decode()
    c.close()
    if r.status != 200 or not got.endswith("read 65536"):
        sys.exit("call %d: %d %s" % (i, r.status, got))
print("ok", n)
`
	res := run(t, sb, sandbox.Spec{Gateway: sock, Args: []string{"/usr/bin/python3", "-c", script, strconv.Itoa(sandbox.GatewayPort), strconv.Itoa(n)}})
	if got := strings.TrimSpace(string(res.Stdout)); got != fmt.Sprint("ok ", n) || res.ExitCode != 0 {
		t.Errorf("stdout %q exit %d, the gateway answered %d calls of %d\n%s", got, res.ExitCode, calls.Load(), n, res.Stderr)
	}
}

// TestFiles: spec files are written in the process's home before it starts, and bind names are
// placeholders.
func TestFiles(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeBwrap, sandbox.ModeNone} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, sandbox.Options{Mode: mode})
			tools := t.TempDir()
			if err := os.WriteFile(filepath.Join(tools, "tool.sh"), []byte("#!/bin/sh\necho tool ran\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			res := run(t, sb, sandbox.Spec{
				Binds: []sandbox.Bind{{Name: "tools", Src: tools, Dst: "/opt/tools"}},
				Files: []sandbox.File{{Dst: "{home}/.config/x/settings.json", Data: []byte(`{"a":1}`)}},
				Args:  sh(`cat "$HOME/.config/x/settings.json"; echo; echo more >> "$HOME/.config/x/settings.json" && echo appended; {tools}/tool.sh`),
			})
			if d := cmp.Diff("{\"a\":1}\nappended\ntool ran\n", string(res.Stdout)); d != "" {
				t.Errorf("stdout (-want +got):\n%s\nstderr: %s", d, res.Stderr)
			}
		})
	}
}

// TestQuotedData: data passed with Quote reaches the process as it is, placeholders and all,
// beside an argument whose placeholder is expanded.
func TestQuotedData(t *testing.T) {
	const data = "prompt: {project} {home} {{x}} {tools} {"
	for _, mode := range []sandbox.Mode{sandbox.ModeBwrap, sandbox.ModeNone} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, sandbox.Options{Mode: mode})
			tools := t.TempDir()
			res := run(t, sb, sandbox.Spec{
				Binds: []sandbox.Bind{{Name: "tools", Src: tools, Dst: "/opt/tools"}},
				Env:   []string{"DATA=" + sandbox.Quote(data)},
				Args:  []string{"/bin/bash", "-c", `printf '%s|%s|%s' "$1" "$2" "$DATA"`, "-", sandbox.Quote(data), "{tools}"},
			})
			at := "/opt/tools" // on the host (none), a bind is its source
			if mode == sandbox.ModeNone {
				at = tools
			}
			if d := cmp.Diff(data+"|"+at+"|"+data, string(res.Stdout)); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
		})
	}
}

// TestTimeout: at the timeout the process and what it started in the background are killed.
func TestTimeout(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeBwrap, sandbox.ModeNone} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, sandbox.Options{Mode: mode})
			tag := fmt.Sprintf("vbtimeout%d", time.Now().UnixNano())
			start := time.Now()
			res, err := sb.Run(context.Background(), sandbox.Spec{Args: sh("(exec -a " + tag + " sleep 600) & exec -a " + tag + " sleep 600"), Timeout: 300 * time.Millisecond})
			if !errors.Is(err, sandbox.ErrTimeout) || !res.TimedOut {
				t.Fatalf("Run: %v, timed out %v; want ErrTimeout", err, res.TimedOut)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Run took %s after a 300ms timeout", d)
			}
			if mode == sandbox.ModeNone && !sb.ProcCap() {
				return // a background process outside a cgroup survives a group kill it left
			}
			if left := processesNamed(t, tag); len(left) > 0 {
				t.Errorf("processes left after the timeout: %v", left)
			}
		})
	}
}

// TestRunawayOutput: output past the cap kills the process; what came before the cap is kept.
func TestRunawayOutput(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
	res, err := sb.Run(context.Background(), sandbox.Spec{Args: []string{"yes", "runaway"}, MaxOutput: 1 << 20, Timeout: time.Minute})
	if !errors.Is(err, sandbox.ErrOutputLimit) {
		t.Fatalf("Run: %v; want ErrOutputLimit", err)
	}
	if len(res.Stdout) != 1<<20 || !res.StdoutCut || res.TimedOut {
		t.Errorf("stdout %d bytes, cut %v, timed out %v; want 1 MiB, cut, killed before the timeout", len(res.Stdout), res.StdoutCut, res.TimedOut)
	}
	if !bytes.HasPrefix(res.Stdout, []byte("runaway\nrunaway\n")) {
		t.Errorf("stdout starts %q", res.Stdout[:min(len(res.Stdout), 32)])
	}
}

// TestForkBomb: a fork bomb hits the process cap and dies with everything it forked at the
// timeout.
func TestForkBomb(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
	if !sb.ProcCap() {
		t.Skip("no writable pids cgroup here: a fork bomb would not be capped, only killed at its timeout")
	}
	tag := fmt.Sprintf("vbbomb%d", time.Now().UnixNano())
	// Each process forks two more forever; the cap of 64 makes the forks fail.
	bomb := "b() { b | b & }; b; exec -a " + tag + " sleep 600"
	start := time.Now()
	res, err := sb.Run(context.Background(), sandbox.Spec{Args: []string{"/bin/bash", "-c", bomb, tag}, MaxProcs: 64, Timeout: 2 * time.Second})
	if !errors.Is(err, sandbox.ErrTimeout) {
		t.Fatalf("Run: %v (exit %d); want ErrTimeout\n%s", err, res.ExitCode, res.Stderr)
	}
	if !strings.Contains(string(res.Stderr), "fork: retry") && !strings.Contains(string(res.Stderr), "Resource temporarily unavailable") {
		t.Errorf("the bomb never hit the process cap: stderr %q", res.Stderr[:min(len(res.Stderr), 300)])
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run took %s after a 2s timeout", d)
	}
	if left := processesNamed(t, tag); len(left) > 0 {
		t.Errorf("%d processes left after the timeout", len(left))
	}
}

// processesNamed lists the host's processes whose command line holds tag.
func processesNamed(t *testing.T, tag string) []string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && bytes.Contains(b, []byte(tag)) {
			out = append(out, filepath.Base(d)+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// TestUnavailable: where bubblewrap cannot run, New says what is missing.
func TestUnavailable(t *testing.T) {
	failing := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'bubblewrap 0.8.0'; exit 0; fi\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"
	if err := os.WriteFile(failing, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bwrap string
		want  string
	}{
		{"/nonexistent/bwrap", "the bubblewrap program /nonexistent/bwrap is not installed (install the Debian package bubblewrap"},
		{failing, "bubblewrap cannot create its namespaces here: bwrap: No permissions to creating new namespace"},
	} {
		_, err := sandbox.New(context.Background(), sandbox.Options{Bwrap: tc.bwrap})
		var ue *sandbox.UnavailableError
		if !errors.Is(err, sandbox.ErrUnavailable) || !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New with bwrap %s: %v; want ErrUnavailable saying %q", tc.bwrap, err, tc.want)
		}
	}
	sb := newSandbox(t, sandbox.Options{Mode: sandbox.ModeNone, Bwrap: "/nonexistent/bwrap"})
	if !strings.HasPrefix(sb.Describe(), "none (no isolation") {
		t.Errorf("Describe() = %q", sb.Describe())
	}
}

// TestVulnbenchForwarder: the vulnbench binary and vulnbench-forward are the forwarders
// sandboxes use by default.
func TestVulnbenchForwarder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the vulnbench binary")
	}
	for _, pkg := range []string{"vulnbench", "vulnbench-forward"} {
		t.Run(pkg, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), pkg)
			if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/"+pkg).CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			sb := newSandbox(t, sandbox.Options{Forwarder: bin})
			sock := filepath.Join(t.TempDir(), "gw.sock")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "via "+pkg) })}
			go srv.Serve(ln)
			defer srv.Close()
			res := run(t, sb, sandbox.Spec{Gateway: sock, Args: sh("curl -s -m 5 {gateway}/; exit 7")})
			if string(res.Stdout) != "via "+pkg || res.ExitCode != 7 {
				t.Errorf("stdout %q exit %d; want the gateway's answer and the program's exit code\n%s", res.Stdout, res.ExitCode, res.Stderr)
			}
		})
	}
}
