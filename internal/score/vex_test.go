package score_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// vexCase is a ground-truth vex case of category cat.
func vexCase(id, cat string) score.Case {
	l := suite.Ben
	if cat == "vulnerable" {
		l = suite.Vul
	}
	return score.Case{ID: id, Vul: l == suite.Vul, VEX: score.VEXCategory(cat)}
}

// vexAnswer is a verdict that answers cat; "failed", "error" and "missing" are those outcomes,
// any other unknown name an ok verdict with an invalid category.
func vexAnswer(id, cat string) (verdict.Verdict, bool) {
	switch cat {
	case "missing":
		return verdict.Verdict{}, false
	case "failed":
		return verdict.Verdict{CaseID: id, Status: verdict.Failed}, true
	case "stopped":
		v := verdict.Stopped("--timeout 10m0s", verdict.Usage{})
		v.CaseID = id
		return v, true
	case "error":
		return verdict.Verdict{CaseID: id, Status: verdict.Error}, true
	}
	l := suite.Ben
	if cat == "vulnerable" {
		l = suite.Vul
	}
	return verdict.Verdict{CaseID: id, Status: verdict.OK, Label: l, VEX: &verdict.VEX{Category: cat}}, true
}

func vexScore(cases []score.Case, answers []string) score.Result {
	vs := map[string]verdict.Verdict{}
	for i, a := range answers {
		if v, ok := vexAnswer(cases[i].ID, a); ok {
			vs[cases[i].ID] = v
		}
	}
	return score.Compute(cases, score.Answers(cases, vs), score.Options{})
}

// reference computes VEX-Bench's figures the way scikit-learn does, sample by sample:
// f1_score(labels=sorted(set(y_true)), average="macro"|"weighted", zero_division=0).
type reference struct {
	statusAcc, statusP, statusR, statusF1    float64
	justAcc, macroF1, weightedF1, completion float64
}

func referenceOf(truth, answers []string) reference {
	var yt, yp []string
	valid := 0
	for i, a := range answers {
		if a == "error" || a == "missing" {
			continue
		}
		if !slices.Contains(suite.VEXCategories, a) {
			a = "failed"
		} else {
			valid++
		}
		yt, yp = append(yt, truth[i]), append(yp, a)
	}
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	var r reference
	var tp, fp, fn, correct, jcorrect float64
	for i := range yt {
		tv, pv := yt[i] == "vulnerable", yp[i] == "vulnerable"
		failed := yp[i] == "failed"
		switch {
		case !failed && tv == pv:
			correct++
			if tv {
				tp++
			}
		case !failed && pv:
			fp++
		case tv:
			fn++
		}
		if yt[i] == yp[i] {
			jcorrect++
		}
	}
	r.statusAcc = div(correct, float64(len(yt)))
	r.statusP, r.statusR = div(tp, tp+fp), div(tp, tp+fn)
	r.statusF1 = div(2*r.statusP*r.statusR, r.statusP+r.statusR)
	r.justAcc = div(jcorrect, float64(len(yt)))
	labels := slices.Compact(slices.Sorted(slices.Values(slices.Clone(yt))))
	var sumW float64
	for _, l := range labels {
		var tp, fp, fn, sup float64
		for i := range yt {
			switch {
			case yt[i] == l && yp[i] == l:
				tp++
			case yp[i] == l:
				fp++
			case yt[i] == l:
				fn++
			}
			if yt[i] == l {
				sup++
			}
		}
		p, rc := div(tp, tp+fp), div(tp, tp+fn)
		f := div(2*p*rc, p+rc)
		r.macroF1 += f / float64(len(labels))
		r.weightedF1 += sup * f
		sumW += sup
	}
	r.weightedF1 = div(r.weightedF1, sumW)
	r.completion = div(float64(valid), float64(len(truth)))
	return r
}

func got(x *score.VEX) reference {
	return reference{x.StatusAccuracy, x.StatusPrecision, x.StatusRecall, x.StatusF1,
		x.JustificationAccuracy, x.JustificationMacroF1, x.JustificationWeightedF1, x.CompletionRate}
}

