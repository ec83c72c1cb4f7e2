package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// TestReadBack: what a process leaves at the paths read back is read only when it is a regular
// file within its cap. A link (to a root-only file outside, to /proc/self/environ, to
// /dev/zero), a FIFO, a device node (on the host, where one can be made), a 1 GiB sparse file,
// a directory and a file past the cap are refused, each named, at once, with none of the
// targets' bytes and without reading them.
func TestReadBack(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeBwrap, sandbox.ModeNone} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, sandbox.Options{Mode: mode})
			secret := filepath.Join(t.TempDir(), "SECRET")
			tag := fmt.Sprintf("ROOT-ONLY-%d", time.Now().UnixNano())
			if err := os.WriteFile(secret, []byte(tag), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("VULNBENCH_READBACK_SECRET", tag)
			device := "mknod {out}/device c 1 5 2>/dev/null || echo mknod refused"
			script := strings.Join([]string{
				"cd {out}",
				"ln -s " + secret + " secret", "ln -s /proc/self/environ environ", "ln -s /dev/zero zero",
				"mkfifo fifo", device, "truncate -s 1G sparse", "mkdir dir", "echo answer > good",
				"head -c 2048 /dev/urandom > big", "mkdir -p {home}/.cfg && echo '{}' > {home}/.cfg/a.json && echo '[]' > {home}/.cfg/b.json",
				"ln -s ../../../.. {out}/up",
			}, "; ")
			collect := []string{"{out}/secret", "{out}/environ", "{out}/zero", "{out}/fifo", "{out}/sparse", "{out}/dir", "{out}/good",
				"{out}/big", "{out}/missing", "{home}/.cfg/*.json", "{out}/up/etc/passwd", "{out}/../../etc/passwd", "/etc/passwd"}
			if mode == sandbox.ModeNone && os.Geteuid() == 0 {
				collect = append(collect, "{out}/device")
			}
			start := time.Now()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := sb.Run(context.Background(), sandbox.Spec{Out: true, Args: sh(script), Collect: collect, CollectMax: 1024, Timeout: time.Minute})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, res.Stderr)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("Run took %s: something blocked", d)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("reading back allocated %d MiB", grew>>20)
			}
			got := map[string]string{}
			for _, f := range res.Files {
				switch {
				case f.Err == nil:
					got[f.Path] = "read: " + strings.TrimSpace(string(f.Data))
				case errors.Is(f.Err, fs.ErrNotExist):
					got[f.Path] = "missing"
				default:
					var re *sandbox.RefusedError
					if !errors.As(f.Err, &re) {
						t.Errorf("%s: %v, want a *RefusedError", f.Path, f.Err)
						continue
					}
					got[f.Path] = "refused: " + re.Why
				}
				if bytes.Contains(f.Data, []byte(tag)) || bytes.Contains(f.Data, []byte{0, 0, 0, 0}) {
					t.Errorf("%s: read a target's bytes", f.Path)
				}
			}
			want := map[string]string{
				"{out}/secret": "refused: a symbolic link", "{out}/environ": "refused: a symbolic link", "{out}/zero": "refused: a symbolic link",
				"{out}/fifo": "refused: a FIFO", "{out}/sparse": "refused: 1073741824 bytes, over the cap of 1024", "{out}/dir": "refused: a directory",
				"{out}/good": "read: answer", "{out}/big": "refused: 2048 bytes, over the cap of 1024", "{out}/missing": "missing",
				"{home}/.cfg/a.json": "read: {}", "{home}/.cfg/b.json": "read: []",
				"{out}/up/etc/passwd": "refused: a symbolic link", "{out}/../../etc/passwd": "refused: a path leaving its folder",
				"/etc/passwd": "refused: not under {out}, {home} or {tmp} of this process",
			}
			if mode == sandbox.ModeNone && os.Geteuid() == 0 {
				want["{out}/device"] = "refused: a device node"
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("read back (-want +got):\n%s\nstdout %s\nstderr %s", d, res.Stdout, res.Stderr)
			}
			if mode == sandbox.ModeBwrap && !strings.Contains(string(res.Stdout), "mknod refused") {
				t.Errorf("mknod worked in the sandbox: %s", res.Stdout)
			}
		})
	}
}

