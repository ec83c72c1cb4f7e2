package sast

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// ToolVersion is the version of the scanner subjects (how a tool's findings become verdicts);
// each tool's own version and, for repository cases, the matcher's are recorded beside it.
const ToolVersion = "2"

// ToolConfig is a scanner subject's configuration.
type ToolConfig struct {
	Tool string `json:"tool"`
	// MinLevel is the lowest hit level (0-5) that makes a case vul, for a scanner with Levels.
	MinLevel int `json:"min_level,omitempty"`
}

// Validate implements subject.Config.
func (c ToolConfig) Validate() error {
	if _, ok := LookupScanner(c.Tool); !ok {
		return fmt.Errorf("no scanner named %q in the scanner table", c.Tool)
	}
	if c.MinLevel < 0 || c.MinLevel > 5 {
		return fmt.Errorf("%s: --min-level %d is outside 0..5", c.Tool, c.MinLevel)
	}
	return nil
}

// NeedsRepository is the kind's Repository declaration: repository cases (jit, vex) scan the
// snapshot.
func (c ToolConfig) NeedsRepository(cs *suite.Case) bool {
	return (cs.Kind == suite.KindJIT || cs.Kind == suite.KindVEX) && subject.CaseRepo(cs)
}

// Tool runs one scanner of the table. Function and snippet cases are written to a file with
// their language's extension and scanned alone; a case is vul when some finding counts (for
// flawfinder: reaches MinLevel). Repository cases (jit, vex) scan the case's snapshot once per
// tool, version and snapshot, and are vul when a finding matches their target (sarif.Matcher).
// A tool that crashes or cannot read a file gives the case an error verdict.
type Tool struct {
	Scanner  Scanner
	Binary   string // the path found on PATH
	MinLevel int
	version  string
	matcher  *sarif.Matcher
	sb       *sandbox.Sandbox
	prog     string         // the program as the sandbox shows it
	binds    []sandbox.Bind // what shows it
	once     sync.Once
	sbErr    error
	// GoCache, when set, is a host directory every scan sees writable as its Go build cache
	// (gosec type-checks the standard library): one warm cache that the scans of a session share,
	// each adding what it compiled (cgo off). Empty: a fresh cache in each scan's tmp. Nothing
	// outside the sandbox reads it.
	GoCache string

	mu    sync.Mutex
	scans map[string]*scan // snapshot directory → its scan
}

type scan struct {
	done     chan struct{}
	findings int
	byBase   byBase
	skipped  string // what the scan left out (skipNote)
	err      error
}

// NewTool finds the scanner's binary and asks it for its version; its scans run in a new
// bubblewrap sandbox (NewToolIn).
func NewTool(c ToolConfig) (*Tool, error) { return NewToolIn(c, nil) }

// NewToolIn is NewTool with its scans in sb (nil: a new bubblewrap sandbox, an error naming
// what is missing where it cannot run).
func NewToolIn(c ToolConfig, sb *sandbox.Sandbox) (*Tool, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	s, _ := LookupScanner(c.Tool)
	bin, err := exec.LookPath(s.Binary) // a missing scanner is named before a missing sandbox
	if err != nil {
		if strings.ContainsRune(s.Binary, filepath.Separator) {
			return nil, fmt.Errorf("%s is not installed (no %s); install it with: %s", s.Name, s.Binary, s.Install)
		}
		return nil, fmt.Errorf("%s is not on PATH; install it with: %s", s.Binary, s.Install)
	}
	sb, err = subject.Deps{Sandbox: sb}.OpenSandbox()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Tool, err)
	}
	v, err := s.Version(bin)
	if err != nil {
		return nil, fmt.Errorf("%s version: %w (reinstall it with: %s)", s.Name, err, s.Install)
	}
	m, err := sarif.NewMatcher()
	if err != nil {
		return nil, err
	}
	prog, binds := sandbox.Program("tool", bin)
	return &Tool{Scanner: s, Binary: bin, MinLevel: c.MinLevel, version: v, matcher: m, scans: map[string]*scan{},
		sb: sb, prog: prog, binds: binds}, nil
}

