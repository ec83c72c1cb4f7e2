package score

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestJITSection(t *testing.T) {
	v := func(label suite.Label, tools int, cwe ...string) verdict.Verdict {
		return verdict.Verdict{Status: verdict.OK, Label: label, CWE: cwe, Usage: verdict.Usage{ToolCalls: tools}}
	}
	failed := verdict.Verdict{Status: verdict.Failed, Usage: verdict.Usage{ToolCalls: 15}}
	cases := []Case{
		{ID: "v1", Vul: true, Pair: 1, JIT: true, Meta: &Meta{CWE: []string{"CWE-787"}}},
		{ID: "b1", Pair: 1, JIT: true, Meta: &Meta{CWE: []string{"CWE-787"}}},
		{ID: "v2", Vul: true, Pair: 2, JIT: true, Identical: true, Meta: &Meta{CWE: []string{"CWE-476"}}},
		{ID: "b2", Pair: 2, JIT: true, Identical: true, Meta: &Meta{CWE: []string{"CWE-476"}}},
		{ID: "v3", Vul: true, Pair: 3, JIT: true, Meta: &Meta{CWE: []string{"CWE-20"}}},
		{ID: "b3", Pair: 3, JIT: true, Meta: &Meta{CWE: []string{"CWE-20"}}},
	}
	vs := []verdict.Verdict{v(suite.Vul, 6, "CWE-787"), failed, v(suite.Vul, 5, "CWE-119"), v(suite.Vul, 2), v(suite.Vul, 1), v(suite.Ben, 2)}
	as := make([]Answer, len(cases))
	for i := range cases {
		as[i] = AnswerFor(vs[i], &cases[i])
	}
	tests := []struct {
		name string
		opt  Options
		want JIT
		// pacc with every pair, and without the identical one
		pacc float64
	}{
		// Default on jit cases: failed counts as ben, so pair p1 is correct.
		{name: "default is ben", opt: Options{}, pacc: 2.0 / 3, want: JIT{UnparsedAs: UnparsedBen, IdenticalPairs: 1, CWEHitRate: 1.0 / 3, CWEHitN: 3,
			WithoutIdentical: &Without{N: 4, F1: 1, Accuracy: 1, Pairs: 2, PC: 1, PAcc: 1}}},
		{name: "failed counts wrong", opt: Options{UnparsedAs: UnparsedFailed}, pacc: 1.0 / 3, want: JIT{UnparsedAs: UnparsedFailed, IdenticalPairs: 1, CWEHitRate: 1.0 / 3, CWEHitN: 3,
			WithoutIdentical: &Without{N: 4, F1: 1, Accuracy: 0.75, Pairs: 2, PC: 0.5, PV: 0.5, PAcc: 0.5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compute(cases, as, tt.opt)
			tt.want.ToolCalls.Vul = ToolCallsOf[float64]{Mean: 4, Median: 5}
			tt.want.ToolCalls.Ben = ToolCallsOf[float64]{Mean: 19.0 / 3, Median: 2}
			if d := cmp.Diff(&tt.want, r.JIT); d != "" {
				t.Errorf("jit (-want +got):\n%s", d)
			}
			if r.Pairwise == nil || r.Pairwise.PAcc != tt.pacc {
				t.Errorf("pacc %+v, want %v", r.Pairwise, tt.pacc)
			}
		})
	}
	cases[0].JIT, cases[1].JIT, cases[2].JIT, cases[3].JIT, cases[4].JIT, cases[5].JIT = false, false, false, false, false, false
	if r := Compute(cases, as, Options{}); r.JIT != nil || r.Pairwise.PAcc != 1.0/3 {
		t.Errorf("a suite without jit cases: jit %+v, pacc %v; want none and failed counted wrong", r.JIT, r.Pairwise.PAcc)
	}
	if a := Aggregate([]Result{Compute(cases, as, Options{}), Compute(cases, as, Options{})}); a.JIT != nil {
		t.Errorf("aggregate of non-jit results has a jit section")
	}
}
