// Package vexmine builds VEX-Bench-style cases from projects' own history (`suite mine vex`), as
// VEX-Bench's §3.2 did by hand: a first-parent commit that raises a dependency in a manifest or
// lockfile from a version an advisory says is affected to one it says is fixed gives a candidate,
// a vex case at the commit before the fix (the affected snapshot) for that vulnerability. The
// paper's filters drop a change that touches only test or example manifests and one that fixes
// more than five CVEs; every dropped candidate is reported with its reason. The cases are
// unlabelled: their category is for annotators (internal/label) to give.
package vexmine

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/osv-scalibr/semantic"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/deps"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Version is bumped whenever the candidates and drops found for the same input may change.
const Version = "1"

// MaxCVEs is the paper's bound: a change fixing more than this many vulnerabilities is dropped.
const MaxCVEs = 5

// Options tune Mine.
type Options struct {
	// Since keeps fixing commits committed at or after it (zero: all).
	Since time.Time
	// Rev is the revision whose first-parent history is walked in every repository ("": HEAD).
	Rev string
	// Jobs is how many repositories are mined at once (0: GOMAXPROCS).
	Jobs int
	// Git is the git program ("": git).
	Git string
	// MaxManifest bounds the bytes of one manifest version read (0: 8 MiB); larger ones are
	// problems of their repository.
	MaxManifest int64
	// MaxMerged bounds the commits of a merge whose messages are searched for the advisory
	// (0: 200).
	MaxMerged int
}