// Describe is recorded in the run's manifest: the tool, its version and output format, and the
// matcher that repository cases go through.
func (t *Tool) Describe() map[string]any {
	d := map[string]any{"tool": t.Scanner.Name, "tool_version": t.version, "format": t.Scanner.Format, "matcher": sarif.MatcherVersion}
	if t.Scanner.Levels {
		d["min_level"] = t.MinLevel
	}
	return d
}

// Assess implements subject.Subject.
func (t *Tool) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	if c.Kind == suite.KindJIT || c.Kind == suite.KindVEX {
		return t.assessRepo(ctx, c, env)
	}
	if c.Code == "" {
		return verdict.Verdict{}, fmt.Errorf("%s: case %s has no code to scan", t.Scanner.Name, c.ID)
	}
	dir, err := os.MkdirTemp("", "vulnbench-"+t.Scanner.Name+"-")
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("%s: %w", t.Scanner.Name, err)
	}
	defer os.RemoveAll(dir)
	name := "case" + Extension(c.Language)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(c.Code), 0o600); err != nil {
		return verdict.Verdict{}, fmt.Errorf("%s: %w", t.Scanner.Name, err)
	}
	findings, err := t.run(ctx, dir, name)
	if err != nil {
		return verdict.Verdict{}, err
	}
	env.Trace.Record(trace.Event{Kind: trace.Note, Name: t.Scanner.Name, Content: fmt.Sprintf("%s %s: %d findings", t.Scanner.Name, t.version, len(findings))})
	if t.Scanner.Levels {
		return levelVerdict(findings, t.MinLevel), nil
	}
	return countVerdict(findings, t.Scanner.Counts), nil
}

// run scans target inside dir in the sandbox (dir its read-only project: a link out of it
// resolves to nothing there, no network, a tmpfs home) and reads the tool's report.
func (t *Tool) run(ctx context.Context, dir, target string) ([]verdict.Finding, error) {
	sb, prog, binds, err := t.sandbox()
	if err != nil {
		return nil, err
	}
	spec := sandbox.Spec{Project: dir, Binds: binds, Env: toolEnv}
	if t.GoCache != "" {
		spec.Cache = t.GoCache
		spec.Env = append(slices.DeleteFunc(slices.Clone(toolEnv), func(e string) bool { return strings.HasPrefix(e, "GOCACHE=") }),
			"GOCACHE={cache}", "CGO_ENABLED=0")
	}
	config := ""
	if t.Scanner.Config != nil {
		name, content := t.Scanner.Config()
		config = "{tmp}/vulnbench-config/" + name
		spec.Files = []sandbox.File{{Dst: config, Data: []byte(content)}}
	}
	spec.Args = append([]string{prog}, t.Scanner.Args(target, config)...)
	res, err := sb.Run(ctx, spec)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", t.Scanner.Name, ctx.Err())
	}
	if err == nil && res.ExitCode != 0 && !t.Scanner.Ran(res.ExitCode) {
		err = fmt.Errorf("exit status %d", res.ExitCode)
	}
	if err != nil {
		msg := firstLine(string(res.Stderr))
		if msg == "" {
			msg = firstLine(string(res.Stdout))
		}
		return nil, fmt.Errorf("%s failed (%v): %s", t.Scanner.Name, err, msg)
	}
	return t.Scanner.Parse(res.Stdout, res.Stderr)
}

// sandbox is where t's scans run, and its program there: for a Tool made without NewTool, a
// new bubblewrap sandbox.
func (t *Tool) sandbox() (*sandbox.Sandbox, string, []sandbox.Bind, error) {
	t.once.Do(func() {
		if t.sb == nil {
			t.sb, t.sbErr = subject.Deps{}.OpenSandbox()
			t.prog, t.binds = sandbox.Program("tool", t.Binary)
		}
	})
	if t.sbErr != nil {
		return nil, "", nil, fmt.Errorf("%s: %w", t.Scanner.Name, t.sbErr)
	}
	return t.sb, t.prog, t.binds, nil
}

