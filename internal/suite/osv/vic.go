package osv

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/stats"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// The outcomes of comparing the rule's introducing commit with the bisected one.
const (
	VICExact     = "exact"
	VICEarlier   = "rule earlier"   // the rule's commit is an ancestor of the bisected one
	VICLater     = "rule later"     // the bisected commit is an ancestor of the rule's
	VICInRange   = "inside range"   // the rule's commit is inside the bisected introduced_range
	VICUnrelated = "not comparable" // neither is an ancestor of the other (other branches)
	// VICOpen: bisection found no start of the range ("unknown:B") and the rule's commit is at
	// or before its end, where the bug may have been all along: not comparable either.
	VICOpen = "open range"
)

// Study is the introducing-commit study (`vulnbench suite osv-vic`): for every record with a
// GIT range (OSS-Fuzz's), whether its bisected introducing commit changes only fuzzing
// harnesses, tests, build files or docs (then it marks when fuzzing could start, not when the
// bug came); then, for the records that give a jit case (those harness-only left out), the
// JitVul rule's introducing commit against the bisected one.
type Study struct {
	// Headline is the study's figure: the share of comparable records on which the rule agrees
	// with bisection, its interval and every denominator.
	Headline VICHeadline `json:"headline"`
	Projects []VICRow    `json:"projects"` // by project, most records first: those with a record checked
	// Unchecked sums the projects none of whose records could be checked (their repository,
	// or its introducing commits, are not here); its Project says how many.
	Unchecked VICRow      `json:"unchecked"`
	Total     VICRow      `json:"total"`
	Records   []VICRecord `json:"records"`
}

// VICRow is one project's (or the whole study's) counts.
type VICRow struct {
	Project string `json:"project"`
	Records int    `json:"records"` // records with a GIT range and an introducing commit, not withdrawn
	Checked int    `json:"checked"` // of them, those whose introducing commit is in the repository
	// HarnessOnly: of the checked, those whose introducing commit (or range) changes only
	// fuzzing harnesses, tests, build files or docs.
	HarnessOnly int `json:"harness_only"`
	Compared    int `json:"compared"` // jit pairs compared (records giving one, harness-only left out)
	Exact       int `json:"exact"`
	Earlier     int `json:"rule_earlier"`
	Later       int `json:"rule_later"`
	InRange     int `json:"inside_range"`
	Unrelated   int `json:"not_comparable"`
	Open        int `json:"open_range"`
	// EarlierMedian and LaterMedian are the median first-parent distances, in commits.
	EarlierMedian float64 `json:"rule_earlier_median_commits"`
	LaterMedian   float64 `json:"rule_later_median_commits"`
	earlier       []int
	later         []int
}

// VICHeadline is the study's figure over records. A record agrees when the introducing commit
// the rule finds for one of its functions is the bisected commit or inside the bisected range;
// it is comparable when one of its pairs is (neither on another branch nor before an open range).
type VICHeadline struct {
	Agree      int        `json:"agree"`      // A: comparable records the rule agrees on
	Comparable int        `json:"comparable"` // N: records with a comparable pair
	Share      float64    `json:"share"`      // A / N
	CI         [2]float64 `json:"ci95"`       // Wilson's 95 % interval of the share
	// The denominators, each of the one before: records with a GIT range and a bisected
	// introducing commit, not withdrawn; those whose commit is in the repository; those whose
	// bisected commit changes only harnesses, tests, build files or docs (not compared); those
	// giving a jit pair (the rest: the tracer's drops); of them, not comparable.
	Records       int    `json:"records"`
	Checked       int    `json:"checked"`
	HarnessOnly   int    `json:"harness_only"`
	WithPairs     int    `json:"with_pairs"`
	NotComparable int    `json:"not_comparable"`
	Text          string `json:"text"` // the line the text and md formats print
}

// The record-level outcomes of the study.
const (
	RecordAgrees        = "agrees"
	RecordDisagrees     = "disagrees"
	RecordNotComparable = "not comparable"
)

// VICRecord is what the study found for one record.
type VICRecord struct {
	ID          string    `json:"id"`
	Project     string    `json:"project"`
	Intro       string    `json:"introduced"`
	IntroRange  string    `json:"introduced_range,omitempty"`
	Checked     bool      `json:"checked"`
	Why         string    `json:"why,omitempty"` // why it was not checked
	HarnessOnly bool      `json:"harness_only"`
	Pairs       []VICPair `json:"pairs,omitempty"`
	// Outcome is the record's: agrees, disagrees or not comparable; "" when it gave no pair.
	Outcome string   `json:"outcome,omitempty"`
	Drop    *Dropped `json:"dropped,omitempty"` // why the record gave no jit case
}

