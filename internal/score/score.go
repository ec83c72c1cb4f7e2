// Package score computes the detection metrics of SPEC section 1 from a suite's ground truth and
// one repeat's verdicts: binary metrics (vulnerable is positive), pairwise outcomes (P-C, P-V, P-B,
// P-R, pAcc), VD-S (the false-negative rate at a false-positive-rate tolerance) and per-CWE figures.
// Scores are fractions in [0,1]. Every ratio whose denominator is zero is 0.
package score

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version is the scorer's version, named by every score output (DESIGN section 3: "scorer").
// Bump it whenever the definition of a figure changes, so that scores computed by two scorers
// are never compared unawares. 1 was wave 1; 2 takes a stated confidence as the VD-S score when
// a verdict has no score, and reports the score source; 3 adds the jit section (tool calls per
// label, identical pairs, CWE hit rate) and scores failed verdicts as ben by default on suites
// with jit cases (the JitVul paper's rule); 4 adds the VEX section (VEX-Bench's status and
// justification metrics); 5 adds the appsec section (AppSecBench's rubric, CVSS distance,
// fix checks, judge); 6 asks a fix check only of scanners that tell the vulnerable snippet from
// the record's own secure version (one that flags both said "still flagged" of correct fixes).
const Version = 6

// DefaultVDSFPR is the false-positive-rate tolerance r of VD-S that PrimeVul reports (0.5 %).
const DefaultVDSFPR = 0.005

// The rules for failed verdicts (answers that could not be parsed), chosen by Options.UnparsedAs.
const (
	// UnparsedFailed counts a failed verdict as wrong (VEX-Bench): a false negative on a
	// vulnerable case; on a benign case wrong for accuracy but never a false positive.
	UnparsedFailed = "failed"
	// UnparsedBen counts a failed verdict as a prediction of ben (JitVul's paper).
	UnparsedBen = "ben"
)

// Case is the ground truth of one case, as scoring needs it: 40 bytes, so that a million cases
// hold 38 MiB (a case's CWE list and project are shared through Meta).
type Case struct {
	ID string
	// Pair is the number the case shares with the other half of its pair; 0: not in a pair.
	Pair int32
	// Meta holds the case's CWE list and project; cases with the same ones may share it. nil:
	// neither.
	Meta *Meta
	// Vul says the case's label is vul; else it is ben.
	Vul bool
	// JIT marks a jit case: the suite gets the jit figures, and failed verdicts count as ben by
	// default. Identical marks the cases of a pair whose halves are identical once whitespace is
	// removed (the report's truth marks them).
	JIT, Identical bool
	// Injected marks a case whose code carries prompt-injection text, Suspicious one whose code
	// has any suspicious text (ScanInjection): neither counts in the injection baseline.
	Injected, Suspicious bool
	// VEX is a vex case's ground-truth category as VEXCategory gives it (0: none, and the case
	// takes no part in the VEX section).
	VEX int8
	// VEXAlt are the other categories acceptable for the case (VEXAlternatives): the lenient
	// justification figures count them as right.
	VEXAlt uint16
}

// Meta is what cases share: their CWE list and project.
type Meta struct {
	CWE []string
	// Project, when known, is the cluster that bootstrap intervals resample (see UnitsOf).
	Project string
}

// Label is the case's label.
func (c *Case) Label() suite.Label {
	if c.Vul {
		return suite.Vul
	}
	return suite.Ben
}

// CWE is the case's CWE list.
func (c *Case) CWE() []string {
	if c.Meta == nil {
		return nil
	}
	return c.Meta.CWE
}

// Project is the case's project, "" when unknown.
func (c *Case) Project() string {
	if c.Meta == nil {
		return ""
	}
	return c.Meta.Project
}

// VEXCategory is the Case.VEX of a ground-truth category: its index in suite.VEXCategories + 1,
// 0 for "" or a name that is not one of them.
func VEXCategory(s string) int8 {
	c := vexCat(s)
	if c < 0 {
		return 0
	}
	return c
}

