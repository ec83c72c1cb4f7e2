// Package govulncheck is the govulncheck subject on Go vex cases: symbol-level reachability by
// the Go team's scanner (golang.org/x/vuln/cmd/govulncheck v1.9.0) against a local Go
// vulnerability database written from --advisories for the case's CVE.
//
// For each case the CVE's OSV records (and those they alias) are written in govulncheck's
// offline layout (internal/advisory/vulndb) and `govulncheck -db file://DIR -format json ./...`
// runs in every Go module of the snapshot (or the case's repo.path), offline: GOPROXY=off, GOSUMDB=off, GOTOOLCHAIN=local,
// GOWORK=off and GOFLAGS cleared, so the go command takes its own default (vendor/ when
// vendor/modules.txt is there, else the module cache, read-only). A module whose dependencies are
// neither vendored nor in the module cache does not build: the case gets an error verdict with
// govulncheck's message (the paper: govulncheck finished 19 of 30 Go cases).
//
// The answer: a finding whose trace starts at a vulnerable function (symbol reached from the
// project's code) → vulnerable; only module- or package-level findings (the affected version is
// required, or imported, but no vulnerable symbol is called) → code_not_reachable; no finding
// (the module is absent, or at an unaffected version) → code_not_present.
package govulncheck

import (
	"bytes"
	"cmp"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/advisory/vulndb"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version is bumped whenever the same case, snapshot, advisories and govulncheck may get another
// verdict.
const Version = "1"

// Binary is the program run; Install says how to get the version the subject was written for.
const (
	Binary  = "govulncheck"
	Install = "go install golang.org/x/vuln/cmd/govulncheck@v1.9.0"
)

// MaxModules bounds the Go modules scanned in one snapshot (a monorepo's go.mod files).
const MaxModules = 16

// Config is the subject's configuration.
type Config struct {
	Advisories string `json:"advisories"`
}

// NeedsRepository is the kind's Repository declaration: every case is judged on its snapshot.
func (c Config) NeedsRepository(cs *suite.Case) bool { return subject.CaseRepo(cs) }

// NeedsAdvisories is the kind's Advisories declaration: the case's CVE, in --advisories.
func (c Config) NeedsAdvisories(cs *suite.Case) ([]string, string) {
	return subject.CaseAdvisory(cs), c.Advisories
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if c.Advisories == "" {
		return errors.New("subject govulncheck needs --advisories PATH: a directory of OSV records (Go vulndb, GitHub Advisory Database, any .json) or an osv.dev all.zip; the case's Go records are written into a local database for govulncheck -db")
	}
	return nil
}

// Subject runs govulncheck.
type Subject struct {
	db      *advisory.DB
	bin     string
	version string
	owned   bool // Close closes db
	sb      *sandbox.Sandbox
	prog    string         // govulncheck as the sandbox shows it
	binds   []sandbox.Bind // what shows it, and the module cache
	modPath string         // the host's module cache ("" when go names none)
}

// New finds govulncheck on PATH, reads its version and opens the advisories.
func New(cfg Config, sb *sandbox.Sandbox) (*Subject, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	db, err := advisory.Open(cfg.Advisories)
	if err != nil {
		return nil, fmt.Errorf("subject govulncheck: %w", err)
	}
	s, err := NewWith(db)
	if err == nil {
		s, err = s.sandboxed(sb)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// NewWith is the subject over advisories already open (not closed by Close).
func NewWith(db *advisory.DB) (*Subject, error) {
	bin, err := exec.LookPath(Binary)
	if err != nil {
		return nil, fmt.Errorf("subject govulncheck: %s is not on PATH; install it with: %s (and put $(go env GOPATH)/bin on PATH)", Binary, Install)
	}
	if _, err := exec.LookPath("go"); err != nil {
		return nil, errors.New("subject govulncheck: the go command is not on PATH; govulncheck loads the project's packages with it")
	}
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("subject govulncheck: %s is not a Go binary whose version can be read (%v); reinstall it with: %s", bin, err, Install)
	}
	return &Subject{db: db, bin: bin, version: bi.Main.Version}, nil
}

// sandboxed returns s with its scans in sb (nil: a new bubblewrap sandbox): govulncheck shown
// read-only, the host's module cache read-only at its own path (the modules the project's
// build needs, offline), the project read-only, no network.
func (s *Subject) sandboxed(sb *sandbox.Sandbox) (*Subject, error) {
	sb, err := subject.Deps{Sandbox: sb}.OpenSandbox()
	if err != nil {
		return nil, fmt.Errorf("subject govulncheck: %w", err)
	}
	s.sb = sb
	s.prog, s.binds = sandbox.Program("govulncheck", s.bin)
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		if mc := strings.TrimSpace(string(out)); filepath.IsAbs(mc) {
			if _, err := os.Stat(mc); err == nil {
				s.modPath = mc
				s.binds = append(s.binds, sandbox.Bind{Src: mc, Dst: mc})
			}
		}
	}
	return s, nil
}

// Describe is recorded in the run's manifest.
func (s *Subject) Describe() map[string]any {
	return s.db.Describe(map[string]any{"tool": Binary, "tool_version": s.version, "advisories": s.db.Path(),
		"env": strings.Join(offlineEnv, " ")})
}

// Close closes the advisories when New opened them.
func (s *Subject) Close() error {
	if s.owned {
		return s.db.Close()
	}
	return nil
}

// offlineEnv is set over the caller's environment for every govulncheck run.
var offlineEnv = []string{"GOPROXY=off", "GOSUMDB=off", "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS="}

// Assess implements subject.Subject.
func (s *Subject) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	if c.CVE == "" {
		return verdict.Verdict{}, fmt.Errorf("subject govulncheck: case %s has no cve", c.ID)
	}
	advs, err := s.db.Related(c.CVE)
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject govulncheck: case %s: %w", c.ID, err)
	}
	if len(advs) == 0 {
		if u := s.db.Unreadable(); u != "" {
			return verdict.Verdict{}, fmt.Errorf("subject govulncheck: no readable OSV record for %s in %s: %s", c.CVE, s.db.Path(), u)
		}
		return verdict.Verdict{}, fmt.Errorf("subject govulncheck: no OSV record for %s in %s (give --advisories a database that has it)", c.CVE, s.db.Path())
	}
	var live []*advisory.Advisory
	for _, a := range advs {
		if !a.IsWithdrawn() {
			live = append(live, a)
		}
	}
	if len(live) == 0 {
		return answer("false_positive", fmt.Sprintf("every OSV record of %s is withdrawn (%s)", c.CVE, ids(advs)), nil), nil
	}
	dbDir, err := os.MkdirTemp("", "vulnbench-govulndb-")
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject govulncheck: %w", err)
	}
	defer os.RemoveAll(dbDir)
	res, err := vulndb.Write(dbDir, goFirst(live))
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject govulncheck: case %s: %w", c.ID, err)
	}
	for _, n := range res.Notes {
		env.Trace.Record(trace.Event{Kind: trace.Note, Name: Binary, Content: n})
	}
	if len(res.IDs) == 0 {
		return answer(codeNotPresent, fmt.Sprintf("no OSV record of %s names a Go module (%s), so govulncheck has nothing to look for", c.CVE, ids(live)), nil), nil
	}
	snap, err := env.Snapshot(ctx)
	if err != nil {
		return verdict.Verdict{}, subject.NeedsRepo(Binary, c, err)
	}
	mods, left, err := modules(snap.Root(), c)
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("subject govulncheck: case %s: %w", c.ID, err)
	}
	if left > 0 {
		env.Trace.Record(trace.Event{Kind: trace.Note, Name: Binary, Content: fmt.Sprintf("%d more Go modules are not scanned (at most %d per snapshot)", left, MaxModules)})
	}
	env.Trace.Record(trace.Event{Kind: trace.Note, Name: Binary, Content: fmt.Sprintf("govulncheck %s, database of %s for modules %s; Go modules scanned: %s",
		s.version, strings.Join(res.IDs, ", "), strings.Join(res.Modules, ", "), strings.Join(mods, ", "))})
	var all []finding
	for _, m := range mods {
		fs, err := s.scan(ctx, filepath.Join(snap.Root(), filepath.FromSlash(m)), dbDir, env)
		if err != nil {
			return verdict.Verdict{}, fmt.Errorf("subject govulncheck: case %s: module %s: %w", c.ID, m, err)
		}
		for i := range fs {
			fs[i].module = m
		}
		all = append(all, fs...)
	}
	return judge(c, res, all), nil
}