// randomTask draws a VEX-Bench-like ground truth and answers from every category plus failed,
// error, missing and an invalid category.
func randomTask(rng *rand.Rand, n int) ([]score.Case, []string, []string) {
	present := []string{"code_not_reachable", "vulnerable", "requires_configuration", "code_not_present", "requires_environment"}
	weights := []int{38, 22, 7, 6, 2}
	answersFrom := append(slices.Clone(suite.VEXCategories), present...) // answers lean to the truth's classes
	answersFrom = append(answersFrom, "failed", "error", "missing", "Not-A-Category")
	var cases []score.Case
	var truth, answers []string
	for i := 0; i < n; i++ {
		k, x := 0, rng.IntN(75)
		for x >= weights[k] {
			x -= weights[k]
			k++
		}
		truth = append(truth, present[k])
		cases = append(cases, vexCase("c"+string(rune('A'+i%26))+string(rune('a'+i/26)), present[k]))
		a := answersFrom[rng.IntN(len(answersFrom))]
		if rng.IntN(3) == 0 {
			a = present[k] // some right answers
		}
		answers = append(answers, a)
	}
	return cases, truth, answers
}

func TestVEXRandomAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		cases, truth, answers := randomTask(rng, 5+rng.IntN(90))
		res := vexScore(cases, answers)
		if res.VEX == nil {
			t.Fatal("no VEX section")
		}
		if d := cmp.Diff(referenceOf(truth, answers), got(res.VEX), cmp.AllowUnexported(reference{}), approx()); d != "" {
			t.Fatalf("trial %d (-reference +got):\n%s\ntruth %v\nanswers %v", trial, d, truth, answers)
		}
	}
}

func TestVEXRepeatsMeanAndSampleStd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases, truth, _ := randomTask(rng, 75)
	var rs []score.Result
	var refs []reference
	for k := 0; k < 3; k++ {
		_, _, answers := randomTask(rng, 75)
		rs = append(rs, vexScore(cases, answers))
		refs = append(refs, referenceOf(truth, answers))
	}
	a := score.Aggregate(rs)
	sample := func(f func(reference) float64) score.Stat {
		m := (f(refs[0]) + f(refs[1]) + f(refs[2])) / 3
		ss := 0.0
		for _, r := range refs {
			ss += (f(r) - m) * (f(r) - m)
		}
		return score.Stat{Mean: m, Std: math.Sqrt(ss / 2)}
	}
	want := []score.Stat{
		sample(func(r reference) float64 { return r.statusF1 }),
		sample(func(r reference) float64 { return r.statusAcc }),
		sample(func(r reference) float64 { return r.macroF1 }),
		sample(func(r reference) float64 { return r.weightedF1 }),
		sample(func(r reference) float64 { return r.justAcc }),
		sample(func(r reference) float64 { return r.completion }),
	}
	x := a.VEX
	gotStats := []score.Stat{x.StatusF1, x.StatusAccuracy, x.JustificationMacroF1, x.JustificationWeightedF1,
		x.JustificationAccuracy, x.CompletionRate}
	if d := cmp.Diff(want, gotStats, approx()); d != "" {
		t.Errorf("over 3 repeats (-want +got):\n%s", d)
	}
	if x.StatusF1.Std == 0 || x.JustificationMacroF1.Std == 0 {
		t.Errorf("random repeats should differ: %+v", x)
	}
	// A cell of the confusion matrix is aggregated too.
	var cells []float64
	for _, r := range rs {
		cells = append(cells, float64(r.VEX.Confusion.Matrix[2][2]))
	}
	m := (cells[0] + cells[1] + cells[2]) / 3
	sd := math.Sqrt(((cells[0]-m)*(cells[0]-m) + (cells[1]-m)*(cells[1]-m) + (cells[2]-m)*(cells[2]-m)) / 2)
	if d := cmp.Diff(score.Stat{Mean: m, Std: sd}, x.Confusion.Matrix[2][2], approx()); d != "" {
		t.Errorf("confusion cell (-want +got):\n%s", d)
	}
}