// Options are the scoring choices.
type Options struct {
	// VDSFPR is the FPR tolerance r of VD-S; 0 means DefaultVDSFPR.
	VDSFPR float64
	// UnparsedAs is UnparsedFailed or UnparsedBen; "" picks UnparsedBen when any case is a jit
	// case (the JitVul paper's rule) and UnparsedFailed otherwise. Compute treats any other value
	// as UnparsedFailed; Validate rejects it.
	UnparsedAs string
}

// Validate reports an option out of range.
func (o Options) Validate() error {
	if math.IsNaN(o.VDSFPR) || o.VDSFPR < 0 || o.VDSFPR > 1 {
		return fmt.Errorf("vds fpr tolerance %v is not in [0,1] (PrimeVul uses 0.005)", o.VDSFPR)
	}
	switch o.UnparsedAs {
	case "", UnparsedFailed, UnparsedBen:
		return nil
	}
	return fmt.Errorf("unparsed-as %q is not %q or %q", o.UnparsedAs, UnparsedFailed, UnparsedBen)
}

// Stat is a figure over repeats: mean and sample standard deviation (n-1; 0 for one repeat).
type Stat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// ResultOf is the shape of a score. C is the type of counts and F the type of fractions:
// int and float64 for one repeat (Result), Stat and Stat over repeats (Aggregated).
type ResultOf[C, F any] struct {
	N        C                 `json:"n"`
	Status   StatusOf[C]       `json:"status"`
	Binary   BinaryOf[C, F]    `json:"binary"`
	Pairwise *PairwiseOf[C, F] `json:"pairwise,omitempty"`
	VDS      *VDSOf[C, F]      `json:"vds,omitempty"`
	JIT      *JITOf[C, F]      `json:"jit,omitempty"`
	VEX      *VEXOf[C, F]      `json:"vex,omitempty"`
	// AppSec is present on suites of appsec cases, once internal/grade has graded them.
	AppSec *AppSecOf[C, F] `json:"appsec,omitempty"`
	// Injection is present when a case carries prompt-injection text.
	Injection *InjectionOf[C, F]     `json:"injection,omitempty"`
	CI        *CI                    `json:"ci,omitempty"`
	ByCWE     map[string]CWEOf[C, F] `json:"by_cwe,omitempty"`
}

// StatusOf counts the cases by verdict status; missing counts cases without a verdict.
// Stopped counts the failed verdicts of units a cap stopped (--max-steps, --unit-max-tokens,
// --unit-max-cost, --timeout: verdict.IsStopped), shown apart: they are in Failed too.
type StatusOf[C any] struct {
	OK      C `json:"ok"`
	Failed  C `json:"failed"`
	Stopped C `json:"stopped,omitzero"`
	Error   C `json:"error"`
	Missing C `json:"missing"`
}

// BinaryOf holds the binary metrics, vulnerable being positive. Error and missing verdicts are left
// out. FailedVul counts failed verdicts on vulnerable cases (always also in FN); FailedBen counts
// failed verdicts on benign cases (also in TN under UnparsedBen; under UnparsedFailed in no other
// count, but in the denominators of accuracy, FPR and TNR).
type BinaryOf[C, F any] struct {
	TP        C `json:"tp"`
	FP        C `json:"fp"`
	TN        C `json:"tn"`
	FN        C `json:"fn"`
	FailedVul C `json:"failed_vul"`
	FailedBen C `json:"failed_ben"`
	Accuracy  F `json:"accuracy"`
	Precision F `json:"precision"`
	Recall    F `json:"recall"`
	F1        F `json:"f1"`
	FPR       F `json:"fpr"`
	FNR       F `json:"fnr"`
	TNR       F `json:"tnr"`
}

// PairwiseOf holds the pairwise outcomes as shares of the scored pairs (they sum to 1).
// Incomplete counts pairs left out: a twin absent from the suite, or an error or missing verdict.
type PairwiseOf[C, F any] struct {
	Pairs      C `json:"pairs"`
	Incomplete C `json:"incomplete"`
	PC         F `json:"p_c"`
	PV         F `json:"p_v"`
	PB         F `json:"p_b"`
	PR         F `json:"p_r"`
	PAcc       F `json:"pacc"`
}

