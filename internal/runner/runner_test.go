package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// reader answers vul when the case's snapshot has main.c containing "strcpy", and counts the
// functions its code graph found.
type reader struct{}

func (reader) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	s, err := env.Snapshot(ctx)
	if err != nil {
		return verdict.Verdict{}, err
	}
	b, err := s.ReadFile("main.c")
	if err != nil {
		return verdict.Verdict{}, err
	}
	if _, err := s.ReadFile("../../etc/passwd"); err == nil {
		return verdict.Verdict{}, fmt.Errorf("read outside the snapshot")
	}
	g, err := env.Graph(ctx)
	if err != nil {
		return verdict.Verdict{}, err
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Explanation: fmt.Sprintf("%d definitions of f", len(g.Definitions("f", codegraph.Near{})))}
	if strings.Contains(string(b), "strcpy") {
		v.Label = suite.Vul
	}
	return v, nil
}

type noConfig struct{}

func (noConfig) Validate() error { return nil }

// kind is a subject kind named name that always builds subj, declaring what subj does (a model
// when it has one) and every case's repository.
func kind(name string, subj subject.Subject) subject.Factory {
	f := subject.Factory{Name: name, Kinds: suite.Kinds, Version: "1",
		Configure:  func(string, subject.Values) (subject.Config, error) { return noConfig{}, nil },
		New:        func(subject.Config, subject.Deps) (subject.Subject, error) { return subj, nil },
		Repository: func(_ subject.Config, c *suite.Case) bool { return subject.CaseRepo(c) }}
	var model bool
	if f.Can, model = subject.CanOf(subj); model {
		f.Model = func(subject.Config) subject.ModelNeed { return subject.ModelNeed{} }
	}
	return f
}

// spec is a new run "r" of fac on the suite at path, one repeat, concurrency n.
func spec(fac subject.Factory, path string, n int) Spec {
	return Spec{Version: "test", RunID: "r", Suite: path, Subject: Subject{Factory: fac, Spec: fac.Name, Config: noConfig{}},
		Repeats: 1, Host: Host{Concurrency: n}}
}