func (o Options) withDefaults() Options {
	if o.Rev == "" {
		o.Rev = "HEAD"
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	if o.Git == "" {
		o.Git = "git"
	}
	if o.MaxManifest <= 0 {
		o.MaxManifest = 8 << 20
	}
	if o.MaxMerged <= 0 {
		o.MaxMerged = 200
	}
	return o
}

// Reason says why a candidate was dropped.
type Reason string

// The reasons, in the order they are tried on a candidate.
const (
	// DropUnparsable: a version of the bump or of an advisory's range is not one the
	// ecosystem's version order reads.
	DropUnparsable Reason = "unparsable_version"
	// DropDowngrade: the change lowers an advised package (it fixes nothing).
	DropDowngrade Reason = "downgrade"
	// DropStillAffected: the new version is still affected: the bump does not cross a fixed version.
	DropStillAffected Reason = "still_affected"
	// DropWithdrawn: every record of the vulnerability was withdrawn.
	DropWithdrawn Reason = "withdrawn"
	// DropTestOnly: only test or example manifests carry the bump (the paper's filter).
	DropTestOnly Reason = "test_or_example_only"
	// DropTooManyCVEs: the change fixes more than MaxCVEs vulnerabilities (the paper's filter).
	DropTooManyCVEs Reason = "more_than_five_cves"
)

// Reasons lists every reason in report order.
var Reasons = []Reason{DropUnparsable, DropDowngrade, DropStillAffected, DropWithdrawn, DropTestOnly, DropTooManyCVEs}

// Bump is one package a change moved from one version to another, in one or more manifests.
type Bump struct {
	Ecosystem string           `json:"ecosystem"`
	Package   string           `json:"package"`
	Old       string           `json:"old_version"`
	New       string           `json:"new_version"`
	Ranged    bool             `json:"ranged,omitempty"` // a version read off a range's lower bound
	Scopes    []string         `json:"scopes,omitempty"` // dev, test, optional groups the manifests name
	Manifests []ManifestChange `json:"manifests"`
}

// ManifestChange is one manifest's lines for a bump: the line naming the old version before the
// change and the new one after it (0 and "" when not found).
type ManifestChange struct {
	Path    string `json:"path"`
	OldLine int    `json:"old_line,omitempty"`
	Old     string `json:"old,omitempty"`
	NewLine int    `json:"new_line,omitempty"`
	New     string `json:"new,omitempty"`
}

// Mined is what a candidate case keeps of its mining, in meta.mined.
type Mined struct {
	Miner      string   `json:"miner"` // vexmine/Version
	FixCommit  string   `json:"fix_commit"`
	FixDate    string   `json:"fix_date"`
	FixMessage string   `json:"fix_message"`
	Vuln       string   `json:"vulnerability"` // the CVE, else the GHSA, else the record's id
	Advisories []string `json:"advisories"`    // every record of it that the bump fixes
	CVEs       []string `json:"cves,omitempty"`
	Bump
	// Others are the other packages the change raised past the same vulnerability.
	Others []Bump `json:"other_bumps,omitempty"`
	// NamesAdvisory says whether the fixing commit's message, or the message of a commit its
	// merge brought in (the pull request's), names the vulnerability or one of its records.
	NamesAdvisory bool   `json:"names_advisory"`
	NamedIn       string `json:"named_in,omitempty"` // "message", or "merged commit ID"
	PullRequest   int    `json:"pull_request,omitempty"`
	PRURL         string `json:"pr_url,omitempty"`
}

// Drop is a candidate left out, with its reason.
type Drop struct {
	Project   string   `json:"project"`
	Commit    string   `json:"commit"` // the changing commit
	Date      string   `json:"date"`
	Vulns     []string `json:"vulnerabilities,omitempty"`
	Reason    Reason   `json:"reason"`
	Detail    string   `json:"detail"`
	Bump      Bump     `json:"bump"`
	Manifests []string `json:"-"`
}

// RepoReport is what was mined of one repository.
type RepoReport struct {
	Repo
	Head            string         `json:"head"`             // the commit walked from
	Commits         int            `json:"commits"`          // first-parent commits walked
	ManifestCommits int            `json:"manifest_commits"` // of those, the ones changing a manifest
	Bumps           int            `json:"bumps"`            // package version changes seen
	Advised         int            `json:"advised_bumps"`    // of those, of a package some advisory names
	Candidates      int            `json:"candidates"`
	Drops           map[Reason]int `json:"drops"`
	// Problems are manifests that could not be read: PATH@COMMIT: why.
	Problems []string `json:"problems,omitempty"`
	// Err says why the repository could not be mined; its other figures are then partial.
	Err string `json:"error,omitempty"`
}

// Report is what Mine found.
type Report struct {
	Repos []RepoReport `json:"repos"`
	// Advisories is how many records were read; AdvisoryProblems those that could not be.
	Advisories       int           `json:"advisories"`
	AdvisoryProblems []error       `json:"-"`
	Cases            []*suite.Case `json:"-"`
	Drops            []Drop        `json:"drops"`
}

// DropCounts sums the drops by reason over the repositories.
func (r *Report) DropCounts() map[Reason]int {
	out := map[Reason]int{}
	for _, d := range r.Drops {
		out[d.Reason]++
	}
	return out
}

// Mine walks the first-parent history of every repository found under reposDir (Discover) and
// returns the candidates, as unlabelled vex cases sorted by project and fixing date, and the
// drops. A repository that cannot be read is reported (RepoReport.Err) and the others are
// mined; only a cancelled ctx or unreadable advisories stop it.
func Mine(ctx context.Context, reposDir string, db *advisory.DB, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	repos, err := Discover(reposDir)
	if err != nil {
		return nil, err
	}
	if len(repos) == 0 {
		return nil, fmt.Errorf("--repos %s holds no git repository (layouts: DIR/HOST/OWNER/NAME, DIR/OWNER/NAME, DIR/OWNER+NAME, DIR/NAME)", reposDir)
	}
	ix, problems, err := newIndex(db)
	if err != nil {
		return nil, fmt.Errorf("advisories: %w", err)
	}
	rep := &Report{Advisories: ix.records, AdvisoryProblems: append(slices.Clone(db.Problems()), problems...)}
	results := make([]repoResult, len(repos))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(opts.Jobs, len(repos)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = mineRepo(ctx, repos[i], ix, opts)
			}
		}()
	}
	for i := range repos {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, r := range results {
		rep.Repos = append(rep.Repos, r.report)
		rep.Cases = append(rep.Cases, r.cases...)
		rep.Drops = append(rep.Drops, r.drops...)
	}
	uniqueIDs(rep.Cases)
	return rep, nil
}

