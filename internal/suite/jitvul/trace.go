// Package jitvul builds JitVul pairs from git history (`vulnbench suite jit`) and imports the
// public JitVul benchmark (`vulnbench suite import jitvul`).
//
// The construction rule (SPEC section 2): f_ben is the target function at the fix commit, f_vul
// the same function at the fix's first parent. The vulnerability-introducing commit is found by
// walking back along first parents from the fix's parent while the exact f_vul text is still in
// the file at that path; the introducing commit is the last (oldest) one that has it, i.e. the
// commit that wrote f_vul into its final form. A walk that meets the file's creation, a rename or
// the function's move from another file stops there and says so. Blobs are read through one
// long-lived `git cat-file --batch` per repository; the commit lists come from
// `git rev-list --first-parent` and `git log --first-parent -- PATH`; nothing is checked out.
package jitvul

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Version is bumped whenever the same history may give other cases.
const Version = "1"

// Rule states the construction rule, for --help and the cases' meta.
const Rule = "f_ben = the function at the fix; f_vul = the function at the fix's first parent; " +
	"the introducing commit is found by walking first parents back from the fix's parent while the exact f_vul text " +
	"is still in the file at that path: it is the oldest commit of that run (the one that wrote the f_vul text); " +
	"the walk stops at the file's creation, a rename or the function's move from another file, and says so"

// Defaults of Options.
const (
	DefaultMaxCommits  = 5000
	DefaultMaxFileSize = 8 << 20
)

// Options tune a Session.
type Options struct {
	MaxCommits  int    // first-parent commits walked back from the fix's parent at most; default 5000
	MaxFileSize int64  // larger files are refused; default 8 MiB
	Git         string // the git binary; default "git"
	Workers     int    // Batch: records traced at once; default GOMAXPROCS
}