// toolEnv is a scanner's whole environment in the sandbox: the Go toolchain for gosec (its
// caches in the sandbox's tmpfs, no module downloads).
var toolEnv = []string{"PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin", "HOME={home}", "GOCACHE={tmp}/go-build",
	"GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOTELEMETRY=off", "PYTHONDONTWRITEBYTECODE=1"}

// assessRepo matches the findings of the snapshot's one scan to the case's target.
func (t *Tool) assessRepo(ctx context.Context, c *suite.Case, env *subject.Env) (verdict.Verdict, error) {
	span, ok := sarif.CaseSpan(c)
	if !ok {
		return verdict.Verdict{}, fmt.Errorf("%s: case %s names no file (target.file or repo.path), so no finding can match it", t.Scanner.Name, c.ID)
	}
	snap, err := env.Snapshot(ctx)
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("%s: %w", t.Scanner.Name, err)
	}
	s, fresh, err := t.scanTree(ctx, snap.Root())
	if err != nil {
		return verdict.Verdict{}, err
	}
	env.Trace.Record(trace.Event{Kind: trace.Note, Name: t.Scanner.Name, Content: fmt.Sprintf("%s %s: %d findings in the snapshot (scanned for this case: %v)", t.Scanner.Name, t.version, s.findings, fresh)})
	v := s.byBase.match(t.matcher, c, span)
	if s.skipped != "" {
		env.Trace.Record(trace.Event{Kind: trace.Note, Name: t.Scanner.Name, Content: s.skipped})
		v.Explanation = strings.TrimSpace(v.Explanation + " [" + s.skipped + "]")
	}
	return v, nil
}

// scanTree scans the tree at root once for every case on it: concurrent callers wait for the
// first one's scan. A scan cut short by its caller's context is forgotten, so the next case
// scans again; a failed scan is kept (every case on the tree gets its error). The findings are
// indexed once, for every case on the tree.
func (t *Tool) scanTree(ctx context.Context, root string) (*scan, bool, error) {
	t.mu.Lock()
	s, ok := t.scans[root]
	if !ok {
		s = &scan{done: make(chan struct{})}
		t.scans[root] = s
	}
	t.mu.Unlock()
	if ok {
		select {
		case <-s.done:
		case <-ctx.Done():
			return nil, false, fmt.Errorf("%s: %w", t.Scanner.Name, ctx.Err())
		}
		t.mu.Lock()
		cur := t.scans[root]
		t.mu.Unlock()
		if cur != s { // cut short by its caller: scan again
			return t.scanTree(ctx, root)
		}
		return s, false, s.err
	}
	findings, skipped, err := t.runTree(ctx, root)
	s.findings, s.byBase, s.skipped, s.err = len(findings), indexByBase(findings), skipped, err
	if s.err != nil && ctx.Err() != nil {
		t.mu.Lock()
		delete(t.scans, root)
		t.mu.Unlock()
	}
	close(s.done)
	return s, true, s.err
}

// runTree scans the tree at root, leaving out what skips lists (links, huge and non-UTF-8
// files: each noted, none failing the scan); the findings' files are relative to root.
func (t *Tool) runTree(ctx context.Context, root string) ([]verdict.Finding, string, error) {
	sk, err := skips(root)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", t.Scanner.Name, err)
	}
	dir, done, err := view(root, sk)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", t.Scanner.Name, err)
	}
	defer done()
	findings, err := t.run(ctx, dir, ".")
	for i := range findings {
		f := relativeTo(sandbox.ProjectDir, sarif.NormalizePath(findings[i].File)) // as the sandbox showed it
		findings[i].File = relativeTo(root, relativeTo(dir, f))
	}
	return findings, skipNote(sk), err
}