// TestReadBackAfterTimeout: a program killed at its timeout still has what it left read back
// (the helper holds the sandbox open), and what it left running is gone.
func TestReadBackAfterTimeout(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeBwrap, sandbox.ModeNone} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, sandbox.Options{Mode: mode})
			tag := fmt.Sprintf("vbleft%d", time.Now().UnixNano())
			res, err := sb.Run(context.Background(), sandbox.Spec{Out: true, Timeout: time.Second, Collect: []string{"{out}/progress"},
				Args: sh("echo so far > {out}/progress; (setsid exec -a " + tag + " sleep 600 &) ; echo printed; exec -a " + tag + " sleep 600")})
			if !errors.Is(err, sandbox.ErrTimeout) {
				t.Fatalf("Run: %v; want ErrTimeout", err)
			}
			b, ferr := res.File("{out}/progress")
			if string(b) != "so far\n" || ferr != nil || !strings.Contains(string(res.Stdout), "printed") {
				t.Errorf("after the timeout: progress %q (%v), stdout %q", b, ferr, res.Stdout)
			}
			if mode == sandbox.ModeNone && !sb.ProcCap() {
				return
			}
			if left := processesNamed(t, tag); len(left) > 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
}

// TestNothingLeft: after every ending (exit, timeout, output cap, a cancelled context) the
// process's host folders are gone, and the host's mount table never holds a read-only bind's
// overlay; a folder a dead vulnbench left is removed by the next New, and named.
func TestNothingLeft(t *testing.T) {
	scratch := t.TempDir()
	for _, mode := range []sandbox.Mode{sandbox.ModeBwrap, sandbox.ModeNone} {
		sb := newSandbox(t, sandbox.Options{Mode: mode, ScratchDir: scratch})
		project := t.TempDir()
		os.WriteFile(filepath.Join(project, "a.c"), []byte("int a;\n"), 0o644)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		for _, spec := range []sandbox.Spec{
			{Project: project, Writable: true, Out: true, Args: sh("echo x > a.c")},
			{Project: project, Writable: true, Out: true, Args: sh("sleep 60"), Timeout: 200 * time.Millisecond},
			{Project: project, Writable: true, Out: true, Args: []string{"yes"}, MaxOutput: 1 << 16},
			{Project: project, Out: true, Args: sh("sleep 60"), Timeout: 200 * time.Millisecond},
			{Project: project, Binds: []sandbox.Bind{{Src: project, Dst: "/opt/x"}}, Args: []string{"true"}},
		} {
			_, _ = sb.Run(context.Background(), spec)
		}
		_, _ = sb.Run(ctx, sandbox.Spec{Project: project, Writable: true, Out: true, Args: sh("sleep 60")})
		if left, _ := filepath.Glob(filepath.Join(scratch, "vulnbench-*")); len(left) > 0 {
			t.Errorf("%s: folders left: %v", mode, left)
		}
		if mounts, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(mounts), scratch) {
			t.Errorf("%s: mounts left:\n%s", mode, mounts)
		}
		// While it runs, the host's mount table holds none of its overlays either.
		p, err := sb.Start(context.Background(), sandbox.Spec{Project: project, Args: sh("cat a.c; sleep 60")}, sandbox.Stdio{})
		if err != nil {
			t.Fatal(err)
		}
		if mounts, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(mounts), scratch) {
			t.Errorf("%s: a running process's overlays are in the host's mount table:\n%s", mode, mounts)
		}
		p.Kill()
		_ = p.Wait()
	}
	// A live process's folder, and a dead vulnbench's: made by hand, unlocked.
	dir, release, err := newSandbox(t, sandbox.Options{Mode: sandbox.ModeNone, ScratchDir: scratch}).TempDir()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	dead := filepath.Join(scratch, "vulnbench-unit-1-dead")
	if err := os.MkdirAll(filepath.Join(dead, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t, sandbox.Options{Mode: sandbox.ModeNone, ScratchDir: scratch})
	if d := cmp.Diff([]string{dead}, sb.Swept()); d != "" {
		t.Errorf("Swept (-want +got):\n%s", d)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a live process's folder was swept: %v", err)
	}
}
