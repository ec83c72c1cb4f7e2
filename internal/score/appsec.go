package score

// AppSecOf is the AppSecBench section (SPEC section 3): the weighted rubric over the suite's
// records, graded by internal/grade. Scores are fractions: MeanScore is the mean of each
// record's points out of 100, divided by 100; a part's figure is its mean points over its
// weight, among the records where it was graded.
type AppSecOf[C, F any] struct {
	// Records counts the records graded: those whose vulnerable case has an ok or failed verdict.
	Records C `json:"records"`
	// MeanScore is the mean points / 100 with every part counted (a part not graded earns 0);
	// PassRate the share of records at >= the pass threshold (70) so counted.
	MeanScore F `json:"mean_score"`
	PassRate  F `json:"pass_rate"`
	// GradedMax is the points of the parts graded (100 with a judge, 50 without); MeanGraded and
	// PassRateGraded are the mean score and pass rate scaled to it: the verdict on what could be
	// graded.
	GradedMax      C `json:"graded_max"`
	MeanGraded     F `json:"mean_graded"`
	PassRateGraded F `json:"pass_rate_graded"`
	// Parts is each part's mean share of its weight (detection, cwe, owasp, severity, exploit,
	// fix, code_quality, explanation, false_positive_avoidance), among the records graded on it.
	Parts map[string]F `json:"parts"`
	// JudgeFailed counts, per judged part, the records whose judge answer could not be read:
	// graded failed, left out of the part's mean and out of GradedMax for that record.
	JudgeFailed map[string]C    `json:"judge_failed,omitempty"`
	CVSS        *CVSSOf[C, F]   `json:"cvss,omitempty"`
	Fix         *FixChecksOf[C] `json:"fix_checks,omitempty"`
	// FixSkipped says the fixes were left unchecked on purpose (score --fix-checks=false).
	FixSkipped bool `json:"fix_checks_skipped,omitempty"`
	// Judge names the judge of the judged parts, nil without one.
	Judge *JudgeInfo `json:"judge,omitempty"`
	// ByDifficulty, ByLanguage and ByArchetype break MeanScore and PassRate down.
	ByDifficulty map[string]GroupOf[C, F] `json:"by_difficulty,omitempty"`
	ByLanguage   map[string]GroupOf[C, F] `json:"by_language,omitempty"`
	ByArchetype  map[string]GroupOf[C, F] `json:"by_archetype,omitempty"`
}

// GroupOf is the score of the records of one difficulty, language or archetype.
type GroupOf[C, F any] struct {
	N          C `json:"n"`
	MeanScore  F `json:"mean_score"`
	PassRate   F `json:"pass_rate"`
	MeanGraded F `json:"mean_graded"`
}

// CVSSOf is how far the answers' CVSS 3.1 vectors are from the records': over the answers
// (on detected vulnerable cases) with a vector that parses, the mean number of the eight base
// metrics that differ and the mean absolute base-score error; Invalid counts vectors that do
// not parse, Missing detected answers without one.
type CVSSOf[C, F any] struct {
	N           C `json:"n"`
	Invalid     C `json:"invalid"`
	Missing     C `json:"missing"`
	FieldsWrong F `json:"fields_wrong"`
	ScoreMAE    F `json:"score_mae"`
	Exact       F `json:"exact"` // share of the N with every base metric right
}

// FixChecksOf counts the outcomes of the fix checks on the proposed secure code: its syntax
// (ok, error, unchecked: no checker for the language, or no code proposed), and the scanners'
// verdict where one flags the vulnerable snippet (clean, still flagged) or none could say
// (not checked: no scanner for the language on PATH, or none that flags the vulnerable snippet
// and not the record's secure version). NotStored counts the proposed fixes of a stored run
// whose check is not stored with their attempt (counted in no outcome: vulnbench grade makes
// them).
type FixChecksOf[C any] struct {
	Proposed        C `json:"proposed"`
	NotStored       C `json:"not_stored"`
	SyntaxOK        C `json:"syntax_ok"`
	SyntaxError     C `json:"syntax_error"`
	SyntaxUnchecked C `json:"syntax_unchecked"`
	ScannerClean    C `json:"scanner_clean"`
	ScannerFlagged  C `json:"scanner_flagged"`
	ScannerNot      C `json:"scanner_not_checked"`
}

// JudgeInfo is the judge that graded exploit, fix, code quality and explanation: its model, the
// version of its rubric prompts, and its agreement with the calibration set.
type JudgeInfo struct {
	Model         string   `json:"model"`
	PromptVersion int      `json:"prompt_version"`
	Rho           float64  `json:"rho"`
	MAE           float64  `json:"mae"`
	BandAgreement float64  `json:"band_agreement"`
	Forced        bool     `json:"forced,omitempty"` // below the threshold, used by --force-judge
	Calls         int      `json:"calls"`
	CacheHits     int      `json:"cache_hits"`
	CostUSD       *float64 `json:"cost_usd,omitempty"`
}