// oneCase writes a suite of one benign function case and opens a store beside it.
func oneCase(t *testing.T) (string, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(suitePath, []byte(`{"id":"a","kind":"function","label":"ben","code":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return suitePath, st
}

// execute creates the run s and does its units on the local pool.
func execute(st Store, s Spec, l Local) (*Outcome, error) {
	r, err := Create(context.Background(), st, s)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Execute(context.Background(), l)
}

func TestUnitsReadTheirSnapshot(t *testing.T) {
	dir := t.TempDir()
	repos := filepath.Join(dir, "repos")
	vul := gittest.Repo(t, filepath.Join(repos, "github.com", "acme", "lib"), map[string]string{"main.c": "void f(char *s){char b[4];strcpy(b,s);}\n"})
	ben := gittest.Repo(t, filepath.Join(repos, "acme+app"), map[string]string{"main.c": "int f(int x){return x+1;}\n"})
	lines := []string{
		fmt.Sprintf(`{"id":"v","kind":"jit","label":"vul","repo":{"url":"https://github.com/acme/lib","commit":%q},"target":{"file":"main.c","function":"f"}}`, vul),
		fmt.Sprintf(`{"id":"b","kind":"jit","label":"ben","repo":{"url":"https://github.com/acme/app","commit":%q},"target":{"file":"main.c","function":"f"}}`, ben),
		fmt.Sprintf(`{"id":"m","kind":"jit","label":"ben","repo":{"url":"https://github.com/acme/gone","commit":%q},"target":{"file":"main.c","function":"f"}}`, ben),
		`{"id":"n","kind":"function","label":"ben","code":"int g(void){return 0;}"}`,
	}
	suitePath := filepath.Join(dir, "s.jsonl")
	os.WriteFile(suitePath, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	st, err := store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := spec(kind("reader", reader{}), suitePath, 4)
	s.Repeats, s.Host.Repos, s.Host.SnapshotCache = 2, repos, filepath.Join(dir, "cache")
	out, err := execute(st, s, Local{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	st.Verdicts(context.Background(), "r", func(v verdict.Verdict) error {
		got[fmt.Sprintf("%s/%d", v.CaseID, v.Repeat)] = string(v.Status) + " " + string(v.Label) + " " + firstLine(v.Reason+v.Explanation)
		return nil
	})
	gone := "error  case m: " // then the paths tried
	for k, v := range got {
		if strings.HasPrefix(k, "m/") {
			if !strings.HasPrefix(v, gone) || !strings.Contains(v, filepath.Join(repos, "github.com", "acme", "gone")) || !strings.Contains(v, filepath.Join(repos, "acme+gone")) {
				t.Errorf("%s: %q; want an error naming the paths tried", k, v)
			}
			delete(got, k)
		}
	}
	want := map[string]string{
		"v/0": "ok vul 1 definitions of f", "v/1": "ok vul 1 definitions of f",
		"b/0": "ok ben 1 definitions of f", "b/1": "ok ben 1 definitions of f",
		"n/0": "error  the case has no repository snapshot", "n/1": "error  the case has no repository snapshot",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	if out.Result.Done != 8 {
		t.Errorf("%d units done, want 8", out.Result.Done)
	}
	// A kind that does not declare it reads repositories is given no snapshot: its subject's read
	// is refused as for a case without one, and nothing more is materialised.
	undeclared := kind("reader", reader{})
	undeclared.Repository = nil
	s2 := spec(undeclared, suitePath, 4)
	s2.RunID, s2.Host.Repos, s2.Host.SnapshotCache = "r2", repos, filepath.Join(dir, "cache2")
	if _, err := execute(st, s2, Local{}); err != nil {
		t.Fatal(err)
	}
	st.Verdicts(context.Background(), "r2", func(v verdict.Verdict) error {
		if got := string(v.Status) + " " + firstLine(v.Reason); got != "error the case has no repository snapshot" {
			t.Errorf("undeclared %s: %q, want no snapshot", v.CaseID, got)
		}
		return nil
	})
	if cached, _ := filepath.Glob(filepath.Join(dir, "cache2", "snapshots", "*")); len(cached) != 0 {
		t.Errorf("%d snapshots materialised for a kind that does not read repositories", len(cached))
	}
	// Materialised once per commit, without .git, read-only.
	entries, _ := filepath.Glob(filepath.Join(dir, "cache", "snapshots", "*", "tree"))
	if len(entries) != 2 {
		t.Errorf("%d snapshots materialised, want 2 (one per repository and commit)", len(entries))
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(e, ".git")); err == nil {
			t.Errorf("%s has .git", e)
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// slow answers after its context ends or a short wait, whichever is first.
type slow struct{ started chan struct{} }

func (s slow) Assess(ctx context.Context, u subject.Unit, _ *subject.Env) (verdict.Verdict, error) {
	select {
	case s.started <- struct{}{}:
	default:
	}
	select {
	case <-ctx.Done():
		return verdict.Verdict{}, ctx.Err()
	case <-time.After(20 * time.Millisecond):
	}
	return verdict.Verdict{Status: verdict.OK, Label: suite.Ben}, nil
}

// Stop and Cancel reach a run from another store handle (another process would do the same).
func TestStopAndCancelFromAnotherHandle(t *testing.T) {
	for _, tt := range []struct {
		name  string
		ask   func(context.Context, Controller, string) error
		state string
	}{{"stop", Stop, store.StateInterrupted}, {"cancel", Cancel, store.StateCancelled}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var lines []string
			for i := 0; i < 400; i++ {
				lines = append(lines, fmt.Sprintf(`{"id":"c%03d","kind":"function","label":"ben","code":"x"}`, i))
			}
			suitePath := filepath.Join(dir, "s.jsonl")
			os.WriteFile(suitePath, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
			db := filepath.Join(dir, "v.db")
			st, err := store.Open(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			started := make(chan struct{}, 1)
			type result struct {
				out *Outcome
				err error
			}
			done := make(chan result, 1)
			go func() {
				out, err := execute(st, spec(kind("slow", slow{started}), suitePath, 2), Local{Poll: 10 * time.Millisecond})
				done <- result{out, err}
			}()
			<-started
			other, err := store.Open(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			if err := tt.ask(context.Background(), other, "r"); err != nil {
				t.Fatal(err)
			}
			res := <-done
			if res.err != nil {
				t.Fatal(res.err)
			}
			r, _ := other.GetRun(context.Background(), "r")
			if r.State != tt.state || !res.out.Result.Interrupted || res.out.Result.Done >= 400 {
				t.Errorf("state %s, result %+v; want %s, interrupted before the end", r.State, res.out.Result, tt.state)
			}
			if err := tt.ask(context.Background(), other, "r"); err == nil {
				t.Errorf("asking a %s run to %s again succeeded", r.State, tt.name)
			}
		})
	}
}

// stuck makes one model call through its metered model, then works past its time limit.
type stuck struct {
	model  llm.Model
	prices llm.Prices
}

func (s stuck) Model() llm.Model   { return s.model }
func (s stuck) Prices() llm.Prices { return s.prices }

func (s stuck) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	if err := call(env.Model); err != nil {
		return verdict.Verdict{}, err
	}
	env.Trace.Record(trace.Event{Kind: trace.ToolCall, Name: "get_callers", Args: `{"function":"f"}`})
	<-ctx.Done()
	return verdict.Verdict{}, ctx.Err()
}

// A unit that times out is stored as an error that keeps its partial trace and what it spent.
func TestTimedOutUnitKeepsTraceAndSpend(t *testing.T) {
	m, prices, _ := stack(t)
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "s.jsonl")
	os.WriteFile(suitePath, []byte(`{"id":"a","kind":"function","label":"vul","code":"x"}`+"\n"), 0o644)
	st, err := store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := spec(kind("stuck", stuck{m, prices}), suitePath, 1)
	s.Timeout, s.Host.MaxCost = 200*time.Millisecond, 1
	out, err := execute(st, s, Local{})
	if err != nil {
		t.Fatal(err)
	}
	as, err := st.Attempts(context.Background(), "r", "a", 0)
	if err != nil || len(as) != 1 {
		t.Fatalf("attempts %v, %v", as, err)
	}
	v := as[0]
	if !verdict.IsStopped(v) || !strings.Contains(v.Reason, "--timeout") || v.Usage.Calls != 1 || v.Usage.CostUSD == nil || *v.Usage.CostUSD < 0.0011-1e-9 {
		t.Errorf("attempt %+v: want a timeout error that kept its call and its $0.0011", v)
	}
	events, err := st.TraceEvents(context.Background(), "r", "a", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []trace.Kind
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	if d := cmp.Diff([]trace.Kind{trace.ModelRequest, trace.ModelResponse, trace.ToolCall, trace.Error}, kinds); d != "" {
		t.Errorf("stored trace (-want +got):\n%s", d)
	}
	if sp, _ := st.RunSpend(context.Background(), "r"); sp.Cost < 0.0011-1e-9 || out.Budget.Spent() < 0.0011-1e-9 {
		t.Errorf("spent %v (budget %v), want the timed-out call's cost counted", sp.Cost, out.Budget.Spent())
	}
}

// A run stopped before its source had stored every batch of cases is resumed from the suite
// file, and stores the rest: no case is left out because only some were stored.
func TestResumeAfterPartlyStoredCases(t *testing.T) {
	dir := t.TempDir()
	n := caseBatch + caseBatch/2
	var lines []string
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf(`{"id":"c%05d","kind":"function","label":"ben","code":"x"}`, i))
	}
	suitePath := filepath.Join(dir, "s.jsonl")
	os.WriteFile(suitePath, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	st, err := store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The first unit stops the run and finishes: the source, still handing out the first batch,
	// never stores the second.
	stop := make(chan struct{})
	first := &stopper{stop: stop}
	fac := kind("stopper", first)
	if _, err := execute(st, spec(fac, suitePath, 1), Local{Stop: stop}); err != nil {
		t.Fatal(err)
	}
	if stored, _ := st.CaseCount(context.Background(), "r"); stored >= n {
		t.Fatalf("%d of %d cases stored by the stopped run: the test needs a partly stored suite", stored, n)
	}
	r, err := Resume(context.Background(), st, "r", Overrides{Registry: subject.NewRegistry(fac), Host: Host{Concurrency: 2}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Execute(context.Background(), Local{})
	if err != nil {
		t.Fatal(err)
	}
	units := 0
	st.Units(context.Background(), "r", func(store.UnitState) { units++ })
	stored, _ := st.CaseCount(context.Background(), "r")
	if units != n || stored != n || out.Result.Interrupted {
		t.Errorf("after the resume: %d units, %d cases stored; want %d of each", units, stored, n)
	}
}

// stopper closes stop on its first unit and answers every unit at once.
type stopper struct {
	stop chan struct{}
	once sync.Once
}

func (s *stopper) Assess(context.Context, subject.Unit, *subject.Env) (verdict.Verdict, error) {
	s.once.Do(func() { close(s.stop) })
	return verdict.Verdict{Status: verdict.OK, Label: suite.Ben}, nil
}

// closing answers ben and counts its Close calls.
type closing struct{ closed int }

func (c *closing) Assess(context.Context, subject.Unit, *subject.Env) (verdict.Verdict, error) {
	return verdict.Verdict{Status: verdict.OK, Label: suite.Ben}, nil
}

func (c *closing) Close() error { c.closed++; return nil }

// A subject that holds something (an advisory database, an open zip) is closed with its run.
func TestSubjectClosedAtTheEnd(t *testing.T) {
	suitePath, st := oneCase(t)
	c := &closing{}
	if _, err := execute(st, spec(kind("closing", c), suitePath, 1), Local{}); err != nil {
		t.Fatal(err)
	}
	if c.closed != 1 {
		t.Errorf("Close called %d times, want once (by Run.Close)", c.closed)
	}
}

// flagged answers with the label its --label flag gave, counting its units.
type flagged struct{ label suite.Label }

func (f flagged) Assess(context.Context, subject.Unit, *subject.Env) (verdict.Verdict, error) {
	return verdict.Verdict{Status: verdict.OK, Label: f.label}, nil
}

type labelConfig struct{ Label, Pace string }

func (labelConfig) Validate() error { return nil }

// labelKind is a kind at version with a fixed --label and a resumable --pace.
func labelKind(version string, built *[]labelConfig) subject.Factory {
	return subject.Factory{Name: "label", Kinds: suite.Kinds, Version: version,
		Flags: []subject.Flag{{Name: "label", Default: "vul"}, {Name: "pace", Default: "", Resumable: true}},
		Configure: func(_ string, v subject.Values) (subject.Config, error) {
			return labelConfig{v.String("label"), v.String("pace")}, nil
		},
		New: func(c subject.Config, _ subject.Deps) (subject.Subject, error) {
			lc := c.(labelConfig)
			*built = append(*built, lc)
			return flagged{suite.Label(lc.Label)}, nil
		}}
}

// A resume, local or on a worker, rebuilds the subject from the manifest: the kind at the
// version the run started with (another version is refused by both), its flags as recorded, but
// for resumable ones given again; a flag that is not resumable cannot change.
func TestResumeRebuildsTheSubjectFromItsManifest(t *testing.T) {
	suitePath, st := oneCase(t)
	var built []labelConfig
	v1 := labelKind("1", &built)
	s := spec(v1, suitePath, 1)
	s.Subject.Config, s.Subject.Flags = labelConfig{"ben", ""}, map[string]string{"label": "ben", "pace": ""}
	if _, err := execute(st, s, Local{}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	host := Host{Concurrency: 1}
	r, err := Resume(ctx, st, "r", Overrides{Registry: subject.NewRegistry(v1), Flags: map[string]string{"pace": "fast"}, Host: host})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if d := cmp.Diff([]labelConfig{{"ben", "fast"}}, built[1:]); d != "" {
		t.Errorf("resumed subject's config (-want +got):\n%s", d)
	}
	if _, err := Resume(ctx, st, "r", Overrides{Registry: subject.NewRegistry(v1), Flags: map[string]string{"label": "vul"}, Host: host}); err == nil || !strings.Contains(err.Error(), "--label cannot change") {
		t.Errorf("resume changing --label: err = %v, want a refusal", err)
	}
	v2 := labelKind("2", &built)
	if _, err := Resume(ctx, st, "r", Overrides{Registry: subject.NewRegistry(v2), Host: host}); err == nil || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("resume with version 2 of the kind: err = %v, want a refusal naming version 1", err)
	}
	if _, err := Open(ctx, st, "r", OpenOptions{Registry: subject.NewRegistry(v2)}); err == nil || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("worker open with version 2 of the kind: err = %v, want a refusal naming version 1", err)
	}
	if len(built) != 2 {
		t.Errorf("%d subjects built, want 2 (the run's and the one resume): a refused resume must build none", len(built))
	}
}

// A run started in the bwrap sandbox is not resumed, nor opened by a worker, with --sandbox
// none: its cases' processes would see the whole host. One started with none may go on in bwrap.
func TestSandboxCannotLoosenOnResume(t *testing.T) {
	ctx := context.Background()
	bwrap, err := sandbox.New(ctx, sandbox.Options{Mode: sandbox.ModeBwrap})
	if err != nil {
		t.Fatalf("bubblewrap (make deps installs it): %v", err)
	}
	none, err := sandbox.New(ctx, sandbox.Options{Mode: sandbox.ModeNone})
	if err != nil {
		t.Fatal(err)
	}
	suitePath, st := oneCase(t)
	fac := kind("closing", &closing{})
	reg := subject.NewRegistry(fac)
	for _, tc := range []struct {
		id        string
		from, now *sandbox.Sandbox
		refused   bool
	}{{"bwrap-none", bwrap, none, true}, {"bwrap-bwrap", bwrap, bwrap, false}, {"none-bwrap", none, bwrap, false}} {
		s := spec(fac, suitePath, 1)
		s.RunID, s.Host.Deps.Sandbox = tc.id, tc.from
		if _, err := execute(st, s, Local{}); err != nil {
			t.Fatal(err)
		}
		_, rerr := Resume(ctx, st, tc.id, Overrides{Registry: reg, Host: Host{Concurrency: 1, Deps: subject.Deps{Sandbox: tc.now}}})
		_, oerr := Open(ctx, st, tc.id, OpenOptions{Registry: reg, Deps: subject.Deps{Sandbox: tc.now}})
		for what, err := range map[string]error{"resume": rerr, "open": oerr} {
			if got := err != nil && strings.Contains(err.Error(), "bwrap sandbox"); got != tc.refused || (!tc.refused && err != nil) {
				t.Errorf("%s: %s: err = %v, want refused %v", tc.id, what, err, tc.refused)
			}
		}
	}
}

// A run started with --lossy-utf8 records it, and a resume that reads the rest of its suite
// reads it so without being told again: strictly, the line that is not UTF-8 would refuse the
// suite the run already judged in part (issue 25, finding 8).
func TestResumeReadsTheSuiteAsTheRunStarted(t *testing.T) {
	dir := t.TempDir()
	n := caseBatch + caseBatch/2
	var lines []string
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf(`{"id":"c%05d","kind":"function","label":"ben","code":"x"}`, i))
	}
	lines[n-1] = fmt.Sprintf(`{"id":"c%05d","kind":"function","label":"ben","code":"caf`+"\xe9"+`"}`, n-1)
	suitePath := filepath.Join(dir, "s.jsonl")
	os.WriteFile(suitePath, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	st, err := store.Open(context.Background(), filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stop := make(chan struct{})
	fac := kind("stopper", &stopper{stop: stop})
	s := spec(fac, suitePath, 1)
	s.Host.Deps.Reading = &lineerr.Reading{Lossy: true}
	if _, err := execute(st, s, Local{Stop: stop}); err != nil {
		t.Fatal(err)
	}
	if stored, _ := st.CaseCount(context.Background(), "r"); stored >= n {
		t.Fatalf("%d of %d cases stored by the stopped run: the test needs a partly stored suite", stored, n)
	}
	r, err := Resume(context.Background(), st, "r", Overrides{Registry: subject.NewRegistry(fac), Host: Host{Concurrency: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Execute(context.Background(), Local{}); err != nil {
		t.Fatal(err)
	}
	var last *suite.Case
	st.Cases(context.Background(), "r", func(c *suite.Case) error { last = c; return nil })
	if stored, _ := st.CaseCount(context.Background(), "r"); stored != n || last == nil || last.Code != "caf\uFFFD" {
		t.Errorf("after the resume: %d cases stored, the last %+v; want %d, the last with U+FFFD", stored, last, n)
	}
}

// A run whose sandbox cannot hold a bound (no writable cgroup: no memory limit, no process cap)
// records which on its manifest, as --sandbox none is.
func TestUnboundedSandboxIsStamped(t *testing.T) {
	ctx := context.Background()
	sb, err := sandbox.New(ctx, sandbox.Options{Mode: sandbox.ModeBwrap, NoProcCap: true})
	if err != nil {
		t.Fatalf("bubblewrap (make deps installs it): %v", err)
	}
	suitePath, st := oneCase(t)
	fac := kind("closing", &closing{})
	s := spec(fac, suitePath, 1)
	s.RunID, s.Host.Deps.Sandbox = "unbounded", sb
	if _, err := execute(st, s, Local{}); err != nil {
		t.Fatal(err)
	}
	run, err := st.GetRun(ctx, "unbounded")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest.Manifest
	if err := json.Unmarshal(run.Manifest, &m); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(m.SandboxUnbounded, "\n")
	for _, want := range []string{"memory: none (--sandbox-mem needs a writable memory cgroup", "processes: none"} {
		if !strings.Contains(got, want) {
			t.Errorf("manifest's sandbox_unbounded %q lacks %q", m.SandboxUnbounded, want)
		}
	}
	if m.Sandbox != "bwrap" {
		t.Errorf("manifest sandbox %q", m.Sandbox)
	}
}