// outcome is a record's outcome from its pairs'.
func (vr *VICRecord) outcome() string {
	if len(vr.Pairs) == 0 {
		return ""
	}
	out := RecordNotComparable
	for _, p := range vr.Pairs {
		switch p.Outcome {
		case VICExact, VICInRange:
			return RecordAgrees
		case VICEarlier, VICLater:
			out = RecordDisagrees
		}
	}
	return out
}

// VICPair is one jit pair's comparison.
type VICPair struct {
	Function string `json:"function"`
	Rule     string `json:"rule_commit"`
	Stop     string `json:"stop_reason"`
	Outcome  string `json:"outcome"`
	Distance int    `json:"distance,omitempty"` // first-parent commits between the two (earlier, later)
}

// Study builds jit pairs from db's records with a GIT range and compares their introducing
// commits with the records' bisected ones. opts.Kind is set to jit.
func (b *Builder) Study(ctx context.Context, db *advisory.DB, reposDir string) (*Study, []error, error) {
	if b.opts.Kind != suite.KindJIT {
		return nil, nil, errors.New("osv: the introducing-commit study needs a jit builder (Options.Kind = jit)")
	}
	res, err := b.build(ctx, db, reposDir, func(r *Record) bool { return r.GitRange && !r.Withdrawn && r.Intro != "" })
	if err != nil {
		return nil, nil, err
	}
	st := &Study{Total: VICRow{Project: "all"}}
	rows := map[string]*VICRow{}
	loc := newLocator(reposDir)
	for _, o := range res.Outcomes {
		r := o.Record
		if !r.GitRange || r.Withdrawn || r.Intro == "" {
			continue
		}
		vr := VICRecord{ID: r.ID, Project: projectOf(r.IntroRepo), Intro: r.Intro, IntroRange: r.IntroRange, Drop: o.Drop}
		row := rows[vr.Project]
		if row == nil {
			row = &VICRow{Project: vr.Project}
			rows[vr.Project] = row
		}
		if err := b.studyRecord(ctx, loc, o, &vr); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", r.Source, err)
		}
		vr.Outcome = vr.outcome()
		st.Headline.count(&vr)
		for _, x := range []*VICRow{row, &st.Total} {
			x.add(&vr)
		}
		st.Records = append(st.Records, vr)
	}
	n := 0
	for _, row := range rows {
		row.finish()
		if row.Checked > 0 {
			st.Projects = append(st.Projects, *row)
			continue
		}
		n++
		st.Unchecked.Records += row.Records
	}
	st.Unchecked.Project = fmt.Sprintf("(%d projects not checked)", n)
	st.Total.finish()
	st.Headline.finish()
	sort.Slice(st.Projects, func(i, j int) bool {
		if st.Projects[i].Records != st.Projects[j].Records {
			return st.Projects[i].Records > st.Projects[j].Records
		}
		return st.Projects[i].Project < st.Projects[j].Project
	})
	return st, res.Problems, nil
}

func (h *VICHeadline) count(vr *VICRecord) {
	h.Records++
	switch {
	case !vr.Checked:
		return
	case vr.HarnessOnly:
		h.Checked++
		h.HarnessOnly++
		return
	}
	h.Checked++
	switch vr.Outcome {
	case "":
		return
	case RecordAgrees:
		h.Agree++
		h.Comparable++
	case RecordDisagrees:
		h.Comparable++
	default:
		h.NotComparable++
	}
	h.WithPairs++
}

func (h *VICHeadline) finish() {
	if h.Comparable > 0 {
		h.Share = float64(h.Agree) / float64(h.Comparable)
	}
	h.CI = stats.Wilson(h.Agree, h.Comparable, stats.Z95)
	h.Text = fmt.Sprintf("the rule agrees with bisection on %d of %d comparable records (%.1f %%, 95 %% CI [%.1f, %.1f]); "+
		"of %d records with a bisected introducing commit, %d checked (the commit in the repository), %d of them harness-only (not compared), "+
		"%d gave a jit pair, %d of those not comparable (another branch, or a range bisection left open); "+
		"a record agrees when one of its functions' rule commits is the bisected one or inside the bisected range",
		h.Agree, h.Comparable, 100*h.Share, 100*h.CI[0], 100*h.CI[1], h.Records, h.Checked, h.HarnessOnly, h.WithPairs, h.NotComparable)
}

func (row *VICRow) add(vr *VICRecord) {
	row.Records++
	if !vr.Checked {
		return
	}
	row.Checked++
	if vr.HarnessOnly {
		row.HarnessOnly++
		return
	}
	for _, p := range vr.Pairs {
		row.Compared++
		switch p.Outcome {
		case VICExact:
			row.Exact++
		case VICEarlier:
			row.Earlier++
			row.earlier = append(row.earlier, p.Distance)
		case VICLater:
			row.Later++
			row.later = append(row.later, p.Distance)
		case VICInRange:
			row.InRange++
		case VICOpen:
			row.Open++
		default:
			row.Unrelated++
		}
	}
}