// countVerdict: vul when some finding counts; the CWEs are those of the findings that count.
func countVerdict(findings []verdict.Finding, counts func(verdict.Finding) bool) verdict.Verdict {
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0), ScoreSource: verdict.FromTool, Findings: findings}
	var notes []string
	seen := map[string]bool{}
	for _, f := range findings {
		if counts != nil && !counts(f) {
			continue
		}
		v.Label, v.Score = suite.Vul, verdict.Float(1)
		notes = append(notes, fmt.Sprintf("line %d: %s (%s)", f.StartLine, f.Rule, f.Severity))
		for _, w := range f.CWE {
			if !seen[w] {
				seen[w] = true
				v.CWE = append(v.CWE, w)
			}
		}
	}
	if len(notes) == 0 {
		v.Explanation = fmt.Sprintf("%d reports, none an error or warning about the code", len(findings))
	} else {
		v.Explanation = strings.Join(notes, "; ")
	}
	return v
}

// levelVerdict: vul when some hit reaches minLevel; the score is the highest level / 5;
// the CWEs are those of the highest-level hits (Severity holds each hit's level).
func levelVerdict(findings []verdict.Finding, minLevel int) verdict.Verdict {
	max := -1
	for _, f := range findings {
		if l := level(f); l > max {
			max = l
		}
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0), ScoreSource: verdict.FromTool}
	for _, f := range findings {
		f.File = "" // the temporary file's name says nothing
		v.Findings = append(v.Findings, f)
	}
	// Highest level first, as flawfinder's CSV listed them (its SARIF lists them by line).
	slices.SortStableFunc(v.Findings, func(a, b verdict.Finding) int { return level(b) - level(a) })
	if max < 0 {
		v.Explanation = "no hits"
		return v
	}
	v.Score = verdict.Float(float64(max) / 5)
	if max >= minLevel {
		v.Label = suite.Vul
	}
	seen := map[string]bool{}
	var notes []string
	for _, f := range findings {
		if level(f) != max {
			continue
		}
		notes = append(notes, fmt.Sprintf("line %d: %s (level %d)", f.StartLine, f.Rule, max))
		for _, w := range f.CWE {
			if !seen[w] {
				seen[w] = true
				v.CWE = append(v.CWE, w)
			}
		}
	}
	v.Explanation = fmt.Sprintf("%d hits; highest level %d: %s", len(findings), max, strings.Join(notes, "; "))
	return v
}

// level is a flawfinder finding's hit level (its Severity).
func level(f verdict.Finding) int {
	l, err := strconv.Atoi(f.Severity)
	if err != nil {
		return -1
	}
	return l
}

// matchVerdict turns a case's match into a verdict (as sarif:FILE does).
func matchVerdict(cm sarif.CaseMatch, cand []verdict.Finding, span sarif.Span) verdict.Verdict {
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0), ScoreSource: verdict.FromTool}
	if !cm.Vul(sarif.Unrelated) {
		v.Explanation = fmt.Sprintf("no finding at %s (matcher %d)", describeSpan(span), sarif.MatcherVersion)
		return v
	}
	v.Label, v.Score = suite.Vul, verdict.Float(1)
	seen := map[string]bool{}
	for k, i := range cm.Findings {
		f := cand[i]
		f.Tier = cm.Tiers[k].String() // verdict.TierExact, TierRelated or TierUnrelated
		v.Findings = append(v.Findings, f)
		for _, c := range f.CWE {
			if !seen[c] {
				seen[c] = true
				v.CWE = append(v.CWE, c)
			}
		}
	}
	v.Explanation = fmt.Sprintf("%d findings at %s; best CWE tier %s (matcher %d)", len(cm.Findings), describeSpan(span), cm.Tier, sarif.MatcherVersion)
	return v
}

// relativeTo makes an absolute file name under root (eslint's SARIF names files by absolute
// file: URI) relative to it, so that it names the file as the case does; other names are kept.
func relativeTo(root, file string) string {
	if !path.IsAbs(file) {
		return file
	}
	roots := []string{root}
	if r, err := filepath.EvalSymlinks(root); err == nil && r != root {
		roots = append(roots, r) // the tool sees the real directory
	}
	for _, r := range roots {
		if rel, err := filepath.Rel(r, filepath.FromSlash(file)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return file
}