func (o Options) withDefaults() Options {
	if o.MaxCommits <= 0 {
		o.MaxCommits = DefaultMaxCommits
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.Git == "" {
		o.Git = "git"
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Reason says why a record gave no pair.
type Reason string

// The reasons a record is dropped.
const (
	ReasonBadInput         Reason = "bad input"          // a commit or path that cannot be used
	ReasonNoRepository     Reason = "repository missing" // not under --repos
	ReasonNoCommit         Reason = "commit missing"     // the fix (or its parent) is not in the repository
	ReasonRootFix          Reason = "fix has no parent"  // the fix is a root commit
	ReasonFileDeleted      Reason = "file deleted by the fix"
	ReasonFileNotInParent  Reason = "file added by the fix"
	ReasonNotAFile         Reason = "not a regular file" // a symlink, submodule or directory
	ReasonUnreadable       Reason = "file not readable"  // binary, too large, skipped by the code graph
	ReasonFunctionNotFound Reason = "function not found"
	ReasonFunctionDeleted  Reason = "function deleted by the fix"
	ReasonIdentical        Reason = "identical halves"
	ReasonHistoryLimit     Reason = "f_vul never changes within the history limit"
	ReasonDuplicate        Reason = "duplicate record"
)

// DropError is a record that gives no pair, and why.
type DropError struct {
	Reason Reason
	Detail string
}

func (e *DropError) Error() string { return string(e.Reason) + ": " + e.Detail }

func drop(r Reason, format string, args ...any) error {
	return &DropError{Reason: r, Detail: fmt.Sprintf(format, args...)}
}

// Stop says where a walk ended.
type Stop string

// The ways a walk ends with an introducing commit.
const (
	StopChanged   Stop = "text first appears"  // the commit before had the function with other text
	StopAdded     Stop = "function added"      // the commit before had no such function in the file
	StopFileAdded Stop = "file added"          // the commit created the file (not a rename)
	StopRenamed   Stop = "file renamed"        // the commit renamed the file to this path: the walk does not follow
	StopMoved     Stop = "function moved"      // the f_vul text was in another file before the commit
	StopRoot      Stop = "history ends"        // the chain ended (a shallow clone) with the text still there
	StopNotFile   Stop = "path was not a file" // the commit turned a symlink or submodule into this file
	StopUnread    Stop = "previous unreadable" // the version before was binary or too large
)

// Request is one fix to trace.
type Request struct {
	URL      string // repo.url of the cases
	Fix      string // the fix commit
	File     string // slash-separated path in the repository
	Function string // the target function's name (or qualified name)
	// BenFunction is the function's name at the fix when the fix renamed it; "" when it is
	// Function. The walk back from the fix's parent looks for Function.
	BenFunction string
	CWE         []string
	CVE         string
	Pair        string         // pair id; default derived from the project, the fix and the function
	Source      map[string]any // the record's identifiers, copied into both cases
}

// Walk is how the walk for one pair went; it is stored in both cases' meta as "jit".
type Walk struct {
	Fix           string `json:"fix_commit"`
	Parent        string `json:"parent_commit"`
	Intro         string `json:"introducing_commit"`
	CommitsWalked int    `json:"commits_walked"` // first-parent commits from the fix's parent to the introducing commit, both counted
	MergesPassed  int    `json:"merges_passed"`  // merge commits among them
	FileChanges   int    `json:"file_changes"`   // of them, the commits that changed the file
	Stop          Stop   `json:"stop_reason"`
	From          string `json:"from,omitempty"` // the path the file was renamed from, or the function moved from
	// WhitespaceOnly says the commit before the introducing one had the function with the same
	// text up to whitespace: the introducing commit only reformatted it.
	WhitespaceOnly bool   `json:"whitespace_only_change,omitempty"`
	File           string `json:"file,omitempty"` // the path used, when the record's file name was resolved to it
	MaxCommits     int    `json:"max_commits"`
}

// Pair is the result of tracing one fix.
type Pair struct {
	Vul, Ben *suite.Case
	Walk     Walk
}

// WriteSuite writes the pair as a suite of two cases: to path (replaced atomically), or to w
// when path is "".
func (p *Pair) WriteSuite(w io.Writer, path string) error {
	write := func(w io.Writer) error {
		sw := suite.NewWriter(w)
		if err := sw.Write(p.Vul); err != nil {
			return err
		}
		if err := sw.Write(p.Ben); err != nil {
			return err
		}
		return sw.Flush()
	}
	if path == "" {
		return write(w)
	}
	return suite.WriteFileAtomic(path, write)
}

// Session traces fixes; it keeps one cat-file process per repository and a pool of code-graph
// file indexers. Close it.
type Session struct {
	opts  Options
	mu    sync.Mutex
	repos map[string]*repo
	pool  chan *codegraph.FileIndexer
	cache *parseCache
}

// NewSession returns a session with opts.
func NewSession(opts Options) *Session {
	opts = opts.withDefaults()
	return &Session{opts: opts, repos: map[string]*repo{}, pool: make(chan *codegraph.FileIndexer, opts.Workers),
		cache: newParseCache(defaultParseCacheBytes)}
}

// Close ends every git process and frees the indexers.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, r := range s.repos {
		errs = append(errs, r.close())
	}
	s.repos = map[string]*repo{}
	for {
		select {
		case fi := <-s.pool:
			fi.Close()
		default:
			return errors.Join(errs...)
		}
	}
}

// repo returns the cat-file process of dir, starting it the first time. The process outlives
// ctx: it belongs to the session.
func (s *Session) repo(dir string) (*repo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.repos[dir]; ok {
		return r, nil
	}
	r, err := openRepo(context.Background(), s.opts.Git, dir)
	if err != nil {
		return nil, err
	}
	s.repos[dir] = r
	return r, nil
}

// NormalizeSpace removes every white-space character: two functions equal after it differ only
// in layout (the JitVul paper's "identical after whitespace normalisation").
func NormalizeSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// checkRef refuses a commit or path from a record that could be read as an option or escape the
// batch protocol.
func checkRef(what, s string) error {
	switch {
	case s == "":
		return drop(ReasonBadInput, "no %s given", what)
	case strings.HasPrefix(s, "-"):
		return drop(ReasonBadInput, "%s %q begins with '-'", what, s)
	case strings.ContainsAny(s, "\n\r\x00"):
		return drop(ReasonBadInput, "%s %q has a newline or NUL", what, s)
	}
	return nil
}

func checkPath(p string) error {
	if err := checkRef("file", p); err != nil {
		return err
	}
	if path.IsAbs(p) || strings.Contains(p, "\\") || path.Clean(p) != p || p == "." || strings.HasPrefix(p, "../") || p == ".." {
		return drop(ReasonBadInput, "file %q is not a clean relative slash-separated path", p)
	}
	return nil
}

// fileAt reads file at commit as text, or says why it cannot.
func (s *Session) fileAt(r *repo, commit, file string) (data []byte, found bool, err error) {
	mode, oid, found, err := r.entry(commit, file)
	if err != nil || !found {
		return nil, found, err
	}
	switch mode {
	case modeFile, modeExec:
	case modeSymlink:
		return nil, true, drop(ReasonNotAFile, "%s is a symbolic link at %s", file, short(commit))
	default:
		return nil, true, drop(ReasonNotAFile, "%s is not a regular file at %s (mode %s)", file, short(commit), mode)
	}
	o, err := r.read(oid, s.opts.MaxFileSize)
	if err != nil {
		return nil, true, err
	}
	if o.data == nil {
		return nil, true, drop(ReasonUnreadable, "%s is %d bytes at %s, over the %d-byte limit", file, o.size, short(commit), s.opts.MaxFileSize)
	}
	if snapshot.IsBinary(o.data) {
		return nil, true, drop(ReasonUnreadable, "%s is a binary file at %s", file, short(commit))
	}
	return o.data, true, nil
}

func short(c string) string { return c[:min(len(c), 12)] }

// Trace builds the pair of one fix in the repository at dir.
func (s *Session) Trace(ctx context.Context, dir string, req Request) (*Pair, error) {
	if err := checkRef("fix commit", req.Fix); err != nil {
		return nil, err
	}
	if err := checkPath(req.File); err != nil {
		return nil, err
	}
	if req.Function == "" {
		return nil, drop(ReasonBadInput, "no function name given")
	}
	r, err := s.repo(dir)
	if err != nil {
		return nil, err
	}
	fix, err := r.commit(req.Fix)
	if errors.Is(err, ErrMissing) {
		return nil, drop(ReasonNoCommit, "commit %s is not in %s (fetch it, or check the record's commit_id)", req.Fix, dir)
	}
	if err != nil {
		return nil, err
	}
	if len(fix.parents) == 0 {
		return nil, drop(ReasonRootFix, "fix %s is a root commit: there is no version before it", short(fix.oid))
	}
	parent, err := r.commit(fix.parents[0])
	if errors.Is(err, ErrMissing) {
		return nil, drop(ReasonNoCommit, "the parent %s of fix %s is not in %s (a shallow clone? fetch more history)", fix.parents[0], short(fix.oid), dir)
	}
	if err != nil {
		return nil, err
	}
	file := req.File
	benSrc, found, err := s.fileAt(r, fix.oid, file)
	if err != nil {
		return nil, err
	}
	resolved := ""
	if !found && !strings.Contains(file, "/") {
		// PrimeVul's file_name may be a base name: use the one file of that name the fix changed.
		if p, ok := s.resolve(ctx, r, parent.oid, fix.oid, file); ok {
			file, resolved = p, p
			if benSrc, found, err = s.fileAt(r, fix.oid, file); err != nil {
				return nil, err
			}
		}
	}
	if !found {
		if _, _, inParent, _ := r.entry(parent.oid, file); inParent {
			return nil, drop(ReasonFileDeleted, "%s is not in fix %s", file, short(fix.oid))
		}
		return nil, drop(ReasonFunctionNotFound, "%s is not in fix %s nor in its parent", file, short(fix.oid))
	}
	vulSrc, found, err := s.fileAt(r, parent.oid, file)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, drop(ReasonFileNotInParent, "%s is not in %s, the parent of fix %s", file, short(parent.oid), short(fix.oid))
	}
	fvul, vulLine, skip, err := s.function(file, vulSrc, req.Function)
	if err != nil {
		return nil, err
	}
	if skip != "" {
		return nil, drop(ReasonUnreadable, "%s at %s: %s", file, short(parent.oid), skip)
	}
	benName := req.Function
	if req.BenFunction != "" {
		benName = req.BenFunction
	}
	fben, benLine, skip, err := s.function(file, benSrc, benName)
	if err != nil {
		return nil, err
	}
	if skip != "" {
		return nil, drop(ReasonUnreadable, "%s at %s: %s", file, short(fix.oid), skip)
	}
	switch {
	case fvul == "" && fben == "":
		return nil, drop(ReasonFunctionNotFound, "no function %s in %s at fix %s or its parent", req.Function, file, short(fix.oid))
	case fvul == "":
		return nil, drop(ReasonFunctionNotFound, "no function %s in %s at %s, the parent of fix %s (the fix added it)", req.Function, file, short(parent.oid), short(fix.oid))
	case fben == "":
		return nil, drop(ReasonFunctionDeleted, "fix %s removed %s from %s", short(fix.oid), benName, file)
	case NormalizeSpace(fvul) == NormalizeSpace(fben):
		return nil, drop(ReasonIdentical, "%s is the same at fix %s and its parent up to whitespace", req.Function, short(fix.oid))
	}
	walk, err := s.walk(ctx, r, parent.oid, file, fvul, req.Function)
	if err != nil {
		return nil, err
	}
	walk.Fix, walk.File = fix.oid, resolved
	intro, err := r.commit(walk.Intro)
	if err != nil {
		return nil, fmt.Errorf("read introducing commit %s: %w", walk.Intro, err)
	}
	// The line of f_vul at the introducing commit: the text is the same, its place may differ.
	introLine := vulLine
	if introSrc, _, err := s.fileAt(r, intro.oid, file); err == nil && introSrc != nil {
		if i := bytes.Index(introSrc, []byte(fvul)); i >= 0 {
			introLine = 1 + bytes.Count(introSrc[:i], []byte("\n"))
		}
	}
	return s.pair(req, file, walk, intro, fix, fvul, fben, introLine, benLine), nil
}

