package report

import (
	"errors"

	"github.com/vulnbench/vulnbench/internal/score"
)

// Union is what several subjects add together on one truth (compare with more than two runs):
// the vulnerable cases each finds (a true positive: the case is vul and its answer vul), those
// only it finds, the recall of their union and each one's marginal contribution. Recall here is
// over every vul case of the truth: a case with an error or no verdict is not found.
type Union struct {
	Vul    int          `json:"vul"`    // vul cases in the truth
	Found  int          `json:"found"`  // vul cases some run finds
	Recall float64      `json:"recall"` // Found / Vul
	Runs   []UnionRun   `json:"runs"`
	Pairs  []UnionPair  `json:"pairs"`
	Notes  []Note       `json:"-"`
	found  [][]bool     // per run, per case
	cases  []score.Case // the truth's
}

// UnionRun is one run's part of a Union.
type UnionRun struct {
	Run    string  `json:"run"`
	Found  int     `json:"found"`
	Recall float64 `json:"recall"`
	// Only counts the vul cases no other run finds; OnlyCases are their ids, in suite order.
	Only      int      `json:"only"`
	OnlyCases []string `json:"only_cases"`
	// Marginal is the union's recall minus the recall of the union of the other runs.
	Marginal float64 `json:"marginal"`
}

// UnionPair is a Union of two of the runs.
type UnionPair struct {
	A, B   string  `json:"-"`
	RunA   string  `json:"a"`
	RunB   string  `json:"b"`
	OnlyA  int     `json:"only_a"` // vul cases A finds and B does not
	OnlyB  int     `json:"only_b"`
	Both   int     `json:"both"`
	Recall float64 `json:"recall"` // of A and B together
}

// Union compares what the report's runs find (the lowest repeat of each): every run, and every
// pair in report order.
func (r *Report) Union() (*Union, error) {
	if len(r.Runs) < 2 {
		return nil, errors.New("union: needs at least two runs")
	}
	opt := r.Options.Resolve(r.Truth.Cases)
	u := &Union{cases: r.Truth.Cases}
	for i := range r.Truth.Cases {
		if r.Truth.Cases[i].Vul {
			u.Vul++
		}
	}
	for _, run := range r.Runs {
		as, _, n := run.First()
		if n != nil {
			u.Notes = append(u.Notes, *n)
		}
		f := make([]bool, len(r.Truth.Cases))
		for i, c := range r.Truth.Cases {
			if !c.Vul || i >= len(as) {
				continue
			}
			f[i], _ = score.Correct(c.Label(), as[i], opt)
		}
		u.found = append(u.found, f)
	}
	all := make([]int, len(r.Runs))
	for i := range all {
		all[i] = i
	}
	u.Found = u.count(all, -1)
	u.Recall = u.recall(u.Found)
	for i, run := range r.Runs {
		ur := UnionRun{Run: run.Label(), Found: u.count([]int{i}, -1), OnlyCases: []string{}}
		ur.Recall = u.recall(ur.Found)
		for c := range r.Truth.Cases {
			if u.found[i][c] && !u.foundByOthers(c, i) {
				ur.OnlyCases = append(ur.OnlyCases, r.Truth.Cases[c].ID)
			}
		}
		ur.Only = len(ur.OnlyCases)
		ur.Marginal = u.recall(u.Found - u.count(all, i)) // the union's recall minus the others', exactly
		u.Runs = append(u.Runs, ur)
	}
	for i := range r.Runs {
		for j := i + 1; j < len(r.Runs); j++ {
			p := UnionPair{A: r.Runs[i].Name, B: r.Runs[j].Name, RunA: r.Runs[i].Label(), RunB: r.Runs[j].Label()}
			for c := range r.Truth.Cases {
				a, b := u.found[i][c], u.found[j][c]
				switch {
				case a && b:
					p.Both++
				case a:
					p.OnlyA++
				case b:
					p.OnlyB++
				}
			}
			p.Recall = u.recall(p.Both + p.OnlyA + p.OnlyB)
			u.Pairs = append(u.Pairs, p)
		}
	}
	return u, nil
}

// count is the number of vul cases some run of runs other than except finds.
func (u *Union) count(runs []int, except int) int {
	n := 0
	for c := range u.cases {
		for _, i := range runs {
			if i != except && u.found[i][c] {
				n++
				break
			}
		}
	}
	return n
}

func (u *Union) foundByOthers(c, except int) bool {
	for i := range u.found {
		if i != except && u.found[i][c] {
			return true
		}
	}
	return false
}

func (u *Union) recall(found int) float64 {
	if u.Vul == 0 {
		return 0
	}
	return float64(found) / float64(u.Vul)
}