// The AppSec figures of one repeat.
type (
	AppSec    = AppSecOf[int, float64]
	Group     = GroupOf[int, float64]
	CVSSScore = CVSSOf[int, float64]
	FixChecks = FixChecksOf[int]
)

func aggregateAppSec(xs []AppSec) *AppSecOf[Stat, Stat] {
	if len(xs) == 0 {
		return nil
	}
	a := &AppSecOf[Stat, Stat]{
		Records:        over(xs, func(x AppSec) float64 { return float64(x.Records) }),
		MeanScore:      over(xs, func(x AppSec) float64 { return x.MeanScore }),
		PassRate:       over(xs, func(x AppSec) float64 { return x.PassRate }),
		GradedMax:      over(xs, func(x AppSec) float64 { return float64(x.GradedMax) }),
		MeanGraded:     over(xs, func(x AppSec) float64 { return x.MeanGraded }),
		PassRateGraded: over(xs, func(x AppSec) float64 { return x.PassRateGraded }),
		Parts:          statMap(xs, func(x AppSec) map[string]float64 { return x.Parts }),
		JudgeFailed:    statMap(xs, func(x AppSec) map[string]float64 { return intMap(x.JudgeFailed) }),
		Judge:          xs[0].Judge,
		FixSkipped:     xs[0].FixSkipped,
	}
	if len(a.JudgeFailed) == 0 {
		a.JudgeFailed = nil
	}
	if cs := present(xs, func(x AppSec) *CVSSScore { return x.CVSS }); len(cs) > 0 {
		a.CVSS = &CVSSOf[Stat, Stat]{
			N:           over(cs, func(c CVSSScore) float64 { return float64(c.N) }),
			Invalid:     over(cs, func(c CVSSScore) float64 { return float64(c.Invalid) }),
			Missing:     over(cs, func(c CVSSScore) float64 { return float64(c.Missing) }),
			FieldsWrong: over(cs, func(c CVSSScore) float64 { return c.FieldsWrong }),
			ScoreMAE:    over(cs, func(c CVSSScore) float64 { return c.ScoreMAE }),
			Exact:       over(cs, func(c CVSSScore) float64 { return c.Exact }),
		}
	}
	if fs := present(xs, func(x AppSec) *FixChecks { return x.Fix }); len(fs) > 0 {
		n := func(get func(FixChecks) int) Stat {
			return over(fs, func(f FixChecks) float64 { return float64(get(f)) })
		}
		a.Fix = &FixChecksOf[Stat]{
			Proposed: n(func(f FixChecks) int { return f.Proposed }), NotStored: n(func(f FixChecks) int { return f.NotStored }),
			SyntaxOK:    n(func(f FixChecks) int { return f.SyntaxOK }),
			SyntaxError: n(func(f FixChecks) int { return f.SyntaxError }), SyntaxUnchecked: n(func(f FixChecks) int { return f.SyntaxUnchecked }),
			ScannerClean: n(func(f FixChecks) int { return f.ScannerClean }), ScannerFlagged: n(func(f FixChecks) int { return f.ScannerFlagged }),
			ScannerNot: n(func(f FixChecks) int { return f.ScannerNot }),
		}
	}
	a.ByDifficulty = aggregateGroups(xs, func(x AppSec) map[string]Group { return x.ByDifficulty })
	a.ByLanguage = aggregateGroups(xs, func(x AppSec) map[string]Group { return x.ByLanguage })
	a.ByArchetype = aggregateGroups(xs, func(x AppSec) map[string]Group { return x.ByArchetype })
	return a
}

func intMap(m map[string]int) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = float64(v)
	}
	return out
}

// statMap is the Stat of each key over the xs whose map has it.
func statMap[T any](xs []T, get func(T) map[string]float64) map[string]Stat {
	vals := map[string][]float64{}
	for _, x := range xs {
		for k, v := range get(x) {
			vals[k] = append(vals[k], v)
		}
	}
	out := make(map[string]Stat, len(vals))
	for k, v := range vals {
		out[k] = stat(v)
	}
	return out
}

func aggregateGroups(xs []AppSec, get func(AppSec) map[string]Group) map[string]GroupOf[Stat, Stat] {
	gs := map[string][]Group{}
	for _, x := range xs {
		for k, g := range get(x) {
			gs[k] = append(gs[k], g)
		}
	}
	if len(gs) == 0 {
		return nil
	}
	out := make(map[string]GroupOf[Stat, Stat], len(gs))
	for k, g := range gs {
		out[k] = GroupOf[Stat, Stat]{
			N:          over(g, func(g Group) float64 { return float64(g.N) }),
			MeanScore:  over(g, func(g Group) float64 { return g.MeanScore }),
			PassRate:   over(g, func(g Group) float64 { return g.PassRate }),
			MeanGraded: over(g, func(g Group) float64 { return g.MeanGraded }),
		}
	}
	return out
}