// goFirst keeps the Go vulnerability database's own records (GO-...) when the CVE has any: they
// name the vulnerable packages and symbols, while their aliases in other databases (a GHSA of
// the same module) often name none, which govulncheck reads as "every symbol of the module" and
// which would make any use of the module a reachable call. Without a GO- record, all are kept.
func goFirst(as []*advisory.Advisory) []*advisory.Advisory {
	var gos []*advisory.Advisory
	for _, a := range as {
		if strings.HasPrefix(a.ID, "GO-") {
			gos = append(gos, a)
		}
	}
	if len(gos) == 0 {
		return as
	}
	return gos
}

// modules are the directories (slash paths relative to root, "." for root) of the Go modules to
// scan: repo.path's module when the case names one, else every go.mod of the tree (the root's
// first, then by depth and name) outside vendor/, testdata/, node_modules/ and hidden
// directories, up to MaxModules; left reports how many more there were.
func modules(root string, c *suite.Case) (mods []string, left int, err error) {
	if c.Repo != nil && c.Repo.Path != "" {
		p := path.Clean(strings.TrimPrefix(c.Repo.Path, "/"))
		if p == ".." || strings.HasPrefix(p, "../") {
			return nil, 0, fmt.Errorf("repo.path %q leaves the snapshot", c.Repo.Path)
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p), "go.mod")); err == nil {
			return []string{p}, 0, nil
		}
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root {
			n := d.Name()
			if n == "vendor" || n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return fs.SkipDir
			}
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if len(out) == 0 {
		return nil, 0, errors.New("the snapshot has no go.mod: govulncheck reads Go modules only")
	}
	depth := func(m string) int {
		if m == "." {
			return 0
		}
		return strings.Count(m, "/") + 1
	}
	slices.SortFunc(out, func(a, b string) int {
		if da, db := depth(a), depth(b); da != db {
			return da - db
		}
		return strings.Compare(a, b)
	})
	if len(out) > MaxModules {
		return out[:MaxModules], len(out) - MaxModules, nil
	}
	return out, 0, nil
}

