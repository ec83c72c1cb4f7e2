package sandbox_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// TestLessToSee: inside, /proc/1/cmdline, /proc/1/environ and the helper's command line show no
// host path and no prompt (it comes on standard input), /proc/self/mountinfo none of the host
// paths of the helper, the gateway's socket, the writable space, the project, the advisories, a
// CLI's npm prefix or a program bound alone (read-only binds are overlays: see overlay.go), and
// the program holds no capability, in any set.
func TestLessToSee(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
	h := plant(t)
	const prompt = "PROMPT-TEXT-do-not-show"
	gwDir := t.TempDir()
	sock := filepath.Join(gwDir, "gw.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	exe, _ := os.Executable()
	cwd, _ := os.Getwd()
	// A CLI's npm prefix (a directory bind), a program bound alone (a file bind), advisories.
	prefix := filepath.Join(t.TempDir(), "npm-prefix", "node_modules")
	advisories := filepath.Join(t.TempDir(), "advisory-db")
	toolDir := filepath.Join(t.TempDir(), "go-bin")
	for path, body := range map[string]string{filepath.Join(prefix, "cli", "index.js"): "PREFIX-FILE", filepath.Join(advisories, "GHSA-x.json"): "{}",
		filepath.Join(toolDir, "tool"): "#!/bin/sh\necho TOOL-RAN\n"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The advisories are named through a link: bubblewrap binds its target.
	linked := filepath.Join(t.TempDir(), "linked-advisories")
	if err := os.Symlink(advisories, linked); err != nil {
		t.Fatal(err)
	}
	// The markers are printed in two pieces: the script itself is in bash's command line.
	script := `read -r line; echo "got:$line"; cat {cli}/cli/index.js; echo; {tool}; cat {advisories}/GHSA-x.json; echo; ` +
		`grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status; echo CMD""LINE; tr '\0' ' ' < /proc/1/cmdline; echo; for p in /proc/[0-9]*; do tr '\0' ' ' < $p/cmdline; echo; done; ` +
		`echo ENV""IRON; tr '\0' '\n' < /proc/1/environ; echo MOUNT""INFO; cat /proc/self/mountinfo`
	res := run(t, sb, sandbox.Spec{Project: h.project, Gateway: sock, Out: true, Input: prompt, Env: []string{"KEY=value"},
		Advisories: linked, Binds: []sandbox.Bind{{Name: "cli", Src: prefix, Dst: "/opt/vulnbench/node_modules"},
			{Name: "tool", Src: filepath.Join(toolDir, "tool"), Dst: "/opt/vulnbench/bin/tool"}},
		Files: []sandbox.File{{Dst: "{home}/.config/cli.json", Data: []byte("{}")}}, Args: sh(script)})
	out := string(res.Stdout)
	for _, want := range []string{"got:" + prompt, "PREFIX-FILE", "TOOL-RAN", "{}"} {
		if !strings.Contains(out, want) {
			t.Fatalf("%q is missing: the prompt did not arrive on standard input or a bind is not shown:\n%s\n%s", want, out, res.Stderr)
		}
	}
	caps, rest, _ := strings.Cut(out, "CMDLINE")
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if !strings.Contains(caps, set+":\t0000000000000000") {
			t.Errorf("the program holds capabilities (%s):\n%s", set, caps)
		}
	}
	procs, mounts, _ := strings.Cut(rest, "MOUNTINFO")
	for _, p := range []string{prompt, exe, gwDir, cwd, os.TempDir() + "/", h.project} {
		if strings.Contains(procs, p) {
			t.Errorf("a command line or /proc/1/environ shows %q:\n%s", p, procs)
		}
	}
	for _, p := range []string{prompt, exe, gwDir, cwd, filepath.Dir(exe), h.project, prefix, advisories, linked, toolDir} {
		if strings.Contains(mounts, p) {
			t.Errorf("/proc/self/mountinfo shows %q:\n%s", p, mounts)
		}
	}
	if _, env, _ := strings.Cut(procs, "ENVIRON"); strings.TrimSpace(env) != "" {
		t.Errorf("/proc/1/environ is not empty: %q", env)
	}
}

// TestSeccomp: ptrace, mount, umount2, unshare of a user namespace (and unshare -U), keyctl,
// bpf and perf_event_open fail with EPERM inside; the process still runs.
func TestSeccomp(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
	if strings.Contains(strings.Join(sb.Unbounded(), " "), "seccomp") {
		t.Skip("no filter for this architecture")
	}
	py := fmt.Sprintf(`import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
def call(name, nr, *args):
    r = l.syscall(nr, *args)
    print(name, r, os.strerror(ctypes.get_errno()) if r < 0 else "ok")
call("ptrace", %d, 16, 1, 0, 0)
call("mount", %d, b"none", b"/tmp", b"tmpfs", 0, None)
call("umount2", %d, b"/tmp", 0)
call("unshare", %d, 0x10000000)
call("keyctl", %d, 0, 0, 0, 0)
call("bpf", %d, 0, 0, 0)
call("perf_event_open", %d, 0, 0, -1, -1, 0)
call("getpid", %d)
`, unix.SYS_PTRACE, unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_UNSHARE, unix.SYS_KEYCTL, unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_GETPID)
	res := run(t, sb, sandbox.Spec{Args: []string{"/usr/bin/python3", "-c", py}, Timeout: 30 * time.Second})
	out := string(res.Stdout)
	for _, name := range []string{"ptrace", "mount", "umount2", "unshare", "keyctl", "bpf", "perf_event_open"} {
		if !strings.Contains(out, name+" -1 Operation not permitted") {
			t.Errorf("%s was not refused with EPERM:\n%s\n%s", name, out, res.Stderr)
		}
	}
	if !strings.Contains(out, "getpid 2 ok") && !strings.Contains(out, "getpid") {
		t.Errorf("the process did not run:\n%s", out)
	}
	res = run(t, sb, sandbox.Spec{Args: sh("unshare -U true; echo status=$?")})
	if !strings.Contains(string(res.Stdout)+string(res.Stderr), "Operation not permitted") || !strings.Contains(string(res.Stdout), "status=1") {
		t.Errorf("unshare -U: %s %s", res.Stdout, res.Stderr)
	}
}
