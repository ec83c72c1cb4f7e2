package score_test

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// approx absorbs rounding in the last bits of hand-written fractions and square roots.
func approx() cmp.Option { return cmpopts.EquateApprox(0, 1e-12) }

func vulCase(id string, pair int32, cwe ...string) score.Case {
	return score.Case{ID: id, Vul: true, Pair: pair, Meta: &score.Meta{CWE: cwe}}
}

func benCase(id string, pair int32, cwe ...string) score.Case {
	return score.Case{ID: id, Pair: pair, Meta: &score.Meta{CWE: cwe}}
}

func ok(l suite.Label) verdict.Verdict { return verdict.Verdict{Status: verdict.OK, Label: l} }

func okScore(l suite.Label, s float64) verdict.Verdict {
	return verdict.Verdict{Status: verdict.OK, Label: l, Score: verdict.Float(s)}
}

func failed() verdict.Verdict { return verdict.Verdict{Status: verdict.Failed, Raw: "???"} }

func errored() verdict.Verdict { return verdict.Verdict{Status: verdict.Error, Reason: "timeout"} }

// pairSuite has four pairs, one of each interesting kind:
//
//	p1: vul ok vul,   ben failed
//	p2: vul failed,   ben ok ben
//	p3: vul ok ben,   ben ok vul   (P-R)
//	p4: vul ok vul,   ben ok ben   (P-C)
func pairSuite() ([]score.Case, map[string]verdict.Verdict) {
	cases := []score.Case{
		vulCase("p1v", 1), benCase("p1b", 1),
		vulCase("p2v", 2), benCase("p2b", 2),
		vulCase("p3v", 3), benCase("p3b", 3),
		vulCase("p4v", 4), benCase("p4b", 4),
	}
	vs := map[string]verdict.Verdict{
		"p1v": ok(suite.Vul), "p1b": failed(),
		"p2v": failed(), "p2b": ok(suite.Ben),
		"p3v": ok(suite.Ben), "p3b": ok(suite.Vul),
		"p4v": ok(suite.Vul), "p4b": ok(suite.Ben),
	}
	return cases, vs
}

// stoppedInsteadOfFailed is vs with every failed verdict a unit stopped by its --max-steps.
func stoppedInsteadOfFailed(vs map[string]verdict.Verdict) map[string]verdict.Verdict {
	out := map[string]verdict.Verdict{}
	for id, v := range vs {
		if v.Status == verdict.Failed {
			v = verdict.Stopped("its limit: 4 model calls (--max-steps 3)", v.Usage)
		}
		out[id] = v
	}
	return out
}

