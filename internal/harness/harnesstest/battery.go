package harnesstest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Options tune a battery run.
type Options struct {
	// Binary is vulnbench, built beside vulnbench-forward (Build).
	Binary string
	// Only keeps the units named (all when empty).
	Only []string
	// Disk and Memory are the sandbox's bounds (--sandbox-disk, --sandbox-mem): small, so that
	// the fills reach them fast on a shared machine.
	Disk, Memory string
	// MaxRSS bounds vulnbench's peak resident memory during the run.
	MaxRSS int64
}

func (o Options) withDefaults() Options {
	if o.Disk == "" {
		o.Disk = "256MiB"
	}
	if o.Memory == "" {
		o.Memory = "1GiB"
	}
	if o.MaxRSS == 0 {
		o.MaxRSS = 300 << 20
	}
	return o
}

const runID = "battery"

// Build builds vulnbench and vulnbench-forward (its sandboxes' helper) into dir with the given
// build tags, and returns vulnbench's path.
func Build(t testing.TB, dir string, tags ...string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"vulnbench", "vulnbench-forward"} {
		args := []string{"build", "-o", filepath.Join(dir, c)}
		if len(tags) > 0 {
			args = append(args, "-tags", strings.Join(tags, ","))
		}
		cmd := exec.Command("go", append(args, "./cmd/"+c)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", c, err, out)
		}
	}
	return filepath.Join(dir, "vulnbench")
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	for err == nil {
		if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", errors.New("harnesstest: no go.mod above the working directory")
		}
		dir = filepath.Dir(dir)
	}
	return "", err
}

// Battery runs the battery against row with its real CLI (skipped, naming the install, when it
// is missing) and fails t for every way out it finds.
func Battery(t *testing.T, row Row, opts Options) {
	for _, f := range Run(t, row, opts) {
		t.Error(f)
	}
}

// Run runs the battery against row and returns what it found: every way out, every unit that
// did not end as it must, everything left. A fault of the battery itself fails t.
func Run(t *testing.T, row Row, opts Options) []string {
	if why := row.installed(); why != "" {
		t.Skip(why)
	}
	opts = opts.withDefaults()
	w := newWorld(t)
	units := w.units(row)
	if len(opts.Only) > 0 {
		units = slices.DeleteFunc(units, func(u unit) bool { return !slices.Contains(opts.Only, u.id) })
	}
	w.writeSuite(t, units)
	probes := map[string]string{}
	for _, u := range units {
		probes[u.id] = u.probe
	}
	srv, err := Server(row.API, script(row, probes))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	args := []string{"run", "--suite", w.suite, "--subject", row.Subject, "--model", row.Model, "--base-url", srv.BaseURL(),
		"--db", w.db, "--repos", w.repos, "--snapshot-cache", w.snapshots, "--run-id", runID, "--timeout", "4m", "--concurrency", "3",
		"--sandbox-disk", opts.Disk, "--sandbox-mem", opts.Memory, "--max-retries", "0", "--call-timeout", "2m", "--no-score"}
	if row.Flags != nil {
		more, err := row.Flags(w.dir)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, more...)
	}
	f := &findings{}
	cmd := exec.Command(opts.Binary, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := w.watch(cmd.Process.Pid)
	err = cmd.Wait()
	hostDisk, peak := stop()
	t.Logf("vulnbench run: %v, peak RSS %d MiB, the run's host folders at most %d KiB\n%s", err, peak>>20, hostDisk>>10, tail(stderr.String(), 2000))
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
		t.Fatalf("vulnbench run: exit %d\n%s", code, stderr.String())
	}
	if peak > opts.MaxRSS {
		f.add("vulnbench's peak RSS was %d MiB, over %d MiB", peak>>20, opts.MaxRSS>>20)
	}
	if hostDisk > 64<<20 {
		f.add("the run's host folders grew to %d MiB: a sandbox wrote to the host's disk", hostDisk>>20)
	}
	w.checkVerdicts(t, f, units)
	w.checkModel(f, srv, units)
	w.checkStored(t, f, opts.Binary, units[0].id)
	w.checkNothingLeft(f)
	return f.list
}

// findings are what a battery run found wrong.
type findings struct{ list []string }

func (f *findings) add(format string, a ...any) { f.list = append(f.list, fmt.Sprintf(format, a...)) }