// resolve finds the one file named base that fix changed against parent.
func (s *Session) resolve(ctx context.Context, r *repo, parent, fix, base string) (string, bool) {
	d, err := r.diff(ctx, parent, fix)
	if err != nil {
		return "", false
	}
	var hit []string
	for _, e := range d {
		if path.Base(e.newPath) == base && e.status != 'D' {
			hit = append(hit, e.newPath)
		}
	}
	if len(hit) != 1 {
		return "", false
	}
	return hit[0], true
}

// walk finds the introducing commit of fvul, starting at parent.
func (s *Session) walk(ctx context.Context, r *repo, parent, file, fvul, name string) (Walk, error) {
	w := Walk{Parent: parent, MaxCommits: s.opts.MaxCommits}
	chain, err := r.sharedFirstParents(ctx, parent, s.opts.MaxCommits)
	if err != nil {
		return w, err
	}
	at := make(map[string]int, len(chain))
	for i, l := range chain {
		at[l.oid] = i
	}
	want := []byte(fvul)
	beyond := false
	var walkErr error
	err = r.changes(ctx, parent, file, func(c change) bool {
		i, ok := at[c.commit]
		if !ok {
			beyond = true
			return false
		}
		w.FileChanges++
		stop, from, ws, err := s.before(ctx, r, chain, i, c, file, want, name)
		if err != nil {
			walkErr = err
			return false
		}
		if stop == "" {
			return true
		}
		w.Intro, w.Stop, w.From, w.WhitespaceOnly = c.commit, stop, from, ws
		w.CommitsWalked = i + 1
		return false
	})
	if err == nil {
		err = walkErr
	}
	if err != nil {
		return w, err
	}
	if w.Intro == "" {
		if beyond || len(chain) >= s.opts.MaxCommits {
			return w, drop(ReasonHistoryLimit, "the f_vul text of %s is in %s over all %d commits walked back from %s (raise --max-commits)",
				name, file, len(chain), short(parent))
		}
		last := chain[len(chain)-1]
		w.Intro, w.Stop, w.CommitsWalked = last.oid, StopRoot, len(chain)
	}
	for _, l := range chain[:w.CommitsWalked] {
		if len(l.parents) > 1 {
			w.MergesPassed++
		}
	}
	return w, nil
}

