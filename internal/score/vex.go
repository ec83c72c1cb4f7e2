package score

import (
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// VEXFailed is the confusion matrix's thirteenth label: a failed answer (none, unparsable, or a
// category that is not one of the twelve).
const VEXFailed = "failed"

// VEXAlternatives is the Case.VEXAlt of a case's acceptable alternative categories: bit i set
// for the category whose VEXCategory is i; names that are no category are left out.
func VEXAlternatives(names []string) uint16 {
	var bits uint16
	for _, n := range names {
		if c := vexCat(n); c > 0 {
			bits |= 1 << uint(c)
		}
	}
	return bits
}

// VEXLabels are the rows and columns of the VEX confusion matrix: the twelve categories in
// VEX-Bench's order, then VEXFailed.
func VEXLabels() []string {
	return append(append([]string(nil), suite.VEXCategories...), VEXFailed)
}

// VEXOf holds VEX-Bench's metrics over the vex cases that have a ground-truth category and a
// scored (ok or failed) verdict; error and missing verdicts are left out of every figure but the
// completion rate.
//
// Status: exploitable (the category vulnerable) is positive; a failed answer is wrong for accuracy,
// a false negative on an exploitable case and never a false positive. Justification: exact
// category; macro-F1 averages the per-class F1 over the categories present in the ground truth
// (a class never predicted has precision 0; zero division is 0); weighted F1 weights them by
// support. CompletionRate is the share of all vex cases (errors and missing included) answered
// with one of the twelve categories.
type VEXOf[C, F any] struct {
	N                       C `json:"n"`
	Failed                  C `json:"failed"`
	TP                      C `json:"status_tp"`
	FP                      C `json:"status_fp"`
	TN                      C `json:"status_tn"`
	FN                      C `json:"status_fn"`
	StatusAccuracy          F `json:"status_accuracy"`
	StatusPrecision         F `json:"status_precision"`
	StatusRecall            F `json:"status_recall"`
	StatusF1                F `json:"status_f1"`
	JustificationAccuracy   F `json:"justification_accuracy"`
	JustificationMacroF1    F `json:"justification_macro_f1"`
	JustificationWeightedF1 F `json:"justification_weighted_f1"`
	// JustificationAccuracyLenient and JustificationMacroF1Lenient are the same figures when an
	// answer among a case's acceptable alternatives (its vex.alternatives, what annotators also
	// accepted) counts as the case's category; nil when no case has alternatives (they would
	// equal the strict ones).
	JustificationAccuracyLenient *F                       `json:"justification_accuracy_lenient,omitempty"`
	JustificationMacroF1Lenient  *F                       `json:"justification_macro_f1_lenient,omitempty"`
	PerClass                     map[string]ClassOf[C, F] `json:"per_class"`
	Confusion                    ConfusionOf[C]           `json:"confusion"`
	CompletionRate               F                        `json:"completion_rate"`
}

// ClassOf is one category's figures: every class of the ground truth, and every category some
// answer gave.
type ClassOf[C, F any] struct {
	Precision F `json:"precision"`
	Recall    F `json:"recall"`
	F1        F `json:"f1"`
	Support   C `json:"support"`
}

// ConfusionOf is the 13 x 13 confusion matrix: Matrix[truth][answer], both indexed like Labels
// (VEXLabels).
type ConfusionOf[C any] struct {
	Labels []string `json:"labels"`
	Matrix [][]C    `json:"matrix"`
}

// The VEX figures of one repeat.
type (
	VEX      = VEXOf[int, float64]
	VEXClass = ClassOf[int, float64]
)

// vexCat is the category index + 1 of s (0 when empty, catInvalid when not one of the twelve).
func vexCat(s string) int8 {
	if s == "" {
		return 0
	}
	s = strings.ToLower(strings.TrimSpace(s))
	for i, c := range suite.VEXCategories {
		if c == s {
			return int8(i + 1)
		}
	}
	return catInvalid
}

const catInvalid = -1

// vexAnswerCat is the category an answer's verdict gave.
func vexAnswerCat(v verdict.Verdict) int8 {
	if v.VEX == nil {
		return 0
	}
	return vexCat(v.VEX.Category)
}

// vexScore computes the VEX section, nil when no case has a ground-truth category.
//
// A case's answer: an ok verdict with one of the twelve categories gives that category and its
// status; an ok verdict without a category (a subject that only labels) gives the status of its
// label and a failed justification; a failed verdict, or an ok one whose category is not one of
// the twelve, is failed for both.
func vexScore(cases []Case, answers []Answer) *VEX {
	if !slices.ContainsFunc(cases, func(c Case) bool { return c.VEX > 0 }) {
		return nil
	}
	labels := VEXLabels()
	nl := len(labels)
	failed := int8(nl) // the index of VEXFailed, + 1
	m := make([][]int, nl)
	for i := range m {
		m[i] = make([]int, nl)
	}
	var ml [][]int // the lenient matrix, when some case has alternatives
	if slices.ContainsFunc(cases, func(c Case) bool { return c.VEX > 0 && c.VEXAlt != 0 }) {
		ml = make([][]int, nl)
		for i := range ml {
			ml[i] = make([]int, nl)
		}
	}
	var total, answered int
	var tp, fp, tn, fn, nFailed, n int
	for i := range cases {
		t := cases[i].VEX
		if t <= 0 {
			continue
		}
		total++
		var a Answer
		if i < len(answers) {
			a = answers[i]
		}
		o, counts := vexOf(t, a)
		if !counts {
			continue
		}
		n++
		if o.answered {
			answered++
		}
		if o.p == failed {
			nFailed++
		}
		m[t-1][o.p-1]++
		if ml != nil {
			ml[t-1][lenientAnswer(cases[i], t, o.p)-1]++
		}
		switch o.status {
		case statusTP:
			tp++
		case statusFP:
			fp++
		case statusTN:
			tn++
		case statusFN:
			fn++
		}
	}
	x := &VEX{N: n, Failed: nFailed, TP: tp, FP: fp, TN: tn, FN: fn,
		StatusAccuracy:  ratio(tp+tn, n),
		StatusPrecision: ratio(tp, tp+fp),
		StatusRecall:    ratio(tp, tp+fn),
		StatusF1:        ratio(2*tp, 2*tp+fp+fn),
		CompletionRate:  ratio(answered, total),
		PerClass:        map[string]VEXClass{},
		Confusion:       ConfusionOf[int]{Labels: labels, Matrix: m},
	}
	correct, macro, weighted := justification(m, labels, x.PerClass)
	x.JustificationAccuracy = ratio(correct, n)
	x.JustificationMacroF1, x.JustificationWeightedF1 = macro, weighted
	if ml != nil {
		lc, lm, _ := justification(ml, labels, nil)
		acc := ratio(lc, n)
		x.JustificationAccuracyLenient, x.JustificationMacroF1Lenient = &acc, &lm
	}
	return x
}

// justification reads the justification figures off a confusion matrix over labels (the twelve
// categories, then failed): the answers right, the macro-F1 over the categories of the ground
// truth and the F1 weighted by their support; each class's figures go into per when it is not
// nil.
func justification(m [][]int, labels []string, per map[string]VEXClass) (correct int, macro, weighted float64) {
	nl := len(labels)
	var present, support int
	for c := 0; c < nl-1; c++ { // the twelve categories
		sup, pred := 0, 0
		for j := 0; j < nl; j++ {
			sup += m[c][j]
			pred += m[j][c]
		}
		if sup == 0 && pred == 0 {
			continue
		}
		hit := m[c][c]
		correct += hit
		k := VEXClass{Precision: ratio(hit, pred), Recall: ratio(hit, sup), F1: ratio(2*hit, sup+pred), Support: sup}
		if per != nil {
			per[labels[c]] = k
		}
		if sup > 0 {
			present++
			support += sup
			macro += k.F1
			weighted += float64(sup) * k.F1
		}
	}
	if present > 0 {
		macro /= float64(present)
	}
	if support > 0 {
		weighted /= float64(support)
	}
	return correct, macro, weighted
}

// lenientAnswer is the justification p answered on case c of category t as lenient scoring
// reads it: one of the case's acceptable alternatives counts as t.
func lenientAnswer(c Case, t, p int8) int8 {
	if p != t && int(p) <= len(suite.VEXCategories) && c.VEXAlt&(1<<uint(p)) != 0 {
		return t
	}
	return p
}

// The status outcomes of a vex answer (vexOutcome.status).
const (
	statusNone int8 = iota // a failed answer on a case that is not exploitable: in no count
	statusTP
	statusFP
	statusTN
	statusFN
)

// vexOutcome is what one vex case adds to the VEX figures.
type vexOutcome struct {
	p        int8 // the justification answered: category index + 1, or that of VEXFailed
	status   int8 // statusTP, ...
	answered bool // with one of the twelve categories (the completion rate)
}

// vexOf is the outcome of answer a on a case of ground-truth category t (index + 1); counts is
// false for an error or missing verdict, which no figure but the completion rate counts.
//
// An ok verdict with one of the twelve categories gives that category and its status; an ok
// verdict without a category (a subject that only labels) gives the status of its label and a
// failed justification; a failed verdict, or an ok one whose category is not one of the twelve,
// is failed for both: wrong, a false negative on an exploitable case, never a false positive.
func vexOf(t int8, a Answer) (o vexOutcome, counts bool) {
	failed := int8(len(suite.VEXCategories) + 1)
	var vul, ok bool // the status answered; ok false: failed
	switch {
	case a.out == outFailed || a.out == outStopped || a.cat == catInvalid:
		o.p = failed
	case a.out == outVul || a.out == outBen:
		if a.cat > 0 {
			o.p, vul, ok, o.answered = a.cat, suite.VEXCategories[a.cat-1] == suite.VEXVulnerable, true, true
		} else {
			o.p, vul, ok = failed, a.out == outVul, true
		}
	default: // error, missing
		return o, false
	}
	truthVul := suite.VEXCategories[t-1] == suite.VEXVulnerable
	switch {
	case ok && vul && truthVul:
		o.status = statusTP
	case ok && vul:
		o.status = statusFP
	case ok && !truthVul:
		o.status = statusTN
	case truthVul: // an answer of not exploitable, or failed
		o.status = statusFN
	}
	return o, true
}

// aggregateVEX is the Stat of every VEX figure over the repeats that have the section; a class
// over the repeats that have it.
func aggregateVEX(xs []VEX) *VEXOf[Stat, Stat] {
	if len(xs) == 0 {
		return nil
	}
	a := &VEXOf[Stat, Stat]{
		N:                       over(xs, func(x VEX) float64 { return float64(x.N) }),
		Failed:                  over(xs, func(x VEX) float64 { return float64(x.Failed) }),
		TP:                      over(xs, func(x VEX) float64 { return float64(x.TP) }),
		FP:                      over(xs, func(x VEX) float64 { return float64(x.FP) }),
		TN:                      over(xs, func(x VEX) float64 { return float64(x.TN) }),
		FN:                      over(xs, func(x VEX) float64 { return float64(x.FN) }),
		StatusAccuracy:          over(xs, func(x VEX) float64 { return x.StatusAccuracy }),
		StatusPrecision:         over(xs, func(x VEX) float64 { return x.StatusPrecision }),
		StatusRecall:            over(xs, func(x VEX) float64 { return x.StatusRecall }),
		StatusF1:                over(xs, func(x VEX) float64 { return x.StatusF1 }),
		JustificationAccuracy:   over(xs, func(x VEX) float64 { return x.JustificationAccuracy }),
		JustificationMacroF1:    over(xs, func(x VEX) float64 { return x.JustificationMacroF1 }),
		JustificationWeightedF1: over(xs, func(x VEX) float64 { return x.JustificationWeightedF1 }),
		CompletionRate:          over(xs, func(x VEX) float64 { return x.CompletionRate }),
		PerClass:                map[string]ClassOf[Stat, Stat]{},
	}
	if !slices.ContainsFunc(xs, func(x VEX) bool { return x.JustificationMacroF1Lenient == nil }) {
		acc := over(xs, func(x VEX) float64 { return *x.JustificationAccuracyLenient })
		mf := over(xs, func(x VEX) float64 { return *x.JustificationMacroF1Lenient })
		a.JustificationAccuracyLenient, a.JustificationMacroF1Lenient = &acc, &mf
	}
	classes := map[string][]VEXClass{}
	for _, x := range xs {
		for name, k := range x.PerClass {
			classes[name] = append(classes[name], k)
		}
	}
	for name, ks := range classes {
		a.PerClass[name] = ClassOf[Stat, Stat]{
			Precision: over(ks, func(k VEXClass) float64 { return k.Precision }),
			Recall:    over(ks, func(k VEXClass) float64 { return k.Recall }),
			F1:        over(ks, func(k VEXClass) float64 { return k.F1 }),
			Support:   over(ks, func(k VEXClass) float64 { return float64(k.Support) }),
		}
	}
	labels := xs[0].Confusion.Labels
	a.Confusion = ConfusionOf[Stat]{Labels: labels, Matrix: make([][]Stat, len(labels))}
	for i := range labels {
		a.Confusion.Matrix[i] = make([]Stat, len(labels))
		for j := range labels {
			a.Confusion.Matrix[i][j] = over(xs, func(x VEX) float64 { return float64(x.Confusion.Matrix[i][j]) })
		}
	}
	return a
}

// VEXRight says whether an answer gave a vex case's ground-truth category; judged is false for
// an error or missing verdict, and for a case without a category (left out of paired tests).
func VEXRight(c *Case, a Answer) (right, judged bool) {
	if c.VEX <= 0 {
		return false, false
	}
	o, counts := vexOf(c.VEX, a)
	return counts && o.p == c.VEX, counts
}
