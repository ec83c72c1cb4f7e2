package report

import (
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// TierNames are the CWE tiers of TierScore.Binary, strictest first: a case counts vul at exact
// only through a finding matched to it with one of its CWEs, at related also through an
// ancestor or descendant of one in MITRE's tree, at any through any finding at its location.
func TierNames() []string { return []string{"exact", "related", "any"} }

// TierScore is one repeat's binary scores per CWE tier, for a run some of whose verdicts were
// made by matching findings to cases (internal/sarif: a finding records its tier).
type TierScore struct {
	Matched int             // ok vul verdicts with a finding matched to their case
	Binary  [3]score.Binary // as TierNames
}

// TierFigures are TierScore as writers see it: over repeats, or of the one repeat.
type TierFigures struct {
	Matched score.Stat
	Binary  [3]score.BinaryOf[score.Stat, score.Stat]
}

// The rank a verdict records for scores per tier: how far its best matched finding's CWEs agree
// with its case's. Only ok vul verdicts have one; an untiered one (not made by matching) counts
// vul only at any.
const (
	rankNone      int8 = iota // not an ok vul verdict: the same answer at every tier
	rankUntiered              // vul without a matched finding
	rankUnrelated             // vul through findings at the location, CWEs unrelated or missing
	rankRelated
	rankExact
)

// tierMin is, as TierNames, the least rank that stays vul at each tier.
func tierMin() [3]int8 { return [3]int8{rankExact, rankRelated, rankUntiered} }

func rankOf(v verdict.Verdict) int8 {
	if v.Status != verdict.OK || v.Label != suite.Vul {
		return rankNone
	}
	r := rankUntiered
	for _, f := range v.Findings {
		switch f.Tier {
		case verdict.TierExact:
			return rankExact
		case verdict.TierRelated:
			r = max(r, rankRelated)
		case verdict.TierUnrelated:
			r = max(r, rankUnrelated)
		}
	}
	return r
}

// tierScores scores every repeat of keys per tier, or returns nil when no verdict of the run was
// matched.
func (r *Run) tierScores(t *Truth, opt score.Options, keys []int) []TierScore {
	matched := false
	for _, rk := range r.ranks {
		for _, x := range rk {
			matched = matched || x >= rankUnrelated
		}
	}
	if !matched {
		return nil
	}
	ben := score.AnswerOf(verdict.Verdict{Status: verdict.OK, Label: suite.Ben})
	out := make([]TierScore, len(keys))
	for i, k := range keys {
		rk := r.ranks[k]
		for _, x := range rk {
			if x >= rankUnrelated {
				out[i].Matched++
			}
		}
		for j, least := range tierMin() {
			as := r.Answers[k]
			if rk != nil && as != nil {
				as = append([]score.Answer(nil), as...)
				for c, x := range rk {
					if x != rankNone && x < least {
						as[c] = ben
					}
				}
			}
			out[i].Binary[j] = score.Compute(t.Cases, as, opt).Binary
		}
	}
	return out
}

// tierFigures aggregates ts over repeats (one repeat: its values, std 0).
func tierFigures(ts []TierScore) *TierFigures {
	if len(ts) == 0 {
		return nil
	}
	var f TierFigures
	for j := range f.Binary {
		rs := make([]score.Result, len(ts))
		for i, s := range ts {
			rs[i] = score.Result{N: s.Matched, Binary: s.Binary[j]}
		}
		a := score.Aggregate(rs)
		f.Matched, f.Binary[j] = a.N, a.Binary
	}
	return &f
}