func TestComputeBinary(t *testing.T) {
	pcases, pverdicts := pairSuite()
	tests := []struct {
		name       string
		cases      []score.Case
		verdicts   map[string]verdict.Verdict
		opt        score.Options
		wantStatus score.StatusCounts
		want       score.Binary
	}{
		{
			name:       "no positives predicted",
			cases:      []score.Case{vulCase("v1", 0), vulCase("v2", 0), benCase("b1", 0), benCase("b2", 0), benCase("b3", 0)},
			verdicts:   map[string]verdict.Verdict{"v1": ok(suite.Ben), "v2": ok(suite.Ben), "b1": ok(suite.Ben), "b2": ok(suite.Ben), "b3": ok(suite.Ben)},
			wantStatus: score.StatusCounts{OK: 5},
			// tp 0, fp 0, tn 3, fn 2: accuracy 3/5; precision 0/0 -> 0; recall 0/2; F1 0;
			// FPR 0/3; FNR 2/2; TNR 3/3.
			want: score.Binary{TN: 3, FN: 2, Accuracy: 0.6, FNR: 1, TNR: 1},
		},
		{
			name:       "everything predicted vul",
			cases:      []score.Case{vulCase("v1", 0), vulCase("v2", 0), benCase("b1", 0), benCase("b2", 0)},
			verdicts:   map[string]verdict.Verdict{"v1": ok(suite.Vul), "v2": ok(suite.Vul), "b1": ok(suite.Vul), "b2": ok(suite.Vul)},
			wantStatus: score.StatusCounts{OK: 4},
			// tp 2, fp 2: accuracy 2/4; precision 2/4; recall 2/2; F1 2*0.5*1/(0.5+1) = 2/3;
			// FPR 2/2; FNR 0/2; TNR 0/2.
			want: score.Binary{TP: 2, FP: 2, Accuracy: 0.5, Precision: 0.5, Recall: 1, F1: 2.0 / 3, FPR: 1},
		},
		{
			name:       "failed counted wrong (default)",
			cases:      pcases,
			verdicts:   pverdicts,
			wantStatus: score.StatusCounts{OK: 6, Failed: 2},
			// vul: p1v tp, p2v failed -> fn, p3v fn, p4v tp => tp 2, fn 2, failed_vul 1.
			// ben: p1b failed_ben, p2b tn, p3b fp, p4b tn => fp 1, tn 2, failed_ben 1.
			// accuracy (2+2)/(2+1+2+2+1) = 4/8; precision 2/3; recall 2/4; F1 2*2/(2*2+1+2) = 4/7;
			// FPR 1/(1+2+1) = 1/4; FNR 2/4; TNR 2/(1+2+1) = 2/4.
			want: score.Binary{TP: 2, FP: 1, TN: 2, FN: 2, FailedVul: 1, FailedBen: 1,
				Accuracy: 0.5, Precision: 2.0 / 3, Recall: 0.5, F1: 4.0 / 7, FPR: 0.25, FNR: 0.5, TNR: 0.5},
		},
		{
			// the caps' policy: a unit stopped by a cap is a failed answer that counts, the same
			// figures as the case above, and shown apart in Stopped.
			name:       "stopped counted as failed",
			cases:      pcases,
			verdicts:   stoppedInsteadOfFailed(pverdicts),
			wantStatus: score.StatusCounts{OK: 6, Failed: 2, Stopped: 2},
			want: score.Binary{TP: 2, FP: 1, TN: 2, FN: 2, FailedVul: 1, FailedBen: 1,
				Accuracy: 0.5, Precision: 2.0 / 3, Recall: 0.5, F1: 4.0 / 7, FPR: 0.25, FNR: 0.5, TNR: 0.5},
		},
		{
			name:       "failed counted as ben",
			cases:      pcases,
			verdicts:   pverdicts,
			opt:        score.Options{UnparsedAs: score.UnparsedBen},
			wantStatus: score.StatusCounts{OK: 6, Failed: 2},
			// as above but p1b (failed ben) is a tn: tp 2, fp 1, tn 3, fn 2.
			// accuracy (2+3)/8; precision 2/3; recall 2/4; F1 4/7; FPR 1/(1+3); FNR 2/4; TNR 3/4.
			want: score.Binary{TP: 2, FP: 1, TN: 3, FN: 2, FailedVul: 1, FailedBen: 1,
				Accuracy: 5.0 / 8, Precision: 2.0 / 3, Recall: 0.5, F1: 4.0 / 7, FPR: 0.25, FNR: 0.5, TNR: 0.75},
		},
		{
			name: "error and missing excluded",
			cases: []score.Case{vulCase("v1", 0), vulCase("v2", 0), vulCase("v3", 0),
				benCase("b1", 0), benCase("b2", 0), benCase("b3", 0)},
			// v3 and b3 have no verdict; "stray" is not a case of the suite.
			verdicts:   map[string]verdict.Verdict{"v1": ok(suite.Vul), "v2": errored(), "b1": ok(suite.Ben), "b2": errored(), "stray": ok(suite.Vul)},
			wantStatus: score.StatusCounts{OK: 2, Error: 2, Missing: 2},
			// only v1 (tp) and b1 (tn) count: every ratio is 1/1 or 0/1.
			want: score.Binary{TP: 1, TN: 1, Accuracy: 1, Precision: 1, Recall: 1, F1: 1, TNR: 1},
		},
		{
			name:     "invalid answers",
			cases:    []score.Case{vulCase("v1", 0), benCase("b1", 0), benCase("b2", 0)},
			verdicts: map[string]verdict.Verdict{"v1": {Status: verdict.OK}, "b1": {Status: "timeout"}, "b2": ok(suite.Ben)},
			// ok without a label is failed; an unknown status is an error.
			wantStatus: score.StatusCounts{OK: 1, Failed: 1, Error: 1},
			// v1 failed -> fn; b2 tn. accuracy 1/2; recall 0/1; FPR 0/1; FNR 1/1; TNR 1/1.
			want: score.Binary{TN: 1, FN: 1, FailedVul: 1, Accuracy: 0.5, FNR: 1, TNR: 1},
		},
		{
			name:  "empty suite",
			cases: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := score.Compute(tt.cases, score.Answers(tt.cases, tt.verdicts), tt.opt)
			if r.N != len(tt.cases) {
				t.Errorf("N = %d, want %d", r.N, len(tt.cases))
			}
			if diff := cmp.Diff(tt.wantStatus, r.Status); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, r.Binary, approx()); diff != "" {
				t.Errorf("binary (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComputePairwise(t *testing.T) {
	pcases, pverdicts := pairSuite()
	tests := []struct {
		name     string
		cases    []score.Case
		verdicts map[string]verdict.Verdict
		opt      score.Options
		want     *score.Pairwise
	}{
		{
			name:     "one failed verdict, failed counted wrong",
			cases:    pcases,
			verdicts: pverdicts,
			// p1: ben failed -> treated as vul: vul->vul, ben->vul = P-V.
			// p2: vul failed -> treated as ben: vul->ben, ben->ben = P-B.
			// p3 P-R, p4 P-C. Each 1/4.
			want: &score.Pairwise{Pairs: 4, PC: 0.25, PV: 0.25, PB: 0.25, PR: 0.25, PAcc: 0.25},
		},
		{
			name:     "one failed verdict, failed counted as ben",
			cases:    pcases,
			verdicts: pverdicts,
			opt:      score.Options{UnparsedAs: score.UnparsedBen},
			// p1: ben failed -> ben: P-C. p2: vul failed -> ben: P-B. p3 P-R, p4 P-C.
			// P-C 2/4, P-B 1/4, P-R 1/4, pAcc 2/4.
			want: &score.Pairwise{Pairs: 4, PC: 0.5, PB: 0.25, PR: 0.25, PAcc: 0.5},
		},
		{
			name: "twin missing, error and missing verdicts",
			cases: []score.Case{
				vulCase("p1v", 1), benCase("p1b", 1),
				vulCase("p2v", 2), // twin absent from the suite
				vulCase("p3v", 3), benCase("p3b", 3),
				vulCase("p4v", 4), benCase("p4b", 4),
				vulCase("p5v", 5), benCase("p5b", 5),
			},
			verdicts: map[string]verdict.Verdict{
				"p1v": ok(suite.Vul), "p1b": ok(suite.Ben), // P-C
				"p2v": ok(suite.Vul),
				"p3v": ok(suite.Vul), "p3b": errored(),
				"p4b": ok(suite.Ben),                       // p4v missing
				"p5v": ok(suite.Ben), "p5b": ok(suite.Ben), // P-B
			},
			// scored: p1 (P-C), p5 (P-B) => 2 pairs, 1/2 each; incomplete: p2, p3, p4.
			want: &score.Pairwise{Pairs: 2, Incomplete: 3, PC: 0.5, PB: 0.5, PAcc: 0.5},
		},
		{
			name:     "two cases of one label share a pair id",
			cases:    []score.Case{vulCase("a", 6), vulCase("b", 6)},
			verdicts: map[string]verdict.Verdict{"a": ok(suite.Vul), "b": ok(suite.Vul)},
			// no complete pair: every share is 0/0 -> 0.
			want: &score.Pairwise{Incomplete: 1},
		},
		{
			name:     "no pairs in the suite",
			cases:    []score.Case{vulCase("a", 0), benCase("b", 0)},
			verdicts: map[string]verdict.Verdict{"a": ok(suite.Vul), "b": ok(suite.Ben)},
			want:     nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := score.Compute(tt.cases, score.Answers(tt.cases, tt.verdicts), tt.opt)
			if diff := cmp.Diff(tt.want, r.Pairwise, approx()); diff != "" {
				t.Errorf("pairwise (-want +got):\n%s", diff)
			}
		})
	}
}

// scored builds a suite of unpaired cases and ok verdicts whose scores are given per label.
// Verdict labels follow the score (>= 0.5 is vul): VD-S reads only the scores.
func scored(vul, ben []float64) ([]score.Case, map[string]verdict.Verdict) {
	var cases []score.Case
	vs := map[string]verdict.Verdict{}
	add := func(c score.Case, s float64) {
		cases = append(cases, c)
		l := suite.Ben
		if s >= 0.5 {
			l = suite.Vul
		}
		vs[c.ID] = okScore(l, s)
	}
	for i, s := range vul {
		add(vulCase(fmt.Sprintf("v%d", i), 0), s)
	}
	for i, s := range ben {
		add(benCase(fmt.Sprintf("b%d", i), 0), s)
	}
	return cases, vs
}

func TestComputeVDS(t *testing.T) {
	thr := verdict.Float

	// The tie suite: sorted scores 0.9 (vul, ben), 0.8 (vul), 0.5 (vul, ben), 0.3 (vul), 0.2 (ben), 0.1 (ben).
	tieCases, tieVerdicts := scored([]float64{0.9, 0.8, 0.5, 0.3}, []float64{0.9, 0.5, 0.2, 0.1})

	// Boundary suite: 200 ben (one at 0.9, 199 at 0.1), vul at 0.95 and 0.5.
	ben200 := []float64{0.9}
	for range 199 {
		ben200 = append(ben200, 0.1)
	}
	boundCases, boundVerdicts := scored([]float64{0.95, 0.5}, ben200)

	// 0/1 scores, one failed vul case.
	degCases := []score.Case{vulCase("v1", 0), vulCase("v2", 0), vulCase("v3", 0), vulCase("v4", 0),
		benCase("b1", 0), benCase("b2", 0), benCase("b3", 0)}
	degVerdicts := map[string]verdict.Verdict{
		"v1": ok(suite.Vul), "v2": ok(suite.Ben), "v3": okScore(suite.Vul, 1), "v4": failed(),
		"b1": ok(suite.Ben), "b2": okScore(suite.Ben, 0), "b3": ok(suite.Vul),
	}

	// A failed ben case: left out under "failed", kept at -Inf under "ben".
	fbCases, fbVerdicts := scored([]float64{0.95, 0.8, 0.3}, []float64{0.9, 0.2, 0.1})
	fbCases = append(fbCases, benCase("bf", 0))
	fbVerdicts["bf"] = failed()

	tests := []struct {
		name     string
		cases    []score.Case
		verdicts map[string]verdict.Verdict
		opt      score.Options
		want     *score.VDS
	}{
		{
			name:  "tie moves vul and ben together, r=0.25",
			cases: tieCases, verdicts: tieVerdicts, opt: score.Options{VDSFPR: 0.25},
			// +Inf: fp 0 tp 0; 0.9: fp 1/4 tp 1; 0.8: fp 1/4 tp 2; 0.5: fp 2/4 > 0.25.
			// largest FPR <= 0.25 is 0.25 at 0.9 and 0.8: take the lower, 0.8. FNR (4-2)/4.
			want: &score.VDS{FPRTolerance: 0.25, FNR: 0.5, Threshold: thr(0.8), N: 8, Source: score.SourceUnspecified},
		},
		{
			name:  "tie at the top keeps nothing below r=0.2",
			cases: tieCases, verdicts: tieVerdicts, opt: score.Options{VDSFPR: 0.2},
			// 0.9 takes the vul and the ben together: FPR 1/4 > 0.2, so only +Inf: FNR 4/4.
			want: &score.VDS{FPRTolerance: 0.2, FNR: 1, N: 8, Source: score.SourceUnspecified},
		},
		{
			name:  "default r, FPR equal to r is kept",
			cases: boundCases, verdicts: boundVerdicts,
			// 0.95: fp 0 tp 1; 0.9: fp 1/200 = 0.005 <= 0.005; 0.5: fp 1/200 tp 2; 0.1: fp 200/200.
			// threshold 0.5, FNR 0/2; 202 cases.
			want: &score.VDS{FPRTolerance: 0.005, FNR: 0, Threshold: thr(0.5), N: 202, Source: score.SourceUnspecified},
		},
		{
			name:  "0/1 scores are degenerate, a failed vul case is a false negative",
			cases: degCases, verdicts: degVerdicts, opt: score.Options{VDSFPR: 0.5},
			// scores vul 1, 0, 1, -Inf; ben 0, 0, 1. 1: tp 2 fp 1/3 <= 0.5; 0: fp 3/3.
			// threshold 1, FNR (4-2)/4; distinct finite scores {0, 1}; 7 cases. Of the 6 ok
			// verdicts, 4 have no score (the label stands in) and 2 a score without a source.
			want: &score.VDS{FPRTolerance: 0.5, FNR: 0.5, Threshold: thr(1), Degenerate: true, N: 7,
				Source: score.SourceMixed, Sources: map[string]int{score.SourceLabel: 4, score.SourceUnspecified: 2}},
		},
		{
			name:  "failed ben case left out (failed)",
			cases: fbCases, verdicts: fbVerdicts, opt: score.Options{VDSFPR: 0.3},
			// ben 0.9, 0.2, 0.1 (3). 0.95: tp 1 fp 0; 0.9: fp 1/3 > 0.3. threshold 0.95, FNR 2/3; 6 cases.
			want: &score.VDS{FPRTolerance: 0.3, FNR: 2.0 / 3, Threshold: thr(0.95), N: 6, Source: score.SourceUnspecified},
		},
		{
			name:  "failed ben case kept at -Inf (ben)",
			cases: fbCases, verdicts: fbVerdicts, opt: score.Options{VDSFPR: 0.3, UnparsedAs: score.UnparsedBen},
			// ben 0.9, 0.2, 0.1, -Inf (4). 0.95: tp 1; 0.9: fp 1/4; 0.8: tp 2; 0.3: tp 3, fp 1/4;
			// 0.2: fp 2/4 > 0.3. threshold 0.3, FNR 0/3; 7 cases.
			want: &score.VDS{FPRTolerance: 0.3, FNR: 0, Threshold: thr(0.3), N: 7, Source: score.SourceUnspecified},
		},
		{
			name:     "no ben case with a score",
			cases:    []score.Case{vulCase("v", 0), benCase("b", 0)},
			verdicts: map[string]verdict.Verdict{"v": okScore(suite.Vul, 0.7), "b": errored()},
			want:     nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := score.Compute(tt.cases, score.Answers(tt.cases, tt.verdicts), tt.opt)
			if diff := cmp.Diff(tt.want, r.VDS, approx()); diff != "" {
				t.Errorf("vds (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScoreSource: a stated confidence becomes the VD-S score P(vul) when a verdict has no score,
// and every run says where its scores came from.
func TestScoreSource(t *testing.T) {
	conf := func(l suite.Label, c float64) verdict.Verdict {
		return verdict.Verdict{Status: verdict.OK, Label: l, Confidence: verdict.Float(c)}
	}
	src := func(l suite.Label, s float64, from verdict.ScoreSource) verdict.Verdict {
		v := okScore(l, s)
		v.ScoreSource = from
		return v
	}
	cases := []score.Case{vulCase("v1", 0), vulCase("v2", 0), benCase("b1", 0), benCase("b2", 0)}
	thr := verdict.Float
	tests := []struct {
		name     string
		verdicts map[string]verdict.Verdict
		want     *score.VDS
	}{
		{
			name: "labels only: degenerate",
			verdicts: map[string]verdict.Verdict{"v1": ok(suite.Vul), "v2": ok(suite.Ben),
				"b1": ok(suite.Ben), "b2": ok(suite.Vul)},
			// scores 1, 0 | 0, 1: at 1 FPR 1/2 > r; FNR 1.
			want: &score.VDS{FPRTolerance: 0.005, FNR: 1, Degenerate: true, N: 4, Source: score.SourceLabel},
		},
		{
			name: "stated confidence: P(vul) is the confidence of a vul answer, 1 - that of a ben answer",
			// v1 vul 0.9 -> 0.9; v2 ben 0.8 -> 0.2 (approximately); b1 ben 0.7 -> 0.3; b2 vul 0.6 -> 0.6.
			// Sorted 0.9 (v), 0.6 (b), 0.3 (b), 0.2 (v): only 0.9 has FPR 0: FNR 1/2, not degenerate.
			verdicts: map[string]verdict.Verdict{"v1": conf(suite.Vul, 0.9), "v2": conf(suite.Ben, 0.8),
				"b1": conf(suite.Ben, 0.7), "b2": conf(suite.Vul, 0.6)},
			want: &score.VDS{FPRTolerance: 0.005, FNR: 0.5, Threshold: thr(0.9), N: 4, Source: score.SourceStated},
		},
		{
			name: "a score wins over a confidence and keeps its source",
			verdicts: map[string]verdict.Verdict{
				"v1": {Status: verdict.OK, Label: suite.Vul, Score: verdict.Float(0.95), ScoreSource: verdict.FromLogprob, Confidence: verdict.Float(0.1)},
				"v2": src(suite.Vul, 0.7, verdict.FromLogprob), "b1": src(suite.Ben, 0.2, verdict.FromLogprob),
				"b2": src(suite.Ben, 0.1, verdict.FromLogprob)},
			// 0.95 v, 0.7 v, 0.2 b, 0.1 b: threshold 0.7 keeps FPR 0, FNR 0.
			want: &score.VDS{FPRTolerance: 0.005, FNR: 0, Threshold: thr(0.7), N: 4, Source: score.SourceLogprob},
		},
		{
			name: "mixed sources are counted; an out-of-range confidence is no score",
			verdicts: map[string]verdict.Verdict{"v1": src(suite.Vul, 0.8, verdict.FromTool), "v2": conf(suite.Vul, 1.5),
				"b1": src(suite.Ben, 0.4, verdict.FromStated), "b2": conf(suite.Ben, 0.5)},
			// v1 0.8 tool; v2 label 1; b1 0.4 stated; b2 0.5 stated. Sorted 1 v, 0.8 v, 0.5 b, 0.4 b.
			want: &score.VDS{FPRTolerance: 0.005, FNR: 0, Threshold: thr(0.8), N: 4, Source: score.SourceMixed,
				Sources: map[string]int{score.SourceTool: 1, score.SourceLabel: 1, score.SourceStated: 2}},
		},
		{
			name: "a failed verdict's confidence is ignored; it has no source",
			verdicts: map[string]verdict.Verdict{"v1": conf(suite.Vul, 0.9),
				"v2": {Status: verdict.Failed, Confidence: verdict.Float(0.99)},
				"b1": conf(suite.Ben, 0.9), "b2": conf(suite.Ben, 0.6)},
			// v1 0.9; v2 -Inf; b1 0.1; b2 0.4. 0.9: FPR 0, tp 1: FNR 1/2.
			want: &score.VDS{FPRTolerance: 0.005, FNR: 0.5, Threshold: thr(0.9), N: 4, Source: score.SourceStated},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := score.Compute(cases, score.Answers(cases, tt.verdicts), score.Options{})
			if diff := cmp.Diff(tt.want, r.VDS, approx()); diff != "" {
				t.Errorf("vds (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAggregateScoreSource: repeats of different sources aggregate to mixed, with the count of
// each source over repeats.
func TestAggregateScoreSource(t *testing.T) {
	label := score.Result{Status: score.StatusCounts{OK: 4}, VDS: &score.VDS{N: 4, Source: score.SourceLabel}}
	stated := score.Result{Status: score.StatusCounts{OK: 3, Error: 1}, VDS: &score.VDS{N: 3, Source: score.SourceStated}}
	mixed := score.Result{Status: score.StatusCounts{OK: 4}, VDS: &score.VDS{N: 4, Source: score.SourceMixed,
		Sources: map[string]int{score.SourceLabel: 1, score.SourceStated: 3}}}
	s := func(mean, std float64) score.Stat { return score.Stat{Mean: mean, Std: std} }
	tests := []struct {
		name        string
		rs          []score.Result
		wantSource  string
		wantSources map[string]score.Stat
	}{
		{"one source", []score.Result{label, label}, score.SourceLabel, nil},
		// label 4, 0; stated 0, 3: std |a-b|/sqrt2.
		{"two sources", []score.Result{label, stated}, score.SourceMixed,
			map[string]score.Stat{score.SourceLabel: s(2, 4/math.Sqrt2), score.SourceStated: s(1.5, 3/math.Sqrt2)}},
		// label 4, 1; stated 0, 3.
		{"a mixed repeat", []score.Result{label, mixed}, score.SourceMixed,
			map[string]score.Stat{score.SourceLabel: s(2.5, 3/math.Sqrt2), score.SourceStated: s(1.5, 3/math.Sqrt2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := score.Aggregate(tt.rs)
			if diff := cmp.Diff(tt.wantSource, a.VDS.Source); diff != "" {
				t.Errorf("source (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSources, a.VDS.Sources, approx()); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComputeByCWE(t *testing.T) {
	cases := []score.Case{
		vulCase("av", 7, "CWE-476"), benCase("ab", 7, "CWE-476"),
		vulCase("bv", 8, "CWE-476", "CWE-787"), benCase("bb", 8),
		vulCase("cv", 9, "CWE-787"), benCase("cb", 9),
		vulCase("d", 0),
	}
	vs := map[string]verdict.Verdict{
		"av": ok(suite.Vul), "ab": ok(suite.Ben), // P-C
		"bv": ok(suite.Ben), "bb": ok(suite.Vul), // P-R
		"cv": ok(suite.Vul), "cb": ok(suite.Vul), // P-V
		"d": ok(suite.Vul),
	}
	// CWE-476: av tp, ab tn, bv fn => n 3, recall 1/2, F1 2*1/(2*1+0+1) = 2/3;
	//          pairs A (P-C) and B (P-R) => pAcc 1/2.
	// CWE-787: bv fn, cv tp => n 2, recall 1/2, F1 2/3; pairs B (P-R) and C (P-V) => pAcc 0.
	// Whole suite: tp av cv d = 3, fn bv = 1, tn ab = 1, fp bb cb = 2.
	// accuracy 4/7; precision 3/5; recall 3/4; F1 6/(6+2+1) = 2/3; FPR 2/3; FNR 1/4; TNR 1/3.
	// Pairs A P-C, B P-R, C P-V: 1/3 each.
	// VD-S (0/1 scores, r 0.005): vul 1 1 0 1, ben 0 1 1; at 1 FPR 2/3 > r => +Inf, FNR 1.
	want := score.Result{
		N:      7,
		Status: score.StatusCounts{OK: 7},
		Binary: score.Binary{TP: 3, FP: 2, TN: 1, FN: 1,
			Accuracy: 4.0 / 7, Precision: 0.6, Recall: 0.75, F1: 2.0 / 3, FPR: 2.0 / 3, FNR: 0.25, TNR: 1.0 / 3},
		Pairwise: &score.Pairwise{Pairs: 3, PC: 1.0 / 3, PV: 1.0 / 3, PR: 1.0 / 3, PAcc: 1.0 / 3},
		VDS:      &score.VDS{FPRTolerance: 0.005, FNR: 1, Degenerate: true, N: 7, Source: score.SourceLabel},
		ByCWE: map[string]score.CWEScore{
			"CWE-476": {N: 3, TP: 1, FN: 1, TN: 1, Recall: 0.5, F1: 2.0 / 3, Pairs: 2, PAcc: 0.5},
			"CWE-787": {N: 2, TP: 1, FN: 1, Recall: 0.5, F1: 2.0 / 3, Pairs: 2, PAcc: 0},
		},
	}
	got := score.Compute(cases, score.Answers(cases, vs), score.Options{})
	if diff := cmp.Diff(want, got, approx()); diff != "" {
		t.Errorf("Compute (-want +got):\n%s", diff)
	}
}

func TestAggregate(t *testing.T) {
	r1 := score.Result{
		N:        4,
		Status:   score.StatusCounts{OK: 4},
		Binary:   score.Binary{TP: 2, FP: 1, TN: 1, Accuracy: 0.75, F1: 0.8},
		Pairwise: &score.Pairwise{Pairs: 2, PC: 0.5, PV: 0.5, PAcc: 0.5},
		VDS:      &score.VDS{FPRTolerance: 0.005, FNR: 0.5, Threshold: verdict.Float(0.7), N: 4},
		ByCWE:    map[string]score.CWEScore{"CWE-1": {N: 2, TP: 1, Recall: 1, F1: 1}},
	}
	r2 := score.Result{
		N:        4,
		Status:   score.StatusCounts{OK: 3, Error: 1},
		Binary:   score.Binary{TP: 1, TN: 2, Accuracy: 1, F1: 1},
		Pairwise: &score.Pairwise{Pairs: 1, Incomplete: 1, PC: 1, PAcc: 1},
		VDS:      &score.VDS{FPRTolerance: 0.005, FNR: 1, Degenerate: true, N: 3},
		ByCWE: map[string]score.CWEScore{
			"CWE-1": {N: 2, TP: 1, FN: 1, Recall: 0.5, F1: 2.0 / 3},
			"CWE-2": {N: 1, TN: 1},
		},
	}
	r3 := r1
	r3.VDS = &score.VDS{FPRTolerance: 0.005, FNR: 0.5, Threshold: verdict.Float(0.5), N: 4}

	s := func(mean, std float64) score.Stat { return score.Stat{Mean: mean, Std: std} }
	// For two values a, b the sample std is |a-b|/sqrt(2): sqrt(((a-m)^2 + (b-m)^2) / (2-1)).
	sqrt2 := math.Sqrt2
	type agg = score.ResultOf[score.Stat, score.Stat]

	tests := []struct {
		name string
		rs   []score.Result
		want score.Aggregated
	}{
		{name: "none", rs: nil, want: score.Aggregated{}},
		{
			name: "two repeats",
			rs:   []score.Result{r1, r2},
			want: score.Aggregated{Repeats: 2, ResultOf: agg{
				N: s(4, 0),
				// ok 4, 3 => 3.5 ± 1/sqrt2; error 0, 1 => 0.5 ± 1/sqrt2.
				Status: score.StatusOf[score.Stat]{OK: s(3.5, 1/sqrt2), Error: s(0.5, 1/sqrt2)},
				// tp 2, 1; fp 1, 0; tn 1, 2; accuracy 0.75, 1 => 0.875 ± 0.25/sqrt2; F1 0.8, 1 => 0.9 ± 0.2/sqrt2.
				Binary: score.BinaryOf[score.Stat, score.Stat]{
					TP: s(1.5, 1/sqrt2), FP: s(0.5, 1/sqrt2), TN: s(1.5, 1/sqrt2),
					Accuracy: s(0.875, 0.25/sqrt2), F1: s(0.9, 0.2/sqrt2),
				},
				// pairs 2, 1; incomplete 0, 1; P-C 0.5, 1; P-V 0.5, 0; pAcc 0.5, 1.
				Pairwise: &score.PairwiseOf[score.Stat, score.Stat]{
					Pairs: s(1.5, 1/sqrt2), Incomplete: s(0.5, 1/sqrt2),
					PC: s(0.75, 0.5/sqrt2), PV: s(0.25, 0.5/sqrt2), PAcc: s(0.75, 0.5/sqrt2),
				},
				// FNR 0.5, 1; threshold nil in r2 => nil; degenerate in r2 => true; n 4, 3.
				VDS: &score.VDSOf[score.Stat, score.Stat]{
					FPRTolerance: s(0.005, 0), FNR: s(0.75, 0.5/sqrt2), Degenerate: true, N: s(3.5, 1/sqrt2),
				},
				// CWE-1: fn 0, 1; recall 1, 0.5; F1 1, 2/3 => 5/6 ± (1/3)/sqrt2. CWE-2 only in r2: std 0.
				ByCWE: map[string]score.CWEOf[score.Stat, score.Stat]{
					"CWE-1": {N: s(2, 0), TP: s(1, 0), FN: s(0.5, 1/sqrt2), Recall: s(0.75, 0.5/sqrt2), F1: s(5.0/6, (1.0/3)/sqrt2)},
					"CWE-2": {N: s(1, 0), TN: s(1, 0)},
				},
			}},
		},
		{
			name: "finite thresholds aggregate",
			rs:   []score.Result{r1, r3},
			// everything equal but the threshold: 0.7, 0.5 => 0.6 ± 0.2/sqrt2.
			want: score.Aggregated{Repeats: 2, ResultOf: agg{
				N:      s(4, 0),
				Status: score.StatusOf[score.Stat]{OK: s(4, 0)},
				Binary: score.BinaryOf[score.Stat, score.Stat]{TP: s(2, 0), FP: s(1, 0), TN: s(1, 0), Accuracy: s(0.75, 0), F1: s(0.8, 0)},
				Pairwise: &score.PairwiseOf[score.Stat, score.Stat]{
					Pairs: s(2, 0), PC: s(0.5, 0), PV: s(0.5, 0), PAcc: s(0.5, 0),
				},
				VDS: &score.VDSOf[score.Stat, score.Stat]{
					FPRTolerance: s(0.005, 0), FNR: s(0.5, 0), Threshold: &score.Stat{Mean: 0.6, Std: 0.2 / sqrt2}, N: s(4, 0),
				},
				ByCWE: map[string]score.CWEOf[score.Stat, score.Stat]{
					"CWE-1": {N: s(2, 0), TP: s(1, 0), Recall: s(1, 0), F1: s(1, 0)},
				},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := score.Aggregate(tt.rs)
			if diff := cmp.Diff(tt.want, got, approx()); diff != "" {
				t.Errorf("Aggregate (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	r := score.Result{
		N:        2,
		Status:   score.StatusCounts{OK: 2},
		Binary:   score.Binary{TP: 1, TN: 1, Accuracy: 1},
		Pairwise: &score.Pairwise{Pairs: 1, PC: 1, PAcc: 1},
		VDS:      &score.VDS{FPRTolerance: 0.005, FNR: 1, Degenerate: true, N: 2},
		ByCWE:    map[string]score.CWEScore{"CWE-476": {N: 1, TP: 1}},
	}
	want := `{"n":2,"status":{"ok":2,"failed":0,"error":0,"missing":0},` +
		`"binary":{"tp":1,"fp":0,"tn":1,"fn":0,"failed_vul":0,"failed_ben":0,"accuracy":1,"precision":0,"recall":0,"f1":0,"fpr":0,"fnr":0,"tnr":0},` +
		`"pairwise":{"pairs":1,"incomplete":0,"p_c":1,"p_v":0,"p_b":0,"p_r":0,"pacc":1},` +
		`"vds":{"fpr_tolerance":0.005,"fnr":1,"threshold":null,"degenerate":true,"n":2},` +
		`"by_cwe":{"CWE-476":{"n":1,"tp":1,"fn":0,"fp":0,"tn":0,"recall":0,"f1":0,"pairs":0,"pacc":0}}}`
	got, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Result JSON (-want +got):\n%s", diff)
	}

	// Absent sections are omitted; over repeats each figure is {"mean","std"}.
	a := score.Aggregate([]score.Result{{N: 1}})
	wantAgg := `{"repeats":1,"n":{"mean":1,"std":0},` +
		`"status":{"ok":{"mean":0,"std":0},"failed":{"mean":0,"std":0},"error":{"mean":0,"std":0},"missing":{"mean":0,"std":0}},` +
		`"binary":{"tp":{"mean":0,"std":0},"fp":{"mean":0,"std":0},"tn":{"mean":0,"std":0},"fn":{"mean":0,"std":0},` +
		`"failed_vul":{"mean":0,"std":0},"failed_ben":{"mean":0,"std":0},"accuracy":{"mean":0,"std":0},` +
		`"precision":{"mean":0,"std":0},"recall":{"mean":0,"std":0},"f1":{"mean":0,"std":0},` +
		`"fpr":{"mean":0,"std":0},"fnr":{"mean":0,"std":0},"tnr":{"mean":0,"std":0}}}`
	got, err = json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantAgg, string(got)); diff != "" {
		t.Errorf("Aggregated JSON (-want +got):\n%s", diff)
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		opt     score.Options
		wantErr bool
	}{
		{score.Options{}, false},
		{score.Options{VDSFPR: 0.01, UnparsedAs: score.UnparsedBen}, false},
		{score.Options{UnparsedAs: score.UnparsedFailed}, false},
		{score.Options{VDSFPR: -0.1}, true},
		{score.Options{VDSFPR: 1.5}, true},
		{score.Options{VDSFPR: math.NaN()}, true},
		{score.Options{UnparsedAs: "vul"}, true},
	}
	for _, tt := range tests {
		if err := tt.opt.Validate(); (err != nil) != tt.wantErr {
			t.Errorf("%+v.Validate() = %v, want error %v", tt.opt, err, tt.wantErr)
		}
	}
}
