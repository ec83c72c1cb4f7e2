package score_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// BenchmarkCompute1M scores 1,000,000 cases (500,000 pairs, 40 CWEs) with continuous scores and a few
// failed, error and missing verdicts. The CLI target is well under 10 s for 1M verdicts.
func BenchmarkCompute1M(b *testing.B) {
	const pairs = 500_000
	rng := rand.New(rand.NewPCG(1, 2))
	cwes := make([][]string, 40)
	for i := range cwes {
		cwes[i] = []string{fmt.Sprintf("CWE-%d", 100+i)}
	}
	cases := make([]score.Case, 0, 2*pairs)
	vs := make(map[string]verdict.Verdict, 2*pairs)
	for i := range pairs {
		pair := fmt.Sprintf("pair-%d", i)
		cwe := cwes[i%len(cwes)]
		for _, l := range []suite.Label{suite.Vul, suite.Ben} {
			id := fmt.Sprintf("%s-%s", pair, l)
			cases = append(cases, score.Case{ID: id, Vul: l == suite.Vul, Pair: int32(i) + 1, Meta: &score.Meta{CWE: cwe}})
			s := rng.Float64()
			if l == suite.Vul {
				s = min(1, s+0.1)
			}
			v := verdict.Verdict{CaseID: id, Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(s)}
			if s >= 0.5 {
				v.Label = suite.Vul
			}
			switch rng.IntN(1000) {
			case 0:
				v.Status = verdict.Failed
			case 1:
				v.Status = verdict.Error
			case 2:
				continue // missing
			}
			vs[id] = v
		}
	}
	as := score.Answers(cases, vs)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r := score.Compute(cases, as, score.Options{})
		if r.N != 2*pairs || r.Pairwise == nil || r.VDS == nil || len(r.ByCWE) != len(cwes) {
			b.Fatalf("unexpected result: n %d", r.N)
		}
	}
}