type repoResult struct {
	report RepoReport
	cases  []*suite.Case
	drops  []Drop
}

// miner is the state of one repository's mining.
type miner struct {
	ctx  context.Context
	repo Repo
	ix   *index
	opts Options
	g    *repoGit
	rep  *RepoReport
	// last keeps each manifest path's most recently read version: walking back, a change's old
	// version is the next older change's new one.
	last map[string]*parsed
	res  repoResult
}

// parsed is one manifest version, read.
type parsed struct {
	oid   string
	lines []string
	deps  []deps.Dependency
	err   error
}

func mineRepo(ctx context.Context, r Repo, ix *index, opts Options) repoResult {
	m := &miner{ctx: ctx, repo: r, ix: ix, opts: opts, last: map[string]*parsed{}}
	m.res.report = RepoReport{Repo: r, Drops: map[Reason]int{}}
	m.rep = &m.res.report
	g, err := openGit(ctx, opts.Git, r.Dir)
	if err != nil {
		m.rep.Err = err.Error()
		return m.res
	}
	defer g.close()
	m.g = g
	head, err := g.resolve(ctx, opts.Rev)
	if err != nil {
		m.rep.Err = err.Error()
		return m.res
	}
	m.rep.Head = head
	keep := func(p string) bool { return deps.ManifestKind(p) != "" }
	walked, err := g.walk(ctx, head, opts.Since, keep, m.commit)
	m.rep.Commits = walked
	if err != nil && ctx.Err() == nil {
		m.rep.Err = err.Error()
	}
	for _, d := range m.res.drops {
		m.rep.Drops[d.Reason]++
	}
	m.rep.Candidates = len(m.res.cases)
	slices.SortStableFunc(m.res.cases, func(a, b *suite.Case) int { return strings.Compare(fixDate(a), fixDate(b)) })
	return m.res
}

func fixDate(c *suite.Case) string {
	if mi, ok := c.Meta["mined"].(*Mined); ok {
		return mi.FixDate
	}
	return ""
}

// read returns the manifest p at blob oid, read ("" oid: absent).
func (m *miner) read(p, oid string) *parsed {
	if oid == "" {
		return &parsed{}
	}
	if x := m.last[p]; x != nil && x.oid == oid {
		return x
	}
	x := &parsed{oid: oid}
	typ, size, data, err := m.g.object(oid, m.opts.MaxManifest)
	switch {
	case err != nil:
		x.err = err
	case typ != "blob":
		x.err = fmt.Errorf("object %s is a %s, not a file", oid, typ)
	case data == nil:
		x.err = fmt.Errorf("%d bytes, over the %d byte limit for a manifest", size, m.opts.MaxManifest)
	default:
		x.lines = strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
		x.deps, x.err = deps.ExtractFile(m.ctx, p, data)
	}
	m.last[p] = x
	return x
}

func (m *miner) problem(p, commit string, err error) {
	if len(m.rep.Problems) < 100 {
		m.rep.Problems = append(m.rep.Problems, fmt.Sprintf("%s@%s: %v", p, short(commit), err))
	}
}

func short(id string) string { return id[:min(len(id), 12)] }

