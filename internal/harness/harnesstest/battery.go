package harnesstest

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/cli"
	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/output/formats"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
	"github.com/vulnbench/vulnbench/internal/web"
)

// Options tune a battery run.
type Options struct {
	// Only keeps the units named (all when empty).
	Only []string
	// Disk and Memory are the sandbox's bounds (--sandbox-disk, --sandbox-mem): small, so that
	// the fills reach them fast on a shared machine.
	Disk, Memory string
	// MaxRSS bounds vulnbench's peak resident memory during the run (the test process's).
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

// Battery runs the battery against row with its real CLI (skipped, naming the install, when it
// is missing) and fails t for every way out it finds. The test binary must call
// sandbox.ForwardMain first in its TestMain (it is the sandbox's helper).
func Battery(t *testing.T, row Row, opts Options) {
	if why := row.installed(); why != "" {
		t.Skip(why)
	}
	opts = opts.withDefaults()
	// The run's preflight looks for the CLI's program on PATH.
	t.Setenv("PATH", filepath.Join(harness.NodePrefix(), "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	w := newWorld(t)
	units := w.units(row)
	if len(opts.Only) > 0 {
		var kept []unit
		for _, u := range units {
			for _, id := range opts.Only {
				if u.id == id {
					kept = append(kept, u)
				}
			}
		}
		units = kept
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
	resetPeakRSS()
	stopDisk := w.watchDisk()
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	hostDisk := stopDisk()
	peak := peakRSS()
	t.Logf("vulnbench run: exit %d, peak RSS %d MiB, the run's host folders at most %d KiB\n%s", code, peak>>20, hostDisk>>10, tail(stderr.String(), 2000))
	if code != 0 && code != 1 {
		t.Fatalf("vulnbench run: exit %d\n%s", code, stderr.String())
	}
	if peak > opts.MaxRSS {
		t.Errorf("vulnbench's peak RSS was %d MiB, over %d MiB", peak>>20, opts.MaxRSS>>20)
	}
	if hostDisk > 64<<20 {
		t.Errorf("the run's host folders grew to %d MiB: a sandbox wrote to the host's disk", hostDisk>>20)
	}
	w.checkVerdicts(t, units)
	w.checkModel(t, srv, units)
	w.checkStored(t)
	w.checkNothingLeft(t)
}

// checkVerdicts: each unit ended as it must, and no verdict or trace holds a forbidden string.
func (w *world) checkVerdicts(t *testing.T, units []unit) {
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
		w.forbid(t, "the trace of "+v.CaseID, trace.String())
		w.forbid(t, "the verdict of "+v.CaseID, v.Raw+"\n"+v.Reason+"\n"+v.Explanation)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		v, ok := got[u.id]
		switch {
		case !ok:
			t.Errorf("%s: no verdict", u.id)
		case u.expect.status != "" && string(v.Status) != u.expect.status,
			u.expect.reason != "" && !strings.Contains(v.Reason, u.expect.reason),
			u.expect.reason != "" && v.Status == verdict.OK:
			t.Errorf("%s: %s %q; want %s naming %q\nraw: %.1500s", u.id, v.Status, v.Reason, orAny(u.expect.status), u.expect.reason, v.Raw)
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
func (w *world) checkModel(t *testing.T, srv *llmtest.Server, units []unit) {
	t.Helper()
	results := map[string]string{}
	for _, r := range srv.Log() {
		w.forbid(t, "a request to the model", string(r.Raw))
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
				t.Errorf("%s: the tool results lack %q: the probe did not run as it must:\n%.4000s", u.id, want, results[u.id])
			}
		}
	}
}

// checkStored: the store's file and WAL, every export and every page of the viewer hold no
// forbidden string.
func (w *world) checkStored(t *testing.T) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if b, err := os.ReadFile(w.db + suffix); err == nil {
			// The store's own marker is in it, as the response cache's row it was put in.
			w.forbid(t, "the store's file vulnbench.db"+suffix, strings.ReplaceAll(string(b), w.forbidden[len(w.forbidden)-1], ""))
		}
	}
	for _, f := range formats.Exports().Names() {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"export", "--run", runID, "--db", w.db, "--format", f}, strings.NewReader(""), &out, &errb)
		switch {
		case code != 0 && strings.Contains(errb.String(), "has no vex cases"):
			continue // OpenVEX exports VEX-Bench runs only
		case code != 0:
			t.Errorf("export --format %s: exit %d: %s", f, code, errb.String())
		}
		w.forbid(t, "the "+f+" export", out.String())
		if bytes.Contains(out.Bytes(), []byte(`\u0000\u0000`)) {
			t.Errorf("the %s export holds NUL bytes (a read of /dev/zero?)", f)
		}
	}
	w.forbid(t, "the viewer", w.crawl(t))
}

// crawl fetches the viewer's pages, following its links from the runs page (at most 200).
func (w *world) crawl(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, w.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := httptest.NewServer(web.New(st, web.Options{Resamples: 50}))
	defer srv.Close()
	href := regexp.MustCompile(`href="(/[^"#]*)"`)
	seen := map[string]bool{"/": true}
	queue := []string{"/", "/runs/" + runID}
	var all strings.Builder
	for len(queue) > 0 && len(seen) < 200 {
		p := strings.ReplaceAll(queue[0], "&amp;", "&")
		queue = queue[1:]
		resp, err := http.Get(srv.URL + p)
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
	if !strings.Contains(all.String(), "battery-case:") && !strings.Contains(all.String(), "look") {
		t.Errorf("the viewer's pages show none of the run's cases: the crawl saw nothing (%d pages)", len(seen))
	}
	return all.String()
}

// checkNothingLeft: no process a probe left, no unit folder, no cgroup of this process.
func (w *world) checkNothingLeft(t *testing.T) {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, "cmdline")); err == nil && bytes.Contains(b, []byte(w.tag)) {
			t.Errorf("a process the probe started is left: %s %q", filepath.Base(d), b)
		}
	}
	entries, _ := os.ReadDir(w.tmp)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "vulnbench-") || strings.HasPrefix(e.Name(), "vbgw-") {
			t.Errorf("a unit's host folder is left: %s", filepath.Join(w.tmp, e.Name()))
		}
	}
	cgroups, _ := filepath.Glob("/sys/fs/cgroup/*/vulnbench-" + strconv.Itoa(os.Getpid()) + "-*")
	more, _ := filepath.Glob("/sys/fs/cgroup/*/*/*/vulnbench-" + strconv.Itoa(os.Getpid()) + "-*")
	if left := append(cgroups, more...); len(left) > 0 {
		t.Errorf("cgroups left: %v", left)
	}
}

// forbid fails t when s holds something from outside the sandbox.
func (w *world) forbid(t *testing.T, where, s string) {
	t.Helper()
	for _, f := range w.forbidden {
		if strings.Contains(s, f) {
			t.Errorf("%s holds %q, from outside the sandbox", where, f)
		}
	}
}

// watchDisk samples the size of the run's host folders (its temporary folder: the sandbox's
// and the gateway's) until stopped; the stop returns the largest seen.
func (w *world) watchDisk() func() int64 {
	var mu sync.Mutex
	var most int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			n := duBytes(w.tmp)
			mu.Lock()
			most = max(most, n)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return max(most, duBytes(w.tmp))
	}
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

// resetPeakRSS resets this process's peak resident size (VmHWM).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0o200) }

// peakRSS is this process's peak resident size since the last reset.
func peakRSS() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