// before looks at the version of file before commit c (chain[i]) changed it: stop is "" when
// the f_vul text is still there, so the walk goes on.
func (s *Session) before(ctx context.Context, r *repo, chain []link, i int, c change, file string, want []byte, name string) (stop Stop, from string, ws bool, err error) {
	if c.status == 'A' || zeroOID(c.oldOID) {
		if len(chain[i].parents) == 0 {
			return StopFileAdded, "", false, nil
		}
		d, err := r.diff(ctx, chain[i].parents[0], c.commit)
		if err != nil {
			return "", "", false, err
		}
		for _, e := range d {
			if e.status == 'R' && e.newPath == file {
				return StopRenamed, e.oldPath, false, nil
			}
		}
		if p, err := s.movedFrom(r, d, file, want); err != nil || p != "" {
			return StopMoved, p, false, err
		}
		return StopFileAdded, "", false, nil
	}
	if c.oldMode != modeFile && c.oldMode != modeExec {
		return StopNotFile, "", false, nil
	}
	o, err := r.read(c.oldOID, s.opts.MaxFileSize)
	if err != nil {
		return "", "", false, err
	}
	if o.data == nil || snapshot.IsBinary(o.data) {
		return StopUnread, "", false, nil
	}
	if bytes.Contains(o.data, want) {
		return "", "", false, nil
	}
	old, _, _, err := s.function(file, o.data, name)
	if err != nil {
		return "", "", false, err
	}
	if old != "" {
		return StopChanged, "", NormalizeSpace(old) == NormalizeSpace(string(want)), nil
	}
	if len(chain[i].parents) > 0 {
		d, err := r.diff(ctx, chain[i].parents[0], c.commit)
		if err != nil {
			return "", "", false, err
		}
		if p, err := s.movedFrom(r, d, file, want); err != nil || p != "" {
			return StopMoved, p, false, err
		}
	}
	return StopAdded, "", false, nil
}