// VDSOf holds VD-S: FNR is the false-negative rate at the chosen ROC point. Threshold is nil when
// the point is the one where nothing is predicted vulnerable (an infinite threshold). Degenerate
// says the scores took at most two distinct values (a 0/1 score). N counts the cases used.
// Source says where the scores of the ok verdicts came from (see the Source constants): one
// source, or SourceMixed and then Sources counts the verdicts of each; "" when no verdict is ok.
type VDSOf[C, F any] struct {
	FPRTolerance F            `json:"fpr_tolerance"`
	FNR          F            `json:"fnr"`
	Threshold    *F           `json:"threshold"`
	Degenerate   bool         `json:"degenerate"`
	N            C            `json:"n"`
	Source       string       `json:"score_source,omitempty"`
	Sources      map[string]C `json:"score_sources,omitempty"`
}

// The sources of the scores VD-S ranks, as VDSOf.Source names them.
const (
	SourceLogprob     = "logprob"     // the answer token's log-probabilities
	SourceStated      = "stated"      // the model's stated confidence (Verdict.Confidence, or a score so labelled)
	SourceTool        = "tool"        // a scanner's own measure
	SourceUnspecified = "unspecified" // a score that came without a source (wave-1 and PrimeVul predictions files)
	SourceLabel       = "label"       // no score: 1 for vul, 0 for ben (VD-S is degenerate)
	SourceMixed       = "mixed"       // several of the above: see Sources
)

// CWEOf holds the figures of the cases of one CWE; Pairs and PAcc count the pairs whose vulnerable
// case has the CWE.
type CWEOf[C, F any] struct {
	N      C `json:"n"`
	TP     C `json:"tp"`
	FN     C `json:"fn"`
	FP     C `json:"fp"`
	TN     C `json:"tn"`
	Recall F `json:"recall"`
	F1     F `json:"f1"`
	Pairs  C `json:"pairs"`
	PAcc   F `json:"pacc"`
}

// The figures of one repeat.
type (
	Result       = ResultOf[int, float64]
	StatusCounts = StatusOf[int]
	Binary       = BinaryOf[int, float64]
	Pairwise     = PairwiseOf[int, float64]
	VDS          = VDSOf[int, float64]
	CWEScore     = CWEOf[int, float64]
)

// Aggregated is the score over repeats: every figure is a Stat.
type Aggregated struct {
	Repeats int `json:"repeats"`
	ResultOf[Stat, Stat]
}

// outcome is what scoring makes of a case's verdict.
type outcome uint8

const (
	outMissing outcome = iota
	outError
	outFailed
	outStopped // failed: a cap stopped the unit (scored as outFailed everywhere)
	outVul     // ok, predicted vul
	outBen     // ok, predicted ben
)

// source is where an Answer's score came from; srcLabel: no score.
type source uint8

const (
	srcLabel source = iota
	srcLogprob
	srcStated
	srcTool
	srcUnspecified
	nSources
)

// sourceNames are the names of the sources, indexed by source.
func sourceNames() [nSources]string {
	return [nSources]string{SourceLabel, SourceLogprob, SourceStated, SourceTool, SourceUnspecified}
}

// Answer is what scoring keeps of one verdict: 16 bytes free of pointers, so that millions of
// them cost the garbage collector nothing. The zero Answer is a missing verdict.
type Answer struct {
	score float64 // the VD-S score when src is not srcLabel
	tools int32   // tool calls made for the verdict
	out   outcome
	src   source // srcLabel: no score, the label stands in for it
	cwe   cweHit
	cat   int8 // the VEX category answered: index + 1; 0 none; catInvalid not one of the twelve
}

// scored says whether the answer has a VD-S score of its own.
func (a Answer) scored() bool { return a.src != srcLabel }