// commit looks at one first-parent commit that changed manifests.
func (m *miner) commit(c *commit) error {
	if err := m.ctx.Err(); err != nil {
		return err
	}
	m.rep.ManifestCommits++
	if len(c.parents) == 0 {
		return nil // the first commit raises nothing
	}
	var bumps []*Bump
	for _, f := range c.files {
		nw := m.read(f.path, f.new) // the newer version first: it is the cached one
		old := m.read(f.path, f.old)
		if nw.err != nil {
			m.problem(f.path, c.id, nw.err)
			continue
		}
		if old.err != nil {
			m.problem(f.path, c.parents[0], old.err)
			continue
		}
		bumps = mergeBumps(bumps, fileBumps(f.path, old, nw))
	}
	m.rep.Bumps += len(bumps)
	type fix struct {
		bump *Bump
		vuln string
		recs []*record
	}
	var fixes []fix
	var drops []Drop
	vulns := map[string]bool{}
	for _, b := range bumps {
		recs := m.ix.of(b.Ecosystem, b.Package)
		if len(recs) == 0 {
			continue
		}
		m.rep.Advised++
		ev := evaluate(b, recs)
		for _, d := range ev.drops {
			drops = append(drops, m.drop(c, *b, d.vulns, d.reason, d.detail))
		}
		for _, f := range ev.fixed {
			fixes = append(fixes, fix{b, f.key, f.recs})
			vulns[f.key] = true
		}
	}
	// One candidate per vulnerability: a vulnerability of several packages bumped together
	// (a module and its sibling) is one case, of its first package, with the others kept.
	var order []string
	groups := map[string][]fix{}
	for _, f := range fixes {
		if groups[f.vuln] == nil {
			order = append(order, f.vuln)
		}
		groups[f.vuln] = append(groups[f.vuln], f)
	}
	var msg string
	var date time.Time
	for _, k := range order {
		g := groups[k]
		var all []ManifestChange
		var recs []*record
		var others []Bump
		for i, f := range g {
			all = append(all, f.bump.Manifests...)
			recs = append(recs, f.recs...)
			if i > 0 {
				others = append(others, *f.bump)
			}
		}
		b := g[0].bump
		switch {
		case testOnly(all):
			drops = append(drops, m.drop(c, *b, []string{k}, DropTestOnly, "only "+strings.Join(paths(all), ", ")+" changed"))
			continue
		case len(vulns) > MaxCVEs:
			drops = append(drops, m.drop(c, *b, []string{k}, DropTooManyCVEs,
				fmt.Sprintf("the change fixes %d vulnerabilities: %s", len(vulns), strings.Join(sortedKeys(vulns), ", "))))
			continue
		}
		if msg == "" {
			var err error
			if msg, err = m.g.message(c.id); err != nil {
				return fmt.Errorf("commit %s: %w", c.id, err)
			}
			if _, date, err = m.g.commitInfo(c.parents[0]); err != nil {
				return fmt.Errorf("commit %s: %w", c.parents[0], err)
			}
		}
		m.res.cases = append(m.res.cases, m.candidate(c, msg, date, b, k, recs, others))
	}
	// Oldest commit first, as the cases; a commit's drops by package, reason and vulnerabilities.
	slices.SortStableFunc(drops, func(a, b Drop) int {
		if c := strings.Compare(a.Bump.Package, b.Bump.Package); c != 0 {
			return c
		}
		if c := slices.Index(Reasons, a.Reason) - slices.Index(Reasons, b.Reason); c != 0 {
			return c
		}
		return strings.Compare(strings.Join(a.Vulns, " "), strings.Join(b.Vulns, " "))
	})
	m.res.drops = append(drops, m.res.drops...)
	return nil
}

func (m *miner) drop(c *commit, b Bump, vulns []string, r Reason, detail string) Drop {
	return Drop{Project: m.repo.Project, Commit: c.id, Date: c.time.Format(time.RFC3339), Vulns: vulns, Reason: r, Detail: detail, Bump: b}
}

