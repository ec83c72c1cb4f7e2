package report

import (
	"slices"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// The dimensions of the breakdown figures (VEX-Bench's Figures 5 and 6).
const (
	DimLanguage = "language"
	DimRepoSize = "repo-size"
)

// None is the group of a case without the dimension's field.
const None = "(none)"

// SizeBand is the band of a repository size in lines of code (a case's meta.repo_size: a number,
// or its text), the windows `score --by repo-size` and the breakdown figure group by; None when
// it has none.
func SizeBand(v any) string {
	n, ok := v.(float64)
	if !ok {
		if s, isStr := v.(string); isStr {
			f, err := strconv.ParseFloat(s, 64)
			n, ok = f, err == nil
		}
	}
	switch {
	case !ok || n < 0:
		return None
	case n < 10_000:
		return "<10k lines"
	case n < 100_000:
		return "10k-100k lines"
	case n < 1_000_000:
		return "100k-1M lines"
	}
	return ">=1M lines"
}

// SizeBands are the bands of SizeBand, smallest first.
func SizeBands() []string {
	return []string{"<10k lines", "10k-100k lines", "100k-1M lines", ">=1M lines"}
}

// caseDims keeps each case's language and size band as small indices into name tables: a few
// bytes a case.
type caseDims struct {
	langs, sizes []string // the names
	lang, size   []uint16 // per case, an index into the names
}

func (d *caseDims) add(c *suite.Case) {
	index := func(names *[]string, s string) uint16 {
		if s == "" {
			s = None
		}
		i := slices.Index(*names, s)
		if i < 0 && len(*names) < 1<<16-1 {
			*names = append(*names, s)
			i = len(*names) - 1
		}
		return uint16(max(i, 0))
	}
	d.lang = append(d.lang, index(&d.langs, c.Language))
	d.size = append(d.size, index(&d.sizes, SizeBand(c.Meta["repo_size"])))
}

// GroupScore is a run's score on the cases of one group of a dimension: its figures over the
// run's repeats, scored on those cases alone.
type GroupScore struct {
	Name    string
	Cases   int
	Figures *Figures
}

// groups scores each group of dim (two or more groups of cases that have the field) on the
// run's answers; nil when the truth has fewer such groups.
func (r *Run) groups(t *Truth, opt score.Options, dim string) []GroupScore {
	names, of := t.dims.langs, t.dims.lang
	if dim == DimRepoSize {
		names, of = t.dims.sizes, t.dims.size
	}
	if len(of) != len(t.Cases) {
		return nil
	}
	var order []int
	for i, n := range names {
		if n != None {
			order = append(order, i)
		}
	}
	if len(order) < 2 {
		return nil
	}
	if dim == DimRepoSize {
		slices.SortFunc(order, func(a, b int) int {
			return slices.Index(SizeBands(), names[a]) - slices.Index(SizeBands(), names[b])
		})
	} else {
		slices.SortFunc(order, func(a, b int) int { return compareText(names[a], names[b]) })
	}
	var out []GroupScore
	for _, g := range order {
		var cases []score.Case
		var pos []int
		for i := range t.Cases {
			if int(of[i]) == g {
				cases, pos = append(cases, t.Cases[i]), append(pos, i)
			}
		}
		results := make([]score.Result, len(r.Repeats))
		for k, rep := range r.Repeats {
			all := r.Answers[rep]
			as := make([]score.Answer, len(pos))
			for j, i := range pos {
				if i < len(all) {
					as[j] = all[i]
				}
			}
			results[k] = score.Compute(cases, as, opt)
		}
		agg := score.Aggregate(results)
		out = append(out, GroupScore{Name: names[g], Cases: len(cases),
			Figures: &Figures{Agg: len(results) > 1, Repeats: len(results), ResultOf: agg.ResultOf}})
	}
	return out
}

func compareText(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