// AnswerOf keeps what scoring needs of v. Its VD-S score is v.Score when that is finite, labelled
// with v.ScoreSource (unspecified when empty). Otherwise, for an ok verdict with a Confidence in
// [0,1], it is the stated probability of vul: the confidence when the label is vul, 1 - the
// confidence when it is ben. Otherwise there is no score (the label stands in for it).
func AnswerOf(v verdict.Verdict) Answer {
	a := Answer{out: outcomeOf(v), tools: int32(min(v.Usage.ToolCalls, 1<<30)), cat: vexAnswerCat(v)}
	switch {
	case v.Score != nil && !math.IsNaN(*v.Score) && !math.IsInf(*v.Score, 0):
		a.score = *v.Score
		switch v.ScoreSource {
		case verdict.FromLogprob:
			a.src = srcLogprob
		case verdict.FromStated:
			a.src = srcStated
		case verdict.FromTool:
			a.src = srcTool
		default:
			a.src = srcUnspecified
		}
	case v.Confidence != nil && *v.Confidence >= 0 && *v.Confidence <= 1 && (a.out == outVul || a.out == outBen):
		a.src = srcStated
		if a.out == outVul {
			a.score = *v.Confidence
		} else {
			a.score = 1 - *v.Confidence
		}
	}
	return a
}

// Answers lines verdicts (keyed by case id) up with cases; ids not in cases are ignored.
func Answers(cases []Case, verdicts map[string]verdict.Verdict) []Answer {
	as := make([]Answer, len(cases))
	for i := range cases {
		if v, ok := verdicts[cases[i].ID]; ok {
			as[i] = AnswerOf(v)
		}
	}
	return as
}

// outcomeOf classifies a verdict. An ok verdict without a valid label is failed (an invalid answer);
// an unknown status is an error (never scored).
func outcomeOf(v verdict.Verdict) outcome {
	switch v.Status {
	case verdict.OK:
		switch v.Label {
		case suite.Vul:
			return outVul
		case suite.Ben:
			return outBen
		}
		return outFailed
	case verdict.Failed:
		if verdict.IsStopped(v) {
			return outStopped
		}
		return outFailed
	}
	return outError
}

// confusion counts binary outcomes.
type confusion struct {
	tp, fp, tn, fn, failedVul, failedBen int
}

func (c *confusion) add(label suite.Label, o outcome, benMode bool) {
	vul := label == suite.Vul
	switch o {
	case outVul:
		if vul {
			c.tp++
		} else {
			c.fp++
		}
	case outBen:
		if vul {
			c.fn++
		} else {
			c.tn++
		}
	case outFailed, outStopped:
		if vul {
			c.fn++
			c.failedVul++
		} else {
			c.failedBen++
			if benMode {
				c.tn++
			}
		}
	}
}

// pairPred is the label a case's verdict counts as in a pair; ok is false for error and missing.
func pairPred(label suite.Label, o outcome, benMode bool) (suite.Label, bool) {
	switch o {
	case outVul:
		return suite.Vul, true
	case outBen:
		return suite.Ben, true
	case outFailed, outStopped:
		if benMode {
			return suite.Ben, true
		}
		return label.Opposite(), true
	}
	return "", false
}

type pairSlot struct {
	vul, ben int32 // case indexes, -1 when absent
	n        int32 // cases sharing the pair id
}

// preds is what the two cases of a pair count as (see pairPred); ok is false when the pair is
// incomplete: not one vul and one ben case, or a verdict that is an error or missing.
func (s pairSlot) preds(outs []outcome, benMode bool) (v, b suite.Label, ok bool) {
	if s.n != 2 || s.vul < 0 || s.ben < 0 {
		return "", "", false
	}
	v, okv := pairPred(suite.Vul, outs[s.vul], benMode)
	b, okb := pairPred(suite.Ben, outs[s.ben], benMode)
	return v, b, okv && okb
}