func paths(ms []ManifestChange) []string {
	var out []string
	for _, x := range ms {
		out = append(out, x.Path)
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// testDirs are directory names that make a manifest a test's or an example's.
var testDirs = map[string]bool{"test": true, "tests": true, "testing": true, "testdata": true, "test-data": true,
	"__tests__": true, "spec": true, "e2e": true, "integration-tests": true, "integration_tests": true, "it": true,
	"fixtures": true, "example": true, "examples": true, "_examples": true, "sample": true, "samples": true,
	"demo": true, "demos": true}

// testOnly reports whether every manifest lies in a test or example directory.
func testOnly(ms []ManifestChange) bool {
	for _, x := range ms {
		dir := path.Dir(x.Path)
		in := false
		for _, el := range strings.Split(dir, "/") {
			if testDirs[strings.ToLower(el)] {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return len(ms) > 0
}

// versioned is one package's versions in one manifest version, with the line of each.
type versioned struct {
	eco, name string
	ranged    bool
	scopes    []string
	lines     map[string]int // version -> line
}

func byPackage(x *parsed) map[string]*versioned {
	out := map[string]*versioned{}
	for _, d := range x.deps {
		if !slices.Contains(Ecosystems, d.Ecosystem) || d.Name == "" || d.Ecosystem == "Go" && d.Name == "stdlib" && !toolchainLine(x.lines, d.Line) {
			continue
		}
		v, ranged := deps.Floor(d)
		if v == "" {
			continue
		}
		k := pkgKey(d.Ecosystem, d.Name)
		p := out[k]
		if p == nil {
			p = &versioned{eco: d.Ecosystem, name: d.Name, lines: map[string]int{}}
			out[k] = p
		}
		p.ranged = p.ranged || ranged
		for _, s := range d.Scopes {
			if !slices.Contains(p.scopes, s) {
				p.scopes = append(p.scopes, s)
			}
		}
		if _, ok := p.lines[v]; !ok {
			p.lines[v] = d.Line
		}
	}
	return out
}

// toolchainLine reports whether line n of a go.mod is its toolchain directive: the Go release
// that builds the module, whose standard library it runs. The go directive is the language
// version the code needs, not the one it is built with, and does not count as the stdlib's.
func toolchainLine(lines []string, n int) bool {
	return n > 0 && n <= len(lines) && strings.HasPrefix(strings.TrimSpace(lines[n-1]), "toolchain")
}

// fileBumps are the packages whose versions one manifest change moved: a version gone and
// another come (the highest gone, the lowest come). A package added or removed is no bump.
func fileBumps(p string, old, nw *parsed) []*Bump {
	before, after := byPackage(old), byPackage(nw)
	var out []*Bump
	gone, come := changedLines(old.lines, nw.lines)
	for k, a := range before {
		b := after[k]
		if b == nil {
			continue
		}
		var removed, added []string
		for v := range a.lines {
			if _, ok := b.lines[v]; !ok {
				removed = append(removed, v)
			}
		}
		for v := range b.lines {
			if _, ok := a.lines[v]; !ok {
				added = append(added, v)
			}
		}
		if len(removed) == 0 || len(added) == 0 {
			continue
		}
		sortVersions(a.eco, removed)
		sortVersions(a.eco, added)
		ov, nv := removed[len(removed)-1], added[0]
		mc := ManifestChange{Path: p}
		mc.OldLine, mc.Old = lineOf(old.lines, gone, a.name, ov, a.lines[ov])
		mc.NewLine, mc.New = lineOf(nw.lines, come, b.name, nv, b.lines[nv])
		scopes := append(slices.Clone(a.scopes), b.scopes...)
		slices.Sort(scopes)
		out = append(out, &Bump{Ecosystem: a.eco, Package: b.name, Old: ov, New: nv, Ranged: a.ranged || b.ranged,
			Scopes: slices.Compact(scopes), Manifests: []ManifestChange{mc}})
	}
	slices.SortFunc(out, func(x, y *Bump) int { return strings.Compare(x.Package, y.Package) })
	return out
}

// changedLines are the line numbers (1-based) present on one side only, by text.
func changedLines(old, nw []string) (gone, come []int) {
	count := map[string]int{}
	for _, l := range nw {
		count[l]++
	}
	for i, l := range old {
		if count[l] > 0 {
			count[l]--
			continue
		}
		gone = append(gone, i+1)
	}
	count = map[string]int{}
	for _, l := range old {
		count[l]++
	}
	for i, l := range nw {
		if count[l] > 0 {
			count[l]--
			continue
		}
		come = append(come, i+1)
	}
	return gone, come
}

// lineOf is the manifest line that states version v of package name: a changed line holding
// both (a version on its own line, as a pom.xml property's, when none does), else the parser's
// line for the package.
func lineOf(lines []string, changed []int, name, v string, fallback int) (int, string) {
	re := regexp.MustCompile(`(^|[^0-9A-Za-z.])v?` + regexp.QuoteMeta(v) + `($|[^0-9A-Za-z.])`)
	names := nameForms(name)
	var versionOnly int
	for _, n := range changed {
		l := lines[n-1]
		if !re.MatchString(l) {
			continue
		}
		low := strings.ToLower(l)
		for _, f := range names {
			if strings.Contains(low, f) {
				return n, strings.TrimSpace(l)
			}
		}
		if versionOnly == 0 {
			versionOnly = n
		}
	}
	if fallback > 0 && fallback <= len(lines) && re.MatchString(lines[fallback-1]) {
		return fallback, strings.TrimSpace(lines[fallback-1])
	}
	if versionOnly > 0 {
		return versionOnly, strings.TrimSpace(lines[versionOnly-1])
	}
	if fallback > 0 && fallback <= len(lines) {
		return fallback, strings.TrimSpace(lines[fallback-1])
	}
	return 0, ""
}

// nameForms are the lower-case ways a manifest line may write a package name: as given, a
// Maven artifact alone, a PyPI name with - and _ swapped.
func nameForms(name string) []string {
	low := strings.ToLower(name)
	out := []string{low}
	if _, a, ok := strings.Cut(low, ":"); ok {
		out = append(out, a)
	}
	if strings.ContainsAny(low, "-_") {
		out = append(out, strings.ReplaceAll(low, "-", "_"), strings.ReplaceAll(low, "_", "-"))
	}
	return out
}

// mergeBumps adds bs to acc, one bump per package and versions with every manifest that made it.
func mergeBumps(acc []*Bump, bs []*Bump) []*Bump {
	for _, b := range bs {
		i := slices.IndexFunc(acc, func(a *Bump) bool {
			return a.Ecosystem == b.Ecosystem && deps.Normalize(a.Ecosystem, a.Package) == deps.Normalize(b.Ecosystem, b.Package) && a.Old == b.Old && a.New == b.New
		})
		if i < 0 {
			acc = append(acc, b)
			continue
		}
		acc[i].Manifests = append(acc[i].Manifests, b.Manifests...)
		acc[i].Ranged = acc[i].Ranged || b.Ranged
		acc[i].Scopes = slices.Compact(slices.Sorted(slices.Values(append(acc[i].Scopes, b.Scopes...))))
	}
	return acc
}

// sortVersions sorts versions in the ecosystem's order (those it cannot read by text, first).
func sortVersions(eco string, vs []string) {
	slices.SortFunc(vs, func(a, b string) int {
		c, err := compare(eco, a, b)
		if err != nil {
			return strings.Compare(a, b)
		}
		return c
	})
}

// compare orders two versions of ecosystem eco.
func compare(eco, a, b string) (int, error) {
	va, err := semantic.Parse(strings.TrimPrefix(a, "v"), eco)
	if err != nil {
		return 0, fmt.Errorf("version %q of %s: %w", a, eco, err)
	}
	return va.CompareStr(strings.TrimPrefix(b, "v"))
}

// verdictOf is what the advisories say of one bump.
type verdictOf struct {
	fixed []fixedVuln
	drops []dropped
}

type fixedVuln struct {
	key  string
	recs []*record
}

type dropped struct {
	vulns  []string
	reason Reason
	detail string
}

// evaluate sorts a bump's vulnerabilities: fixed (the old version affected by a record, the new
// by none), still affected, withdrawn; or the bump is a downgrade or has a version no order reads.
func evaluate(b *Bump, recs []*record) verdictOf {
	var v verdictOf
	c, err := compare(b.Ecosystem, b.New, b.Old)
	if err != nil {
		v.drops = append(v.drops, dropped{keysOf(recs), DropUnparsable, err.Error()})
		return v
	}
	if c == 0 {
		return v // the same version written two ways
	}
	byKey := map[string][]*record{}
	var keys []string
	for _, r := range recs {
		if byKey[r.key] == nil {
			keys = append(keys, r.key)
		}
		byKey[r.key] = append(byKey[r.key], r)
	}
	slices.Sort(keys)
	var still, downgraded, withdrawn []string
	var still1, down1 string
	for _, k := range keys {
		var oldAff, newAff, live bool
		var oldBy []*record
		var perr error
		for _, r := range byKey[k] {
			oa, err1 := deps.Affects(b.Ecosystem, b.Old, r.affected)
			na, err2 := deps.Affects(b.Ecosystem, b.New, r.affected)
			if err := errors.Join(err1, err2); err != nil {
				perr = fmt.Errorf("%s: %w", r.id, err)
				continue
			}
			if r.withdrawn {
				continue
			}
			live = live || oa || na
			if oa {
				oldAff = true
				oldBy = append(oldBy, r)
			}
			newAff = newAff || na
		}
		switch {
		case perr != nil && !oldAff && !newAff:
			v.drops = append(v.drops, dropped{[]string{k}, DropUnparsable, perr.Error()})
		case c < 0 && (oldAff || newAff):
			downgraded = append(downgraded, k)
			if down1 == "" {
				down1 = affectedText(b, byKey[k], oldAff, newAff)
			}
		case c < 0:
		case oldAff && !newAff:
			v.fixed = append(v.fixed, fixedVuln{k, oldBy})
		case oldAff && newAff:
			still = append(still, k)
			if still1 == "" {
				still1 = fmt.Sprintf("%s %s is still affected by %s", b.Package, b.New, recIDs(byKey[k]))
			}
		case !live && withdrawnAffects(b, byKey[k]):
			withdrawn = append(withdrawn, k)
		}
	}
	if len(downgraded) > 0 {
		v.drops = append(v.drops, dropped{downgraded, DropDowngrade, fmt.Sprintf("%s lowered from %s to %s; %s", b.Package, b.Old, b.New, down1)})
	}
	if len(still) > 0 {
		v.drops = append(v.drops, dropped{still, DropStillAffected, still1 + more(len(still))})
	}
	if len(withdrawn) > 0 {
		v.drops = append(v.drops, dropped{withdrawn, DropWithdrawn, "every record of " + strings.Join(withdrawn, ", ") + " was withdrawn"})
	}
	return v
}

func more(n int) string {
	if n > 1 {
		return fmt.Sprintf(" (and %d more)", n-1)
	}
	return ""
}

func affectedText(b *Bump, recs []*record, oldAff, newAff bool) string {
	switch {
	case oldAff && newAff:
		return "both affected by " + recIDs(recs)
	case newAff:
		return b.New + " is affected by " + recIDs(recs)
	}
	return b.Old + " was affected by " + recIDs(recs)
}

// withdrawnAffects reports whether a withdrawn record of the vulnerability would have said the
// bump fixed it.
func withdrawnAffects(b *Bump, recs []*record) bool {
	for _, r := range recs {
		oa, err := deps.Affects(b.Ecosystem, b.Old, r.affected)
		if err == nil && oa && r.withdrawn {
			return true
		}
	}
	return false
}

func recIDs(recs []*record) string {
	var ids []string
	for _, r := range recs {
		if !slices.Contains(ids, r.id) {
			ids = append(ids, r.id)
		}
	}
	slices.Sort(ids)
	return strings.Join(ids, ", ")
}

func keysOf(recs []*record) []string {
	var out []string
	for _, r := range recs {
		if !slices.Contains(out, r.key) {
			out = append(out, r.key)
		}
	}
	slices.Sort(out)
	return out
}

// languages maps an ecosystem to the language of its cases (VEX-Bench's names).
var languages = map[string]string{"Go": "go", "PyPI": "python", "Maven": "java", "npm": "javascript"}

// candidate makes the case of one fixed vulnerability.
func (m *miner) candidate(c *commit, msg string, parentDate time.Time, b *Bump, vuln string, recs []*record, others []Bump) *suite.Case {
	parent := c.parents[0]
	var ids, cves []string
	for _, r := range recs {
		if !slices.Contains(ids, r.id) {
			ids = append(ids, r.id)
		}
		for _, x := range r.cves {
			if !slices.Contains(cves, x) {
				cves = append(cves, x)
			}
		}
	}
	slices.Sort(ids)
	slices.Sort(cves)
	mi := &Mined{Miner: "vexmine/" + Version, FixCommit: c.id, FixDate: c.time.Format(time.RFC3339),
		FixMessage: clipText(msg, 4096), Vuln: vuln, Advisories: ids, CVEs: cves, Bump: *b, Others: others}
	names := append([]string{vuln}, cves...)
	for _, r := range recs {
		names = append(names, r.id)
		names = append(names, r.aliases...)
	}
	if mentions(msg, names) {
		mi.NamesAdvisory, mi.NamedIn = true, "message"
	} else if merged, err := m.g.merged(m.ctx, c, m.opts.MaxMerged); err == nil {
		for _, id := range merged {
			if text, err := m.g.message(id); err == nil && mentions(text, names) {
				mi.NamesAdvisory, mi.NamedIn = true, "merged commit "+id
				break
			}
		}
	}
	if n := prNumber(msg); n > 0 {
		mi.PullRequest = n
		if strings.HasPrefix(m.repo.URL, "https://github.com/") {
			mi.PRURL = m.repo.URL + "/pull/" + strconv.Itoa(n)
		}
	}
	owner, name, _ := strings.Cut(m.repo.Project, "/")
	id := fmt.Sprintf("%s-%s-%s-%s", owner, strings.ReplaceAll(name, "/", "-"), parent[:min(7, len(parent))], vuln)
	cs := &suite.Case{ID: id, Kind: suite.KindVEX, Project: m.repo.Project, Commit: parent,
		Date: parentDate.UTC().Format(time.RFC3339), Language: languages[b.Ecosystem], CVE: vuln,
		Repo:   &suite.Repo{URL: m.repo.URL, Commit: parent},
		VEX:    &suite.VEX{Package: b.Package, Ecosystem: b.Ecosystem, Advisory: ids[0]},
		Source: map[string]any{"miner": "vexmine", "fix_commit": c.id},
		Meta:   map[string]any{"mined": mi},
	}
	return cs
}

// mentions reports whether text names one of ids, as a whole word, case-insensitively.
func mentions(text string, ids []string) bool {
	low := strings.ToLower(text)
	for _, id := range ids {
		id = strings.ToLower(strings.TrimSpace(id))
		if id == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(low[i:], id)
			if j < 0 {
				break
			}
			at := i + j
			end := at + len(id)
			if (at == 0 || !idChar(low[at-1])) && (end == len(low) || !idChar(low[end])) {
				return true
			}
			i = at + 1
		}
	}
	return false
}

func idChar(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b == '-' }

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// uniqueIDs makes repeated case ids unique with a -2, -3 ... suffix, in order.
func uniqueIDs(cs []*suite.Case) {
	seen := map[string]int{}
	for _, c := range cs {
		seen[c.ID]++
		if n := seen[c.ID]; n > 1 {
			c.ID += "-" + strconv.Itoa(n)
		}
	}
}