// checkVerdicts: each unit ended as it must, and no verdict or trace holds a forbidden string.
func (w *world) checkVerdicts(t *testing.T, f *findings, units []unit) {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, w.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := map[string]verdict.Verdict{}
	err = st.Verdicts(ctx, runID, func(v verdict.Verdict) error {
		got[v.CaseID] = v
		events, err := st.TraceEvents(ctx, runID, v.CaseID, v.Repeat, v.Attempt)
		if err != nil {
			return err
		}
		var trace strings.Builder
		for _, e := range events {
			trace.WriteString(e.Content + "\n" + e.Name + "\n")
		}
		w.forbid(f, "the trace of "+v.CaseID, trace.String())
		w.forbid(f, "the verdict of "+v.CaseID, v.Raw+"\n"+v.Reason+"\n"+v.Explanation)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		v, ok := got[u.id]
		switch {
		case !ok:
			f.add("%s: no verdict", u.id)
		case u.expect.status != "" && string(v.Status) != u.expect.status,
			u.expect.reason != "" && !strings.Contains(v.Reason, u.expect.reason),
			u.expect.reason != "" && v.Status == verdict.OK:
			f.add("%s: %s %q; want %s naming %q\nraw: %.1500s", u.id, v.Status, v.Reason, orAny(u.expect.status), u.expect.reason, v.Raw)
		default:
			t.Logf("%s: %s %.300s", u.id, v.Status, v.Reason)
		}
	}
}

func orAny(s string) string {
	if s == "" {
		return "failed or error"
	}
	return s
}

// checkModel: every probe that must show something did (its results reached the model), and
// nothing the model received holds a forbidden string.
func (w *world) checkModel(f *findings, srv *llmtest.Server, units []unit) {
	results := map[string]string{}
	for _, r := range srv.Log() {
		w.forbid(f, "a request to the model", string(r.Raw))
		m := caseRE.FindStringSubmatch(string(r.Raw))
		if m == nil {
			continue
		}
		for _, tr := range r.ToolResults() {
			results[m[1]] += tr.Content + "\n"
		}
	}
	for _, u := range units {
		for _, want := range u.expect.tool {
			if !strings.Contains(results[u.id], want) {
				f.add("%s: the tool results lack %q: the probe did not run as it must:\n%.4000s", u.id, want, results[u.id])
			}
		}
		for _, host := range u.expect.hidden {
			if strings.Contains(results[u.id], host) {
				f.add("%s: the tool results name the host path %s:\n%.4000s", u.id, host, results[u.id])
			}
		}
	}
}

// checkStored: the store's file and WAL, every export and every page of the viewer hold no
// forbidden string.
func (w *world) checkStored(t *testing.T, f *findings, bin, someCase string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if b, err := os.ReadFile(w.db + suffix); err == nil {
			// The store's own marker is in it, as the response cache's row it was put in.
			w.forbid(f, "the store's file vulnbench.db"+suffix, strings.ReplaceAll(string(b), w.forbidden[len(w.forbidden)-1], ""))
		}
	}
	help, _ := exec.Command(bin, "export", "--help").Output()
	formats := regexp.MustCompile(`--format string +output format: ([a-z, ]+)`).FindSubmatch(help)
	if formats == nil {
		t.Fatalf("vulnbench export --help names no format:\n%s", help)
	}
	for _, format := range strings.Split(string(formats[1]), ", ") {
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, "export", "--run", runID, "--db", w.db, "--format", format)
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		switch {
		case err != nil && strings.Contains(errb.String(), "has no vex cases"):
			continue // OpenVEX exports VEX-Bench runs only
		case err != nil:
			f.add("export --format %s: %v: %s", format, err, errb.String())
		}
		w.forbid(f, "the "+format+" export", out.String())
		if bytes.Contains(out.Bytes(), []byte(`\u0000\u0000`)) {
			f.add("the %s export holds NUL bytes (a read of /dev/zero?)", format)
		}
	}
	w.forbid(f, "the viewer", w.crawl(t, bin, someCase))
}

// crawl fetches the viewer's pages (vulnbench serve), following its links from the runs page
// (at most 200); the pages must show someCase.
func (w *world) crawl(t *testing.T, bin, someCase string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--db", w.db, "--addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("vulnbench serve said %q (%v)", line, err)
	}
	base := "http://" + m[1]
	href := regexp.MustCompile(`href="(/[^"#]*)"`)
	seen := map[string]bool{"/": true}
	queue := []string{"/", "/runs/" + runID}
	var all strings.Builder
	for len(queue) > 0 && len(seen) < 200 {
		p := strings.ReplaceAll(queue[0], "&amp;", "&")
		queue = queue[1:]
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		resp.Body.Close()
		all.Write(body)
		for _, m := range href.FindAllStringSubmatch(string(body), -1) {
			if !seen[m[1]] && !strings.HasSuffix(m[1], ".css") {
				seen[m[1]] = true
				queue = append(queue, m[1])
			}
		}
	}
	if !strings.Contains(all.String(), someCase) {
		t.Errorf("the viewer's pages show none of the run's cases (%d pages crawled)", len(seen))
	}
	return all.String()
}

// checkNothingLeft: no process a probe left, no unit folder, no cgroup of this process.
func (w *world) checkNothingLeft(f *findings) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, "cmdline")); err == nil && bytes.Contains(b, []byte(w.tag)) {
			f.add("a process the probe started is left: %s %q", filepath.Base(d), b)
		}
	}
	entries, _ := os.ReadDir(w.tmp)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "vulnbench-") || strings.HasPrefix(e.Name(), "vbgw-") {
			f.add("a unit's host folder is left: %s", filepath.Join(w.tmp, e.Name()))
		}
	}
	cgroups, _ := filepath.Glob("/sys/fs/cgroup/*/vulnbench-" + strconv.Itoa(os.Getpid()) + "-*")
	more, _ := filepath.Glob("/sys/fs/cgroup/*/*/*/vulnbench-" + strconv.Itoa(os.Getpid()) + "-*")
	if left := append(cgroups, more...); len(left) > 0 {
		f.add("cgroups left: %v", left)
	}
}

// forbid fails t when s holds something from outside the sandbox.
func (w *world) forbid(f *findings, where, s string) {
	for _, x := range w.forbidden {
		if strings.Contains(s, x) {
			f.add("%s holds %q, from outside the sandbox", where, x)
		}
	}
}

// watch samples, until stopped, the size of the run's host folders (its temporary folder: the
// sandbox's and the gateway's) and the peak resident size of vulnbench's process (VmHWM: its
// own, not its children's); the stop returns the largest of each seen.
func (w *world) watch(pid int) func() (disk, rss int64) {
	var mu sync.Mutex
	var disk, rss int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			n, r := duBytes(w.tmp), peakRSS(pid)
			mu.Lock()
			disk, rss = max(disk, n), max(rss, r)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() (int64, int64) {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return max(disk, duBytes(w.tmp)), rss
	}
}

// peakRSS is a process's peak resident size so far (0 once it is gone).
func peakRSS(pid int) int64 {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}

func duBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
