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

// Process caps and memory limits come from cgroups: each capped process gets its own cgroup
// (in each hierarchy that holds a controller used: cgroup v1 has one per controller, v2 one for
// all), DIR/vulnbench-PID-N under this process's own cgroup, removed when it ends. What can be
// made here is found once (findCgroups): a v2 cgroup whose subtree_control delegates pids or
// memory, or a writable v1 hierarchy of pids or memory. On this project's machines (root in a
// microVM, no systemd, a hybrid hierarchy whose v2 part has no controllers) both are v1.

// cgroupRoot is where the cgroups of processes are made, per controller.
type cgroupRoot struct {
	pids, memory string // "": the controller is not available
	v2Memory     bool   // memory is a v2 hierarchy (memory.max; else v1's memory.limit_in_bytes)
	next         atomic.Int64
	why          []string // why a controller is missing, for Unbounded
}

// findCgroups finds where pids and memory cgroups can be made; nil when neither can.
func findCgroups() *cgroupRoot {
	r := &cgroupRoot{}
	own := ownCgroups()
	for _, c := range []struct {
		ctl  string
		dest *string
		file string
	}{{"pids", &r.pids, "pids.max"}, {"memory", &r.memory, ""}} {
		for _, cand := range candidates(c.ctl, own) {
			file := c.file
			if c.ctl == "memory" {
				file = "memory.limit_in_bytes"
				if cand.v2 {
					file = "memory.max"
				}
			}
			if usable(cand.dir, file) {
				*c.dest = cand.dir
				if c.ctl == "memory" {
					r.v2Memory = cand.v2
				}
				break
			}
		}
		if *c.dest == "" {
			r.why = append(r.why, c.ctl)
		}
	}
	if r.pids == "" && r.memory == "" {
		return nil
	}
	return r
}

type cgroupCandidate struct {
	dir string
	v2  bool
}

// ownCgroups reads /proc/self/cgroup: the path of this process's cgroup per v1 controller, and
// under "" its v2 cgroup.
func ownCgroups() map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			out[ctl] = parts[2]
		}
	}
	return out
}

// candidates are the directories where a cgroup of ctl could be made: this process's own v2
// cgroup when it delegates ctl, then its own v1 cgroup of ctl.
func candidates(ctl string, own map[string]string) []cgroupCandidate {
	var out []cgroupCandidate
	if rest, ok := own[""]; ok {
		for _, mount := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
			dir := filepath.Join(mount, rest)
			if b, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control")); err == nil && slicesContains(strings.Fields(string(b)), ctl) {
				out = append(out, cgroupCandidate{dir: dir, v2: true})
			}
		}
	}
	if rest, ok := own[ctl]; ok {
		out = append(out, cgroupCandidate{dir: filepath.Join("/sys/fs/cgroup", ctl, rest)})
	}
	return out
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// usable says whether a child cgroup made in dir takes a limit in file.
func usable(dir, file string) bool {
	probe := filepath.Join(dir, fmt.Sprintf("vulnbench-probe-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return false
	}
	defer os.Remove(probe)
	return os.WriteFile(filepath.Join(probe, file), []byte("max"), 0o644) == nil ||
		os.WriteFile(filepath.Join(probe, file), []byte("1073741824"), 0o644) == nil
}

// cgroup is one process's cgroups: one directory per hierarchy.
type cgroup struct {
	dirs     []string
	memory   string // the one holding the memory limit, "" without one
	v2Memory bool
}

// create makes the cgroups of a process capped at maxProcs processes (<= 0: uncapped) and
// maxMemory bytes (<= 0: unlimited).
func (r *cgroupRoot) create(maxProcs int, maxMemory int64) (*cgroup, error) {
	name := fmt.Sprintf("vulnbench-%d-%d", os.Getpid(), r.next.Add(1))
	g := &cgroup{v2Memory: r.v2Memory}
	fail := func(err error) (*cgroup, error) {
		g.remove()
		return nil, fmt.Errorf("sandbox: process limits: %w", err)
	}
	mk := func(root string) (string, error) {
		for _, d := range g.dirs {
			if filepath.Dir(d) == root {
				return d, nil // v2: one cgroup for both
			}
		}
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", err
		}
		g.dirs = append(g.dirs, dir)
		return dir, nil
	}
	if maxProcs > 0 && r.pids != "" {
		dir, err := mk(r.pids)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(maxProcs)), 0o644)
		}
		if err != nil {
			return fail(err)
		}
	}
	if maxMemory > 0 && r.memory != "" {
		dir, err := mk(r.memory)
		if err == nil {
			err = g.limitMemory(dir, maxMemory)
		}
		if err != nil {
			return fail(err)
		}
		g.memory = dir
	}
	return g, nil
}

// limitMemory sets the memory limit of dir, swap included (a tmpfs's pages count as the
// process's memory, and swapping them out would put them on disk).
func (g *cgroup) limitMemory(dir string, n int64) error {
	v := []byte(strconv.FormatInt(n, 10))
	if g.v2Memory {
		if err := os.WriteFile(filepath.Join(dir, "memory.max"), v, 0o644); err != nil {
			return err
		}
		_ = os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0o644)
		_ = os.WriteFile(filepath.Join(dir, "memory.oom.group"), []byte("1"), 0o644)
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), v, 0o644); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "memory.memsw.limit_in_bytes")); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), v, 0o644)
	}
	return nil
}

// oomKilled says whether the kernel killed a process of the cgroup at its memory limit.
func (g *cgroup) oomKilled() bool {
	if g == nil || g.memory == "" {
		return false
	}
	file := "memory.oom_control"
	if g.v2Memory {
		file = "memory.events"
	}
	b, err := os.ReadFile(filepath.Join(g.memory, file))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "oom_kill" && f[1] != "0" {
			return true
		}
	}
	return false
}

func (g *cgroup) add(pid int) error {
	for _, dir := range g.dirs {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			return fmt.Errorf("sandbox: process limits: put process %d in %s: %w", pid, dir, err)
		}
	}
	return nil
}

func (g *cgroup) pids() []int {
	var out []int
	for _, dir := range g.dirs {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
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

// remove kills what is left and removes the cgroups once the kernel has let their processes go
// (they leave when reaped, which can take a moment after the kill).
func (g *cgroup) remove() {
	deadline := time.Now().Add(5 * time.Second)
	for _, dir := range g.dirs {
		for {
			g.killAll()
			err := os.Remove(dir)
			if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// sweepCgroups removes the cgroups a vulnbench that died left (vulnbench-PID-N whose PID is not
// alive), killing what they still hold, and returns them.
func (r *cgroupRoot) sweep() []string {
	var out []string
	for _, root := range []string{r.pids, r.memory} {
		if root == "" {
			continue
		}
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Name(), "vulnbench-")
			pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
			if !ok || !e.IsDir() || err != nil || pid == os.Getpid() || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
				continue
			}
			g := &cgroup{dirs: []string{filepath.Join(root, e.Name())}}
			g.remove()
			if _, err := os.Stat(g.dirs[0]); errors.Is(err, os.ErrNotExist) {
				out = append(out, g.dirs[0])
			}
		}
	}
	return out
}