// message is one object of govulncheck's -format json stream (the fields read here).
type message struct {
	Config *struct {
		ScannerVersion string `json:"scanner_version"`
		GoVersion      string `json:"go_version"`
		ScanLevel      string `json:"scan_level"`
	} `json:"config"`
	Finding *struct {
		OSV          string  `json:"osv"`
		FixedVersion string  `json:"fixed_version"`
		Trace        []frame `json:"trace"`
	} `json:"finding"`
}

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
	Position *struct {
		Filename string `json:"filename"`
		Line     int    `json:"line"`
	} `json:"position"`
}

// finding is one govulncheck finding, with the module directory it was found in.
type finding struct {
	osv    string
	trace  []frame
	module string
}

// level is how deep the finding reaches: 3 a vulnerable symbol called, 2 its package imported,
// 1 its module required.
func (f finding) level() int {
	if len(f.trace) == 0 {
		return 0
	}
	switch t := f.trace[0]; {
	case t.Function != "":
		return 3
	case t.Package != "":
		return 2
	}
	return 1
}

// The categories govulncheck can tell apart, besides suite.VEXVulnerable.
const (
	codeNotPresent   = "code_not_present"
	codeNotReachable = "code_not_reachable"
)

// maxStderr bounds the govulncheck output kept for an error (its first bytes).
const maxStderr = 8 << 10

// scan runs govulncheck in one module directory.
func (s *Subject) scan(ctx context.Context, dir, dbDir string, env *subject.Env) ([]finding, error) {
	if s.sb == nil { // made by NewWith alone
		if _, err := s.sandboxed(nil); err != nil {
			return nil, err
		}
	}
	args := []string{"-db", "file://" + filepath.ToSlash(dbDir), "-format", "json", "./..."}
	spec := sandbox.Spec{Project: dir, Advisories: dbDir, Binds: s.binds,
		Args: append([]string{s.prog}, "-db", "file://{advisories}", "-format", "json", "./..."),
		Env:  append([]string{"PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin", "HOME={home}", "GOCACHE={tmp}/go-build", "GOTELEMETRY=off"}, offlineEnv...)}
	if s.modPath != "" {
		spec.Env = append(spec.Env, "GOMODCACHE="+s.modPath)
	}
	var stderr head
	out, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer out.Close()
	start := time.Now()
	env.Trace.Record(trace.Event{Kind: trace.ToolCall, Name: Binary, Content: Binary + " " + strings.Join(args, " ") + " (in " + dir + ")"})
	p, err := s.sb.Start(ctx, spec, sandbox.Stdio{Stdout: w, Stderr: &stderr})
	w.Close()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", s.bin, err)
	}
	var fs []finding
	// What a sandboxed process prints is read within a cap, like every byte it could write.
	limited := &io.LimitedReader{R: out, N: sandbox.DefaultMaxOutput + 1}
	dec := json.NewDecoder(limited)
	var decErr error
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			if err != io.EOF || limited.N <= 0 {
				decErr = fmt.Errorf("reading govulncheck's JSON: %w", err)
				if limited.N <= 0 {
					p.Kill()
					decErr = fmt.Errorf("govulncheck printed more than %d bytes of JSON: refused", sandbox.DefaultMaxOutput)
				}
				_, _ = io.Copy(io.Discard, out)
			}
			break
		}
		if m.Finding != nil {
			fs = append(fs, finding{osv: m.Finding.OSV, trace: m.Finding.Trace})
		}
	}
	werr := p.Wait()
	env.Trace.Record(trace.Event{Kind: trace.ToolResult, Name: Binary, LatencyMS: time.Since(start).Milliseconds(),
		Content: fmt.Sprintf("%d findings; exit: %v; stderr: %s", len(fs), werr, stderr.String())})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if werr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		return nil, fmt.Errorf("govulncheck failed (%v): %s", werr, msg)
	}
	if decErr != nil {
		return nil, decErr
	}
	return fs, nil
}

