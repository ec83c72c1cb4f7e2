package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroupRoot is a writable pids cgroup directory under which each process gets its own
// cgroup: cgroup v1's pids hierarchy, or a cgroup v2 directory with the pids controller.
type cgroupRoot struct {
	dir  string
	next atomic.Int64
}

// findCgroupRoot returns where process caps can be made, or nil: the pids hierarchy (v1), or
// this process's own cgroup when it delegates the pids controller (v2), if a child cgroup made
// there takes a pids.max. Each capped process gets DIR/vulnbench-PID-N, removed when it ends.
func findCgroupRoot() *cgroupRoot {
	type candidate struct {
		dir string
		v2  bool
	}
	var candidates []candidate
	if fi, err := os.Stat("/sys/fs/cgroup/pids"); err == nil && fi.IsDir() {
		candidates = append(candidates, candidate{dir: "/sys/fs/cgroup/pids"})
	}
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "0::"); ok {
				for _, mount := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
					candidates = append(candidates, candidate{dir: filepath.Join(mount, rest), v2: true})
				}
			}
		}
	}
	for _, c := range candidates {
		if c.v2 {
			if b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.subtree_control")); err != nil || !strings.Contains(string(b), "pids") {
				continue
			}
		}
		root := &cgroupRoot{dir: c.dir}
		g, err := root.create(1)
		if err != nil {
			continue
		}
		g.remove()
		return root
	}
	return nil
}

// cgroup is one process's pids cgroup.
type cgroup struct{ dir string }

func (r *cgroupRoot) create(maxProcs int) (*cgroup, error) {
	dir := filepath.Join(r.dir, fmt.Sprintf("vulnbench-%d-%d", os.Getpid(), r.next.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: process cap: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(maxProcs)), 0o644); err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("sandbox: process cap: %w", err)
	}
	return &cgroup{dir: dir}, nil
}

func (g *cgroup) add(pid int) error {
	if err := os.WriteFile(filepath.Join(g.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return fmt.Errorf("sandbox: process cap: put process %d in %s: %w", pid, g.dir, err)
	}
	return nil
}

func (g *cgroup) pids() []int {
	b, err := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// killAll kills every process in the cgroup, repeatedly while new ones appear (a fork bomb
// forks between the listing and the kill).
func (g *cgroup) killAll() {
	for range 100 {
		pids := g.pids()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// remove kills what is left and removes the cgroup once the kernel has let its processes go
// (they leave it when reaped, which can take a moment after the kill).
func (g *cgroup) remove() {
	deadline := time.Now().Add(5 * time.Second)
	for {
		g.killAll()
		err := os.Remove(g.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