func (row *VICRow) finish() {
	row.EarlierMedian, row.LaterMedian = median(row.earlier), median(row.later)
}

func median(xs []int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int(nil), xs...)
	sort.Ints(s)
	if len(s)%2 == 1 {
		return float64(s[len(s)/2])
	}
	return float64(s[len(s)/2-1]+s[len(s)/2]) / 2
}

// studyRecord checks one record's introducing commit and compares its pairs' walks with it.
func (b *Builder) studyRecord(ctx context.Context, loc *locator, o *Outcome, vr *VICRecord) error {
	r := o.Record
	dir, err := loc.locate(r.IntroRepo)
	if err != nil {
		vr.Why = string(ReasonNoRepository)
		return nil
	}
	g, err := b.s.Git(dir)
	if err != nil {
		return err
	}
	intro, err := g.Commit(r.Intro)
	if err != nil {
		var de *jitvul.DropError
		if errors.Is(err, jitvul.ErrMissing) || errors.As(err, &de) {
			vr.Why = "introducing commit missing"
			return nil
		}
		return err
	}
	from, to, open := "", intro.OID, false
	if a, z, ok := strings.Cut(r.IntroRange, ":"); ok {
		cz, errZ := g.Commit(z)
		switch ca, errA := g.Commit(a); {
		case errZ != nil:
		case a == "unknown":
			to, open = cz.OID, true
		case errA == nil:
			from, to = ca.OID, cz.OID
		}
	}
	vr.Checked = true
	if vr.HarnessOnly, err = harnessOnly(ctx, g, intro, from, to); err != nil {
		return err
	}
	if vr.HarnessOnly {
		return nil
	}
	for _, p := range o.Pairs {
		if p.Walk == nil {
			continue
		}
		cmp, err := compareIntro(ctx, g, p.Walk.Intro, intro.OID, from, to, open)
		if err != nil {
			return err
		}
		cmp.Function, cmp.Stop = p.Func.Target(), string(p.Walk.Stop)
		vr.Pairs = append(vr.Pairs, cmp)
	}
	return nil
}

// harnessOnly reports whether the introducing commit (or the range from..to, when bisection
// gave one) changes only files that are not source: harnesses, tests, build files, docs.
func harnessOnly(ctx context.Context, g *jitvul.Git, intro jitvul.Commit, from, to string) (bool, error) {
	base, tip := from, to
	if base == "" {
		if len(intro.Parents) == 0 {
			return false, nil // a root commit brings everything
		}
		base, tip = intro.Parents[0], intro.OID
	}
	d, err := g.Diff(ctx, base, tip)
	if err != nil {
		return false, err
	}
	for _, f := range d {
		if RoleOf(f.NewPath) == Source || RoleOf(f.OldPath) == Source {
			return false, nil
		}
	}
	return len(d) > 0, nil
}

// compareIntro places the rule's introducing commit against the bisected one (intro), or the
// bisected range from..to when there is one (git's range: reachable from to, not from from;
// open when bisection found no start, from then ""). Distances are first-parent commits to the
// nearest end: from the rule's commit to the range's first commit (Count(rule, from) + 1, as
// Count(rule, intro) is for one commit), from the range's last commit to the rule's.
func compareIntro(ctx context.Context, g *jitvul.Git, rule, intro, from, to string, open bool) (VICPair, error) {
	p := VICPair{Rule: rule}
	anc := func(a, b string) (bool, error) { return g.IsAncestor(ctx, a, b) }
	switch {
	case open:
		if ok, err := anc(rule, to); err != nil || ok {
			p.Outcome = VICOpen
			return p, err
		}
	case from != "":
		toRule, err := anc(rule, to)
		if err != nil {
			return p, err
		}
		fromRule, err := anc(rule, from)
		if err != nil {
			return p, err
		}
		switch {
		case toRule && !fromRule:
			p.Outcome = VICInRange
			return p, nil
		case fromRule:
			p.Outcome = VICEarlier
			p.Distance, err = g.Count(ctx, rule, from)
			p.Distance++
			return p, err
		}
	case rule == intro:
		p.Outcome = VICExact
		return p, nil
	default:
		if ok, err := anc(rule, intro); err != nil || ok {
			p.Outcome = VICEarlier
			if err == nil {
				p.Distance, err = g.Count(ctx, rule, intro)
			}
			return p, err
		}
	}
	if ok, err := anc(to, rule); err != nil || ok {
		p.Outcome = VICLater
		if err == nil {
			p.Distance, err = g.Count(ctx, to, rule)
		}
		return p, err
	}
	p.Outcome = VICUnrelated
	return p, nil
}