// pairSlots groups the cases that share a pair id, in order of first appearance; nil when no
// case has one. Compute and the bootstrap tallies both read pairs through it. It sorts positions
// by pair id instead of filling a map from id: on a million cases that is 16 MB held instead of 33
// (and no sort at all when the suite lists its pairs in id order, as most do).
func pairSlots(cases []Case) []pairSlot {
	n := 0
	for i := range cases {
		if cases[i].Pair != 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	order := make([]int32, 0, n)
	for i := range cases {
		if cases[i].Pair != 0 {
			order = append(order, int32(i))
		}
	}
	byPair := func(a, b int32) int { return cmp.Compare(cases[a].Pair, cases[b].Pair) }
	if !slices.IsSortedFunc(order, byPair) {
		slices.SortStableFunc(order, byPair) // stable: each group's first position is its first appearance
	}
	// groups[g] is where group g starts in order; a group ends where the next starts
	groups := make([]int32, 0, n/2+1)
	for k := range order {
		if k == 0 || cases[order[k]].Pair != cases[order[k-1]].Pair {
			groups = append(groups, int32(k))
		}
	}
	firstOf := func(a, b int32) int { return cmp.Compare(order[a], order[b]) }
	if !slices.IsSortedFunc(groups, firstOf) {
		slices.SortFunc(groups, firstOf) // first positions are distinct: no tie to keep
	}
	slots := make([]pairSlot, len(groups))
	for g, start := range groups {
		s := pairSlot{vul: -1, ben: -1}
		for k := int(start); k < len(order) && (k == int(start) || cases[order[k]].Pair == cases[order[start]].Pair); k++ {
			i := order[k]
			s.n++
			if cases[i].Vul {
				s.vul = i
			} else {
				s.ben = i
			}
		}
		slots[g] = s
	}
	return slots
}

type cweAcc struct {
	n     int
	conf  confusion
	pairs int
	pc    int
}

// Compute scores one repeat. answers[i] is the answer about cases[i] (see Answers and AnswerOf);
// a zero Answer, or a missing one when answers is shorter than cases, is a missing verdict.
//
// Rules where the papers differ or are silent:
//   - Binary: see BinaryOf. Accuracy = (TP+TN)/(TP+FP+TN+FN+B), FPR = FP/(FP+TN+B),
//     TNR = TN/(FP+TN+B), where B is FailedBen under UnparsedFailed and 0 under UnparsedBen;
//     precision, recall, FNR as usual; F1 = 2PR/(P+R) = 2TP/(2TP+FP+FN).
//   - Pairs: two cases sharing Pair, one vul and one ben. A pair id held by one case (or by more than
//     two, or by two of one label), or with an error or missing verdict, counts as incomplete. A failed
//     verdict counts as the wrong label for its case under UnparsedFailed and as ben under UnparsedBen.
//   - VD-S: a case's score is its verdict's Score when set and finite, else 1 for an ok vul and 0 for an
//     ok ben verdict; a failed verdict scores -Inf and is never predicted vul (under UnparsedFailed a
//     failed ben case is left out). Thresholds are the distinct finite scores, descending, after +Inf;
//     the chosen point has the largest FPR <= r, and the lowest threshold among those with that FPR.
//     A case is predicted vul when its score >= threshold, so tied cases move together. Degenerate
//     counts distinct finite scores only. Omitted when the cases used lack a vul or a ben case.
//   - VEX: see VEXOf and vexScore; only cases with a ground-truth category (Case.VEX) take part.
//   - By CWE: a case counts under each of its CWEs with the binary rule; a failed ben case under
//     UnparsedFailed is in neither FP nor TN.
func Compute(cases []Case, answers []Answer, opt Options) Result {
	opt = opt.Resolve(cases)
	r := opt.VDSFPR
	if r == 0 {
		r = DefaultVDSFPR
	}
	benMode := opt.UnparsedAs == UnparsedBen

	res := Result{N: len(cases)}
	outs := make([]outcome, len(cases))
	pts := newPoints(cases)
	var (
		conf    confusion
		cwes    map[string]*cweAcc
		sources [nSources]int
	)
	for i := range cases {
		c := &cases[i]
		var a Answer
		if i < len(answers) {
			a = answers[i]
		}
		o := a.out
		outs[i] = o
		switch o {
		case outMissing:
			res.Status.Missing++
		case outError:
			res.Status.Error++
		case outFailed:
			res.Status.Failed++
		case outStopped:
			res.Status.Failed++
			res.Status.Stopped++
		default:
			res.Status.OK++
		}
		conf.add(c.Label(), o, benMode)

		switch o {
		case outVul, outBen:
			s := 0.0
			switch {
			case a.scored():
				s = a.score
			case o == outVul:
				s = 1
			}
			sources[a.src]++
			pts.add(s, c.Vul)
		case outFailed, outStopped:
			if c.Vul || benMode {
				pts.add(math.Inf(-1), c.Vul)
			}
		}

		for _, w := range c.CWE() {
			if cwes == nil {
				cwes = make(map[string]*cweAcc)
			}
			a := cwes[w]
			if a == nil {
				a = &cweAcc{}
				cwes[w] = a
			}
			a.n++
			a.conf.add(c.Label(), o, benMode)
		}
	}

	res.Binary = binary(conf, benMode)
	res.VEX = vexScore(cases, answers)
	if slots := pairSlots(cases); len(slots) > 0 {
		res.Pairwise = pairwise(cases, outs, slots, cwes, benMode)
	}
	res.VDS = vds(pts, r)
	if anyJIT(cases) {
		res.JIT = jitScore(cases, answers, opt)
	}
	res.Injection = injectionScore(cases, outs, benMode)
	if res.VDS != nil {
		res.VDS.Source, res.VDS.Sources = sourceOf(sources)
	}
	if len(cwes) > 0 {
		res.ByCWE = make(map[string]CWEScore, len(cwes))
		for w, a := range cwes {
			res.ByCWE[w] = CWEScore{
				N: a.n, TP: a.conf.tp, FN: a.conf.fn, FP: a.conf.fp, TN: a.conf.tn,
				Recall: ratio(a.conf.tp, a.conf.tp+a.conf.fn),
				F1:     ratio(2*a.conf.tp, 2*a.conf.tp+a.conf.fp+a.conf.fn),
				Pairs:  a.pairs,
				PAcc:   ratio(a.pc, a.pairs),
			}
		}
	}
	return res
}

func binary(c confusion, benMode bool) Binary {
	b := 0
	if !benMode {
		b = c.failedBen
	}
	return Binary{
		TP: c.tp, FP: c.fp, TN: c.tn, FN: c.fn, FailedVul: c.failedVul, FailedBen: c.failedBen,
		Accuracy:  ratio(c.tp+c.tn, c.tp+c.fp+c.tn+c.fn+b),
		Precision: ratio(c.tp, c.tp+c.fp),
		Recall:    ratio(c.tp, c.tp+c.fn),
		F1:        ratio(2*c.tp, 2*c.tp+c.fp+c.fn),
		FPR:       ratio(c.fp, c.fp+c.tn+b),
		FNR:       ratio(c.fn, c.tp+c.fn),
		TNR:       ratio(c.tn, c.fp+c.tn+b),
	}
}

func pairwise(cases []Case, outs []outcome, slots []pairSlot, cwes map[string]*cweAcc, benMode bool) *Pairwise {
	var pc, pv, pb, pr, pairs, incomplete int
	for _, s := range slots {
		v, b, ok := s.preds(outs, benMode)
		if !ok {
			incomplete++
			continue
		}
		pairs++
		correct := false
		switch {
		case v == suite.Vul && b == suite.Ben:
			pc++
			correct = true
		case v == suite.Vul:
			pv++
		case b == suite.Ben:
			pb++
		default:
			pr++
		}
		for _, w := range cases[s.vul].CWE() {
			a := cwes[w]
			a.pairs++
			if correct {
				a.pc++
			}
		}
	}
	return &Pairwise{
		Pairs: pairs, Incomplete: incomplete,
		PC: ratio(pc, pairs), PV: ratio(pv, pairs), PB: ratio(pb, pairs), PR: ratio(pr, pairs),
		PAcc: ratio(pc, pairs),
	}
}

// sourceOf names the one source with a count, or SourceMixed and the counts of each.
func sourceOf(counts [nSources]int) (string, map[string]int) {
	names := sourceNames()
	one, n := "", 0
	for i, c := range counts {
		if c > 0 {
			one = names[i]
			n++
		}
	}
	if n <= 1 {
		return one, nil
	}
	m := make(map[string]int, n)
	for i, c := range counts {
		if c > 0 {
			m[names[i]] = c
		}
	}
	return SourceMixed, m
}

// ratio is a/b, and 0 when b is 0.
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Answered says whether the answer is a verdict that was not an error (ok or unparsed): the
// answers whose tool calls JIT counts.
func (a Answer) Answered() bool { return a.out != outMissing && a.out != outError }

// ToolCalls is the tool calls made for the verdict.
func (a Answer) ToolCalls() int { return int(a.tools) }