// movedFrom returns another file that held the f_vul text before the commit of d changed it.
func (s *Session) movedFrom(r *repo, d []diffEntry, file string, want []byte) (string, error) {
	looked := 0
	for _, e := range d {
		if e.oldPath == file || zeroOID(e.oldOID) || looked == 100 {
			continue
		}
		looked++
		o, err := r.read(e.oldOID, s.opts.MaxFileSize)
		if err != nil {
			return "", err
		}
		if o.data != nil && bytes.Contains(o.data, want) {
			return e.oldPath, nil
		}
	}
	return "", nil
}

// pair writes the two cases.
func (s *Session) pair(req Request, file string, w Walk, intro, fix commitInfo, fvul, fben string, vulLine, benLine int) *Pair {
	project := projectOf(req.URL)
	id := req.Pair
	if id == "" {
		id = PairID(project, fix.oid, req.Function)
	}
	lang := codegraph.LangOf(file, false).String()
	walkMeta := map[string]any{
		"fix_commit": w.Fix, "parent_commit": w.Parent, "introducing_commit": w.Intro,
		"commits_walked": w.CommitsWalked, "merges_passed": w.MergesPassed, "file_changes": w.FileChanges,
		"stop_reason": string(w.Stop), "max_commits": w.MaxCommits, "rule": Rule, "builder": "vulnbench suite jit " + Version,
	}
	if w.From != "" {
		walkMeta["from"] = w.From
	}
	if w.WhitespaceOnly {
		walkMeta["whitespace_only_change"] = true
	}
	if w.File != "" {
		walkMeta["file_resolved"] = w.File
	}
	mk := func(label suite.Label, c commitInfo, name, code string, line int) *suite.Case {
		src := map[string]any{"dataset": "jit", "fix_commit": fix.oid}
		for k, v := range req.Source {
			src[k] = v
		}
		cs := &suite.Case{
			ID: id + "-" + string(label), Kind: suite.KindJIT, Label: label, Pair: id,
			Project: project, Commit: c.oid, Date: c.date.Format(time.RFC3339), Language: lang,
			CWE: req.CWE, CVE: req.CVE, Code: code,
			Repo:   &suite.Repo{URL: req.URL, Commit: c.oid},
			Target: &suite.Target{File: file, Function: name, Line: line, EndLine: EndLine(line, code)},
			Source: src,
			Meta:   map[string]any{"jit": walkMeta},
		}
		if c.date.IsZero() {
			cs.Date = ""
		}
		return cs
	}
	benName := req.Function
	if req.BenFunction != "" {
		benName = req.BenFunction
		walkMeta["renamed_to"] = benName
	}
	return &Pair{Vul: mk(suite.Vul, intro, req.Function, fvul, vulLine), Ben: mk(suite.Ben, fix, benName, fben, benLine), Walk: w}
}

// EndLine is the last line of code when its first line is line: target.end_line.
func EndLine(line int, code string) int {
	if line <= 0 {
		return 0
	}
	return line + strings.Count(strings.TrimSuffix(code, "\n"), "\n")
}

// projectOf is OWNER/NAME of a repository URL, or its last element.
func projectOf(url string) string {
	u := strings.TrimSuffix(strings.TrimRight(url, "/"), ".git")
	parts := strings.Split(u, "/")
	if len(parts) >= 2 && strings.Contains(url, "://") && len(parts) > 3 {
		return parts[len(parts)-2] + "/" + parts[len(parts)-1]
	}
	return parts[len(parts)-1]
}

// PairID is the pair id of a traced fix: jit-NAME-FIX12-FUNCTION, with characters outside
// [A-Za-z0-9._-] replaced.
func PairID(project, fix, function string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-') {
				return r
			}
			return '_'
		}, s)
	}
	name := project[strings.LastIndexByte(project, '/')+1:]
	return "jit-" + clean(name) + "-" + short(fix) + "-" + clean(function)
}
