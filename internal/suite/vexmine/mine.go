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
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

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
	// Pulls also mines the commits of pull request refs (GitHub's refs/pull/N/head, GitLab's
	// refs/merge-requests/N/head) that the first-parent history does not reach: fixes proposed
	// but squashed, rebased, or never merged, as VEX-Bench mined pull requests.
	Pulls bool
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
	// DropRemoved: the change removed an affected package instead of raising it, and no package
	// it added is a fixed version of the vulnerability's.
	DropRemoved Reason = "removed"
	// DropLanded: with Pulls, a pull request's fix that reached the first-parent history too
	// (squashed or rebased): the mainline's candidate stands for it.
	DropLanded Reason = "landed_on_mainline"
	// DropTestOnly: only test or example manifests carry the bump (the paper's filter).
	DropTestOnly Reason = "test_or_example_only"
	// DropTooManyCVEs: the change fixes more than MaxCVEs vulnerabilities (the paper's filter).
	DropTooManyCVEs Reason = "more_than_five_cves"
)

// Reasons lists every reason in report order.
var Reasons = []Reason{DropUnparsable, DropDowngrade, DropStillAffected, DropWithdrawn, DropRemoved, DropTestOnly, DropTooManyCVEs, DropLanded}

// Bump is one package a change moved from one version to another, in one or more manifests.
type Bump struct {
	Ecosystem string `json:"ecosystem"`
	Package   string `json:"package"`
	// NewPackage is the package that replaced Package when the change swapped one for another
	// that the vulnerability's records name (a Go module's next major version, say).
	NewPackage string           `json:"new_package,omitempty"`
	Old        string           `json:"old_version"`
	New        string           `json:"new_version"`
	Ranged     bool             `json:"ranged,omitempty"` // a version read off a range's lower bound
	Scopes     []string         `json:"scopes,omitempty"` // dev, test, optional groups the manifests name
	Manifests  []ManifestChange `json:"manifests"`
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
	// Ref is the pull request ref the fix was found on (Options.Pulls), "" on the first-parent
	// history.
	Ref   string `json:"ref,omitempty"`
	PRURL string `json:"pr_url,omitempty"`
}

// Hint is a tool's answer on a candidate, in meta.hints under the tool's name: annotators see it
// only when their project shows hints (label init --show-hints); it is never ground truth.
type Hint struct {
	Answer string `json:"answer"` // one of VEX-Bench's categories
	Why    string `json:"why"`
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
	PullCommits     int            `json:"pull_commits"`     // with Pulls: pull request commits walked
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
	if err == nil && opts.Pulls {
		mainline := len(m.res.cases)
		m.rep.PullCommits, err = g.walkPulls(ctx, head, opts.Since, keep, m.commit)
		m.landed(mainline)
	}
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
	var lones []lone
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
		bs, ls := fileBumps(f.path, old, nw)
		bumps = mergeBumps(bumps, bs)
		lones = append(lones, ls...)
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
	for _, r := range m.replacements(bumps, lones) {
		if r.fixed != nil {
			fixes = append(fixes, fix{r.bump, r.fixed.key, r.fixed.recs})
			vulns[r.fixed.key] = true
		} else {
			drops = append(drops, m.drop(c, *r.bump, r.drop.vulns, r.drop.reason, r.drop.detail))
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

// landed drops the pull requests' candidates (those after the first mainline ones) whose fix
// reached the first-parent history as well: the same vulnerability at the same snapshot, or the
// same vulnerability raised to the same version of the same package. Of several pull requests'
// fixes of one vulnerability at one snapshot, the first is kept.
func (m *miner) landed(mainline int) {
	type fixKey struct{ vuln, pkg, version string }
	onMain := map[fixKey]string{}
	atSnapshot := map[string]string{}
	for _, c := range m.res.cases[:mainline] {
		mi := c.Meta["mined"].(*Mined)
		onMain[fixKey{mi.Vuln, mi.Package, mi.New}] = mi.FixCommit
		atSnapshot[c.Commit+" "+mi.Vuln] = mi.FixCommit
	}
	kept := m.res.cases[:mainline]
	seen := map[string]bool{}
	for _, c := range m.res.cases[mainline:] {
		mi := c.Meta["mined"].(*Mined)
		at, ok := onMain[fixKey{mi.Vuln, mi.Package, mi.New}]
		if !ok {
			at, ok = atSnapshot[c.Commit+" "+mi.Vuln]
		}
		if ok {
			d := Drop{Project: m.repo.Project, Commit: mi.FixCommit, Date: mi.FixDate, Vulns: []string{mi.Vuln}, Reason: DropLanded,
				Detail: fmt.Sprintf("%s (pull request %d) reached the first-parent history in %s", mi.Ref, mi.PullRequest, short(at)), Bump: mi.Bump}
			m.res.drops = append(m.res.drops, d)
			continue
		}
		if k := c.Commit + " " + mi.Vuln; !seen[k] {
			seen[k] = true
			kept = append(kept, c)
		}
	}
	m.res.cases = kept
}
