package osv

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/vulnbench/vulnbench/internal/advisory"
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
)

// Study is the introducing-commit study (`vulnbench suite osv-vic`): for every record with a
// GIT range (OSS-Fuzz's), whether its bisected introducing commit changes only fuzzing
// harnesses, tests, build files or docs (then it marks when fuzzing could start, not when the
// bug came); then, for the records that give a jit case (those harness-only left out), the
// JitVul rule's introducing commit against the bisected one.
type Study struct {
	Projects []VICRow `json:"projects"` // by project, most records first: those with a record checked
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
	// EarlierMedian and LaterMedian are the median first-parent distances, in commits.
	EarlierMedian float64 `json:"rule_earlier_median_commits"`
	LaterMedian   float64 `json:"rule_later_median_commits"`
	earlier       []int
	later         []int
}

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
	Drop        *Dropped  `json:"dropped,omitempty"` // why the record gave no jit case
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
	sort.Slice(st.Projects, func(i, j int) bool {
		if st.Projects[i].Records != st.Projects[j].Records {
			return st.Projects[i].Records > st.Projects[j].Records
		}
		return st.Projects[i].Project < st.Projects[j].Project
	})
	return st, res.Problems, nil
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
	from, to := "", intro.OID
	if a, z, ok := strings.Cut(r.IntroRange, ":"); ok && a != "unknown" {
		ca, errA := g.Commit(a)
		cz, errZ := g.Commit(z)
		if errA == nil && errZ == nil {
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
		cmp, err := compareIntro(ctx, g, p.Walk.Intro, intro.OID, from, to)
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
// bisected range from..to when there is one.
func compareIntro(ctx context.Context, g *jitvul.Git, rule, intro, from, to string) (VICPair, error) {
	p := VICPair{Rule: rule}
	anc := func(a, b string) (bool, error) { return g.IsAncestor(ctx, a, b) }
	if from != "" {
		inside, err := anc(from, rule)
		if err != nil {
			return p, err
		}
		if inside && rule != from {
			if in, err := anc(rule, to); err != nil || in {
				p.Outcome = VICInRange
				return p, err
			}
		}
	} else if rule == intro {
		p.Outcome = VICExact
		return p, nil
	}
	older, newer := intro, to
	if from == "" {
		newer = intro
	}
	if ok, err := anc(rule, older); err != nil || ok {
		p.Outcome = VICEarlier
		if err == nil {
			p.Distance, err = g.Count(ctx, rule, older)
		}
		return p, err
	}
	if ok, err := anc(newer, rule); err != nil || ok {
		p.Outcome = VICLater
		if err == nil {
			p.Distance, err = g.Count(ctx, newer, rule)
		}
		return p, err
	}
	p.Outcome = VICUnrelated
	return p, nil
}