func TestVEXEdgeCases(t *testing.T) {
	const (
		cnr = "code_not_reachable"
		vul = "vulnerable"
		cnp = "code_not_present"
		rc  = "requires_configuration"
		fp  = "false_positive"
	)
	cases := []score.Case{vexCase("a", cnr), vexCase("b", cnr), vexCase("c", vul), vexCase("d", vul), vexCase("e", cnp)}
	labels := score.VEXLabels()
	matrix := func(cells map[[2]string]int) [][]int {
		m := make([][]int, len(labels))
		for i := range m {
			m[i] = make([]int, len(labels))
		}
		for k, n := range cells {
			m[slices.Index(labels, k[0])][slices.Index(labels, k[1])] = n
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		answers []string
		want    score.VEX
	}{{
		// code_not_present is never predicted: its F1 is 0 and still counts in the macro average;
		// false_positive and requires_configuration are answered but not in the truth: per-class
		// figures with support 0, outside the averages.
		name:    "class never predicted, classes outside the truth",
		answers: []string{cnr, fp, vul, rc, rc},
		want: score.VEX{N: 5, TP: 1, TN: 3, FN: 1,
			StatusAccuracy: 0.8, StatusPrecision: 1, StatusRecall: 0.5, StatusF1: 2.0 / 3,
			JustificationAccuracy: 0.4,
			// F1: cnr 2/3 (p 1, r 1/2), vul 2/3, cnp 0
			JustificationMacroF1:    (2.0/3 + 2.0/3 + 0) / 3,
			JustificationWeightedF1: (2*2.0/3 + 2*2.0/3 + 0) / 5,
			PerClass: map[string]score.VEXClass{
				cnr: {Precision: 1, Recall: 0.5, F1: 2.0 / 3, Support: 2},
				vul: {Precision: 1, Recall: 0.5, F1: 2.0 / 3, Support: 2},
				cnp: {Support: 1},
				fp:  {},
				rc:  {},
			},
			Confusion:      score.ConfusionOf[int]{Labels: labels, Matrix: matrix(map[[2]string]int{{cnr, cnr}: 1, {cnr, fp}: 1, {vul, vul}: 1, {vul, rc}: 1, {cnp, rc}: 1})},
			CompletionRate: 1,
		},
	}, {
		name:    "every answer failed",
		answers: []string{"failed", "failed", "failed", "Bogus", "failed"},
		want: score.VEX{N: 5, Failed: 5, FN: 2,
			PerClass: map[string]score.VEXClass{cnr: {Support: 2}, vul: {Support: 2}, cnp: {Support: 1}},
			Confusion: score.ConfusionOf[int]{Labels: labels, Matrix: matrix(map[[2]string]int{
				{cnr, "failed"}: 2, {vul, "failed"}: 2, {cnp, "failed"}: 1})},
		},
	}, {
		// a failed answer is never a false positive; errors and missing verdicts are out of
		// every figure but the completion rate
		name:    "failed, error and missing",
		answers: []string{"failed", "error", vul, "missing", cnp},
		want:    failedErrorMissing(),
	}, {
		// the caps' policy: a stopped unit is the failed answer it replaces, in every figure
		name:    "stopped, error and missing",
		answers: []string{"stopped", "error", vul, "missing", cnp},
		want:    failedErrorMissing(),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res := vexScore(cases, tc.answers)
			if d := cmp.Diff(&tc.want, res.VEX, approx()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	stopped := vexScore(cases, []string{"stopped", "error", vul, "missing", "stopped"})
	if want := (score.StatusCounts{OK: 1, Failed: 2, Stopped: 2, Error: 1, Missing: 1}); stopped.Status != want {
		t.Errorf("status of two stopped units: %+v, want %+v", stopped.Status, want)
	}
}

// failedErrorMissing is TestVEXEdgeCases' figures of one failed answer, one error, one missing
// verdict and two right answers.
func failedErrorMissing() score.VEX {
	labels := score.VEXLabels()
	m := make([][]int, len(labels))
	for i := range m {
		m[i] = make([]int, len(labels))
	}
	for k, n := range map[[2]string]int{{"code_not_reachable", "failed"}: 1, {"vulnerable", "vulnerable"}: 1, {"code_not_present", "code_not_present"}: 1} {
		m[slices.Index(labels, k[0])][slices.Index(labels, k[1])] = n
	}
	cnr, vul, cnp := "code_not_reachable", "vulnerable", "code_not_present"
	return score.VEX{N: 3, Failed: 1, TP: 1, TN: 1,
		StatusAccuracy: 2.0 / 3, StatusPrecision: 1, StatusRecall: 1, StatusF1: 1,
		JustificationAccuracy: 2.0 / 3,
		JustificationMacroF1:  (0 + 1 + 1) / 3.0, JustificationWeightedF1: (1*0 + 1*1 + 1*1) / 3.0,
		PerClass: map[string]score.VEXClass{cnr: {Support: 1}, vul: {Precision: 1, Recall: 1, F1: 1, Support: 1},
			cnp: {Precision: 1, Recall: 1, F1: 1, Support: 1}},
		Confusion:      score.ConfusionOf[int]{Labels: labels, Matrix: m},
		CompletionRate: 2.0 / 5,
	}
}

func TestVEXOnlyForVEXCases(t *testing.T) {
	cases := []score.Case{{ID: "a", Vul: true}, {ID: "b"}}
	res := score.Compute(cases, nil, score.Options{})
	if res.VEX != nil {
		t.Errorf("a suite without vex categories has a VEX section: %+v", res.VEX)
	}
	if a := score.Aggregate([]score.Result{res, res}); a.VEX != nil {
		t.Errorf("aggregate has a VEX section: %+v", a.VEX)
	}
}

// An ok verdict that only labels (a constant baseline) is scored for status, failed for
// justification.
func TestVEXLabelOnly(t *testing.T) {
	cases := []score.Case{vexCase("a", "vulnerable"), vexCase("b", "code_not_reachable")}
	vs := map[string]verdict.Verdict{"a": {CaseID: "a", Status: verdict.OK, Label: suite.Vul}, "b": {CaseID: "b", Status: verdict.OK, Label: suite.Vul}}
	x := score.Compute(cases, score.Answers(cases, vs), score.Options{}).VEX
	if x.TP != 1 || x.FP != 1 || x.Failed != 2 || x.JustificationAccuracy != 0 || x.CompletionRate != 0 {
		t.Errorf("label-only answers: %+v", x)
	}
}

// Lenient justification scoring counts an answer among a case's acceptable alternatives as its
// category. Four cases, by hand:
//
//	c1 code_not_reachable (also requires_configuration) answered requires_configuration
//	c2 vulnerable                                          answered vulnerable
//	c3 code_not_present (also code_not_reachable)          answered code_not_reachable
//	c4 code_not_reachable                                  answered vulnerable
//
// Strict: code_not_present F1 0 (1 case, never answered), code_not_reachable 0 (2 cases, one
// answer, wrong), vulnerable 2*1/(1+2) = 2/3; macro-F1 (0 + 0 + 2/3) / 3 = 2/9, accuracy 1/4.
// Lenient (c1 and c3 right): code_not_present 1, code_not_reachable 2*1/(2+1) = 2/3, vulnerable
// 2/3; macro-F1 (1 + 2/3 + 2/3) / 3 = 7/9, accuracy 3/4.
func TestVEXLenient(t *testing.T) {
	cases := []score.Case{vexCase("c1", "code_not_reachable"), vexCase("c2", "vulnerable"), vexCase("c3", "code_not_present"), vexCase("c4", "code_not_reachable")}
	cases[0].VEXAlt = score.VEXAlternatives([]string{"requires_configuration"})
	cases[2].VEXAlt = score.VEXAlternatives([]string{"code_not_reachable", "no_such_category"})
	x := vexScore(cases, []string{"requires_configuration", "vulnerable", "code_not_reachable", "vulnerable"}).VEX
	if x.JustificationMacroF1Lenient == nil || x.JustificationAccuracyLenient == nil {
		t.Fatal("no lenient figures for a suite with alternatives")
	}
	got := []float64{x.JustificationMacroF1, x.JustificationAccuracy, *x.JustificationMacroF1Lenient, *x.JustificationAccuracyLenient}
	want := []float64{2.0 / 9, 0.25, 7.0 / 9, 0.75}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
		t.Errorf("strict and lenient macro-F1 and accuracy (-want +got):\n%s", diff)
	}
	// Without alternatives there are no lenient figures (they would equal the strict ones).
	for i := range cases {
		cases[i].VEXAlt = 0
	}
	if x := vexScore(cases, []string{"requires_configuration", "vulnerable", "code_not_reachable", "vulnerable"}).VEX; x.JustificationMacroF1Lenient != nil {
		t.Errorf("lenient macro-F1 %v without alternatives", *x.JustificationMacroF1Lenient)
	}
}
