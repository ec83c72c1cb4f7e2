package score

import (
	"slices"

	"github.com/vulnbench/vulnbench/internal/verdict"
)

// JITOf holds the figures of JitVul suites (SPEC section 2), present when any case is a jit case.
type JITOf[C, F any] struct {
	ToolCalls struct {
		Vul ToolCallsOf[F] `json:"vul"`
		Ben ToolCallsOf[F] `json:"ben"`
	} `json:"tool_calls"`
	// IdenticalPairs counts the pairs whose halves are identical after whitespace normalisation.
	IdenticalPairs C `json:"identical_pairs"`
	// UnparsedAs is the rule failed verdicts were scored under (ben by default on jit suites).
	UnparsedAs string `json:"unparsed_as"`
	// CWEHitRate is, of the vul cases with a known CWE predicted vul, the share whose predicted
	// CWEs include one of the case's; CWEHitN counts those cases.
	CWEHitRate F `json:"cwe_hit_rate"`
	CWEHitN    C `json:"cwe_hit_n"`
	// WithoutIdentical is the score without the identical pairs' cases; nil when there are none.
	WithoutIdentical *WithoutOf[C, F] `json:"without_identical,omitempty"`
}

// ToolCallsOf is the tool calls per case of one label, over the cases with an answer (ok or
// failed verdicts).
type ToolCallsOf[F any] struct {
	Mean   F `json:"mean"`
	Median F `json:"median"`
}

// WithoutOf is the headline score of the cases left when identical pairs are removed.
type WithoutOf[C, F any] struct {
	N        C `json:"n"`
	F1       F `json:"f1"`
	Accuracy F `json:"accuracy"`
	Pairs    C `json:"pairs"`
	PC       F `json:"p_c"`
	PV       F `json:"p_v"`
	PB       F `json:"p_b"`
	PR       F `json:"p_r"`
	PAcc     F `json:"pacc"`
}

// The JIT figures of one repeat.
type (
	JIT     = JITOf[int, float64]
	Without = WithoutOf[int, float64]
)

// cweHit is what an answer's CWEs say against its case's: unknown, hit or miss.
type cweHit uint8

const (
	cweUnknown cweHit = iota
	cweMatch
	cweMiss
)

// AnswerFor is AnswerOf with what needs the case's truth: whether the verdict's CWEs hit one
// of the case's.
func AnswerFor(v verdict.Verdict, c *Case) Answer {
	a := AnswerOf(v)
	if c != nil && len(c.CWE()) > 0 {
		a.cwe = cweMiss
		for _, w := range v.CWE {
			if slices.Contains(c.CWE(), w) {
				a.cwe = cweMatch
				break
			}
		}
	}
	return a
}

func anyJIT(cases []Case) bool {
	return slices.ContainsFunc(cases, func(c Case) bool { return c.JIT })
}

// Resolve applies the default rule for failed verdicts: UnparsedBen (the JitVul paper's) when any
// case is a jit case, UnparsedFailed otherwise.
func (o Options) Resolve(cases []Case) Options {
	if o.UnparsedAs == "" {
		o.UnparsedAs = UnparsedFailed
		if anyJIT(cases) {
			o.UnparsedAs = UnparsedBen
		}
	}
	return o
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// jitScore computes the JIT figures of one repeat (opt resolved).
func jitScore(cases []Case, answers []Answer, opt Options) *JIT {
	j := &JIT{UnparsedAs: opt.UnparsedAs}
	var vul, ben []float64
	hits, hitN := 0, 0
	for i := range cases {
		var a Answer
		if i < len(answers) {
			a = answers[i]
		}
		if a.out == outMissing || a.out == outError {
			continue
		}
		if cases[i].Vul {
			vul = append(vul, float64(a.tools))
			if a.out == outVul && a.cwe != cweUnknown {
				hitN++
				if a.cwe == cweMatch {
					hits++
				}
			}
		} else {
			ben = append(ben, float64(a.tools))
		}
	}
	j.ToolCalls.Vul = ToolCallsOf[float64]{Mean: mean(vul), Median: median(vul)}
	j.ToolCalls.Ben = ToolCallsOf[float64]{Mean: mean(ben), Median: median(ben)}
	j.CWEHitRate, j.CWEHitN = ratio(hits, hitN), hitN

	identical := map[int32]bool{}
	for _, c := range cases {
		if c.Identical && c.Pair != 0 {
			identical[c.Pair] = true
		}
	}
	j.IdenticalPairs = len(identical)
	if len(identical) > 0 {
		var cs []Case
		var as []Answer
		for i, c := range cases {
			if c.Identical {
				continue
			}
			cs = append(cs, c)
			if i < len(answers) {
				as = append(as, answers[i])
			} else {
				as = append(as, Answer{})
			}
		}
		r := Compute(cs, as, opt)
		w := &Without{N: r.N, F1: r.Binary.F1, Accuracy: r.Binary.Accuracy}
		if p := r.Pairwise; p != nil {
			w.Pairs, w.PC, w.PV, w.PB, w.PR, w.PAcc = p.Pairs, p.PC, p.PV, p.PB, p.PR, p.PAcc
		}
		j.WithoutIdentical = w
	}
	return j
}

func aggregateJIT(rs []Result) *JITOf[Stat, Stat] {
	js := present(rs, func(r Result) *JIT { return r.JIT })
	if len(js) == 0 {
		return nil
	}
	a := &JITOf[Stat, Stat]{UnparsedAs: js[0].UnparsedAs,
		IdenticalPairs: over(js, func(j JIT) float64 { return float64(j.IdenticalPairs) }),
		CWEHitRate:     over(js, func(j JIT) float64 { return j.CWEHitRate }),
		CWEHitN:        over(js, func(j JIT) float64 { return float64(j.CWEHitN) })}
	a.ToolCalls.Vul = ToolCallsOf[Stat]{Mean: over(js, func(j JIT) float64 { return j.ToolCalls.Vul.Mean }),
		Median: over(js, func(j JIT) float64 { return j.ToolCalls.Vul.Median })}
	a.ToolCalls.Ben = ToolCallsOf[Stat]{Mean: over(js, func(j JIT) float64 { return j.ToolCalls.Ben.Mean }),
		Median: over(js, func(j JIT) float64 { return j.ToolCalls.Ben.Median })}
	if ws := present(js, func(j JIT) *Without { return j.WithoutIdentical }); len(ws) > 0 {
		a.WithoutIdentical = &WithoutOf[Stat, Stat]{
			N: over(ws, func(w Without) float64 { return float64(w.N) }), F1: over(ws, func(w Without) float64 { return w.F1 }),
			Accuracy: over(ws, func(w Without) float64 { return w.Accuracy }), Pairs: over(ws, func(w Without) float64 { return float64(w.Pairs) }),
			PC: over(ws, func(w Without) float64 { return w.PC }), PV: over(ws, func(w Without) float64 { return w.PV }),
			PB: over(ws, func(w Without) float64 { return w.PB }), PR: over(ws, func(w Without) float64 { return w.PR }),
			PAcc: over(ws, func(w Without) float64 { return w.PAcc })}
	}
	return a
}