// judge maps the findings for the case's records to a category.
func judge(c *suite.Case, res vulndb.Result, fs []finding) verdict.Verdict {
	best := 0
	for _, f := range fs {
		if slices.Contains(res.IDs, f.osv) {
			best = max(best, f.level())
		}
	}
	var findings []verdict.Finding
	seen := map[string]bool{}
	for _, f := range fs {
		if f.level() != best || best == 0 || !slices.Contains(res.IDs, f.osv) {
			continue
		}
		vf := toFinding(f)
		key := vf.File + "\x00" + vf.Function + "\x00" + vf.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		findings = append(findings, vf)
	}
	// govulncheck emits findings as its workers finish: order them.
	slices.SortFunc(findings, func(a, b verdict.Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), a.StartLine-b.StartLine, strings.Compare(a.Rule, b.Rule), strings.Compare(a.Message, b.Message))
	})
	where := strings.Join(res.IDs, ", ")
	switch best {
	case 3:
		return answer(suite.VEXVulnerable, fmt.Sprintf("govulncheck: a vulnerable symbol of %s (%s) is called from the project's code", c.CVE, where), findings)
	case 2:
		return answer(codeNotReachable, fmt.Sprintf("govulncheck: a package affected by %s (%s) is imported at an affected version, but no vulnerable symbol is called", c.CVE, where), findings)
	case 1:
		return answer(codeNotReachable, fmt.Sprintf("govulncheck: a module affected by %s (%s) is required at an affected version, but no vulnerable package is imported", c.CVE, where), findings)
	}
	return answer(codeNotPresent, fmt.Sprintf("govulncheck: no module the project builds with is at a version affected by %s (%s: %s)", c.CVE, where, strings.Join(res.Modules, ", ")), nil)
}

// toFinding places a finding: a symbol trace at the project's own call nearest the vulnerable
// symbol (the first frame of an unversioned module, the main module, that has a position; else
// the trace's last placed frame), else at the module's go.mod.
func toFinding(f finding) verdict.Finding {
	t := f.trace[0]
	sym := t.Package
	if t.Function != "" {
		sym = t.Package + "." + t.Function
		if t.Receiver != "" {
			sym = t.Package + "." + strings.TrimPrefix(t.Receiver, "*") + "." + t.Function
		}
	}
	if sym == "" {
		sym = t.Module
	}
	vf := verdict.Finding{Rule: f.osv, Message: fmt.Sprintf("%s %s: %s", t.Module, t.Version, sym), File: path.Join(f.module, "go.mod")}
	placed := func(fr frame) bool { return fr.Position != nil && fr.Position.Filename != "" && fr.Position.Line > 0 }
	at := -1
	for i := 1; i < len(f.trace); i++ {
		if placed(f.trace[i]) && f.trace[i].Version == "" {
			at = i
			break
		}
	}
	for i := len(f.trace) - 1; at < 0 && i >= 1; i-- {
		if placed(f.trace[i]) {
			at = i
		}
	}
	if at > 0 {
		fr := f.trace[at]
		vf.File = path.Join(f.module, fr.Position.Filename)
		vf.StartLine, vf.EndLine = fr.Position.Line, fr.Position.Line
		vf.Function = fr.Function
		vf.Message += " reached from " + fr.Package + "." + fr.Function
	}
	return vf
}

func answer(category, impact string, findings []verdict.Finding) verdict.Verdict {
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0), ScoreSource: verdict.FromTool,
		VEX: verdict.VEXAnswer(category, impact), Findings: findings, Explanation: impact}
	if category == suite.VEXVulnerable {
		v.Label, v.Score = suite.Vul, verdict.Float(1)
	}
	var b strings.Builder
	b.WriteString(impact)
	for _, f := range findings {
		fmt.Fprintf(&b, "\n%s:%d: %s %s", f.File, f.StartLine, f.Rule, f.Message)
	}
	v.Explanation = b.String()
	return v
}

func ids(as []*advisory.Advisory) string {
	var s []string
	for _, a := range as {
		s = append(s, a.ID)
	}
	return strings.Join(s, ", ")
}

// head keeps the first maxStderr bytes written (govulncheck says what failed first, then lists
// every file it could not type-check) and counts the rest.
type head struct {
	b    []byte
	more int
}

func (h *head) Write(p []byte) (int, error) {
	n := min(len(p), maxStderr-len(h.b))
	h.b = append(h.b, p[:n]...)
	h.more += len(p) - n
	return len(p), nil
}

func (h *head) String() string {
	s := string(bytes.TrimSpace(h.b))
	if h.more > 0 {
		s += fmt.Sprintf(" [cut: %d more bytes]", h.more)
	}
	return s
}
