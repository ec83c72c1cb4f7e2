package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
)

// The AppSecBench sections.
const (
	SecAppSec           = "appsec"
	SecAppSecDifficulty = "appsec_difficulty" // one row per difficulty, like SecCWE
	SecAppSecLanguage   = "appsec_language"
	SecAppSecArchetype  = "appsec_archetype"
)

type appsecStat = score.AppSecOf[score.Stat, score.Stat]

// judgeSuffix is what every judged figure shows beside it: the judge's agreement with the
// calibration set, or that no judge graded it.
func judgeSuffix(f *Figures) string {
	if f.AppSec == nil {
		return ""
	}
	j := f.AppSec.Judge
	if j == nil {
		return ""
	}
	s := fmt.Sprintf(" (judge %s: rho %.2f, MAE %.2f, bands %.0f%%", j.Model, j.Rho, j.MAE, 100*j.BandAgreement)
	if j.Forced {
		s += ", below the threshold: forced"
	}
	return s + ")"
}

func appsecNote(_ []string, figs []*Figures) string {
	for _, f := range figs {
		if f.AppSec == nil {
			continue
		}
		n := "parts: mean share of each part's points, over the records graded on it; pass: >= 70 of 100"
		if f.AppSec.Judge == nil {
			n += "; exploit, fix, code quality and explanation need a judge (score --judge-model), so a record earns at most 50 and mean over graded parts is scaled to those"
		}
		return n + "; fix checks: the proposed secure code parsed by the language's parser, and not flagged by a scanner that flags the vulnerable snippet and not its secure version (\"not checked\" where none is on PATH or none tells the two apart)"
	}
	return ""
}

// appsecMetrics are the figures of the appsec section.
func appsecMetrics() []Metric {
	ms := []Metric{
		appsecStatMetric("records", "records graded", Count, func(a *appsecStat) score.Stat { return a.Records }),
		appsecStatMetric("mean_score", "mean score", Points, func(a *appsecStat) score.Stat { return a.MeanScore }),
		appsecStatMetric("pass_rate", "pass rate (>= 70)", Fraction, func(a *appsecStat) score.Stat { return a.PassRate }),
		appsecStatMetric("graded_max", "points graded", Count, func(a *appsecStat) score.Stat { return a.GradedMax }),
		appsecStatMetric("mean_graded", "mean over graded parts", Fraction, func(a *appsecStat) score.Stat { return a.MeanGraded }),
		appsecStatMetric("pass_rate_graded", "pass rate over graded parts", Fraction, func(a *appsecStat) score.Stat { return a.PassRateGraded }),
	}
	ms = append(ms, appsecPartMetrics()...)
	ms = append(ms, appsecCVSSMetrics()...)
	ms = append(ms, appsecJudgeMetrics()...)
	return append(ms, appsecGroupMetrics()...)
}

func appsecGet(key, label string, format Format, fn func(a *appsecStat) (Value, bool)) Metric {
	return sectionMetric("appsec."+key, label, SecAppSec, format, func(f *Figures) *appsecStat { return f.AppSec }, fn)
}

func appsecStatMetric(key, label string, format Format, fn func(a *appsecStat) score.Stat) Metric {
	return appsecGet(key, label, format, statGet(fn))
}

// appsecPartMetrics are the rubric's parts, each judged one followed by its judge failures and
// the fix part by the fix checks.
func appsecPartMetrics() []Metric {
	rubric := appsec.DefaultRubric()
	var ms []Metric
	judged := map[string]bool{}
	for _, p := range grade.JudgedParts() {
		judged[p] = true
	}
	for _, part := range grade.Parts() {
		label := fmt.Sprintf("%s (%g pts)", strings.ReplaceAll(part, "_", " "), grade.Weight(rubric, part))
		m := appsecGet("parts."+part, label, Fraction, func(a *appsecStat) (Value, bool) {
			s, ok := a.Parts[part]
			if !ok && judged[part] {
				return Value{Null: true}, true // JSON null; text "not graded"
			}
			return Value{Stat: s}, ok
		})
		if judged[part] {
			m.Missing = "not graded"
			m.Suffix = judgeSuffix
		}
		ms = append(ms, m)
		if judged[part] {
			ms = append(ms, appsecGet("judge_failed."+part, "  judge failed ("+strings.ReplaceAll(part, "_", " ")+")", Count, func(a *appsecStat) (Value, bool) {
				s, ok := a.JudgeFailed[part]
				return Value{Stat: s}, ok
			}))
		}
		if part == grade.Fix {
			fix := func(key, label string, fn func(c *score.FixChecksOf[score.Stat]) score.Stat) Metric {
				return appsecGet("fix_checks."+key, label, Count, func(a *appsecStat) (Value, bool) {
					if a.Fix == nil {
						return Value{}, false
					}
					return Value{Stat: fn(a.Fix)}, true
				})
			}
			type fc = score.FixChecksOf[score.Stat]
			ms = append(ms,
				appsecGet("fix_checks_skipped", "  fix checks skipped (--fix-checks=false)", Flag, func(a *appsecStat) (Value, bool) {
					return Value{Flag: true}, a.FixSkipped
				}),
				fix("proposed", "  fixes checked", func(c *fc) score.Stat { return c.Proposed }),
				appsecGet("fix_checks.not_stored", "  fix check not stored", Count, func(a *appsecStat) (Value, bool) {
					if a.Fix == nil {
						return Value{}, false
					}
					return Value{Stat: a.Fix.NotStored}, a.Fix.NotStored.Mean > 0 // a stored run made before checks were stored
				}),
				fix("syntax_ok", "  fix parses", func(c *fc) score.Stat { return c.SyntaxOK }),
				fix("syntax_error", "  fix syntax error", func(c *fc) score.Stat { return c.SyntaxError }),
				fix("syntax_unchecked", "  fix syntax unchecked", func(c *fc) score.Stat { return c.SyntaxUnchecked }),
				fix("scanner_clean", "  scanner: fix clean", func(c *fc) score.Stat { return c.ScannerClean }),
				fix("scanner_flagged", "  scanner: fix still flagged", func(c *fc) score.Stat { return c.ScannerFlagged }),
				fix("scanner_not_checked", "  scanner: not checked", func(c *fc) score.Stat { return c.ScannerNot }),
			)
		}
	}
	return ms
}

// appsecCVSSMetrics are the CVSS distance figures.
func appsecCVSSMetrics() []Metric {
	cvss := func(key, label string, format Format, fn func(c *score.CVSSOf[score.Stat, score.Stat]) score.Stat) Metric {
		return appsecGet("cvss."+key, label, format, func(a *appsecStat) (Value, bool) {
			if a.CVSS == nil {
				return Value{}, false
			}
			return Value{Stat: fn(a.CVSS)}, true
		})
	}
	type cv = score.CVSSOf[score.Stat, score.Stat]
	return []Metric{
		cvss("n", "CVSS vectors compared", Count, func(c *cv) score.Stat { return c.N }),
		cvss("invalid", "CVSS vectors invalid", Count, func(c *cv) score.Stat { return c.Invalid }),
		cvss("missing", "CVSS vectors missing", Count, func(c *cv) score.Stat { return c.Missing }),
		cvss("fields_wrong", "CVSS base metrics wrong (of 8, mean)", Threshold, func(c *cv) score.Stat { return c.FieldsWrong }),
		cvss("score_mae", "CVSS base score error (mean abs)", Threshold, func(c *cv) score.Stat { return c.ScoreMAE }),
		cvss("exact", "CVSS vectors exact", Fraction, func(c *cv) score.Stat { return c.Exact }),
	}
}

// appsecJudgeMetrics say which judge graded the judged parts, how it was calibrated and what it cost.
func appsecJudgeMetrics() []Metric {
	judge := func(key, label string, format Format, fn func(j *score.JudgeInfo) Value) Metric {
		return appsecGet("judge."+key, label, format, func(a *appsecStat) (Value, bool) {
			if a.Judge == nil {
				return Value{}, false
			}
			return fn(a.Judge), true
		})
	}
	return []Metric{
		judge("model", "judge", Text, func(j *score.JudgeInfo) Value { return Value{Text: j.Model} }),
		judge("prompt_version", "judge prompt version", Number, func(j *score.JudgeInfo) Value { return Value{Text: strconv.Itoa(j.PromptVersion)} }),
		judge("rho", "judge Spearman rho (calibration)", Number, func(j *score.JudgeInfo) Value { return Value{Text: strconv.FormatFloat(j.Rho, 'f', 3, 64)} }),
		judge("mae", "judge MAE (calibration)", Fraction, func(j *score.JudgeInfo) Value { return Value{Stat: score.Stat{Mean: j.MAE}} }),
		judge("band_agreement", "judge band agreement (calibration)", Fraction, func(j *score.JudgeInfo) Value {
			return Value{Stat: score.Stat{Mean: j.BandAgreement}}
		}),
		judge("forced", "", Flag, func(j *score.JudgeInfo) Value { return Value{Flag: j.Forced} }),
		judge("calls", "judge calls", Count, func(j *score.JudgeInfo) Value { return Value{Stat: score.Stat{Mean: float64(j.Calls)}} }),
		judge("cache_hits", "judge calls from the cache", Count, func(j *score.JudgeInfo) Value { return Value{Stat: score.Stat{Mean: float64(j.CacheHits)}} }),
		appsecGet("judge.cost_usd", "judge cost (USD)", Number, func(a *appsecStat) (Value, bool) {
			if a.Judge == nil || a.Judge.CostUSD == nil {
				return Value{}, false
			}
			return Value{Text: strconv.FormatFloat(*a.Judge.CostUSD, 'f', 4, 64)}, true
		}),
	}
}

// appsecGroupMetrics are the families by difficulty, language and archetype.
func appsecGroupMetrics() []Metric {
	var ms []Metric
	for _, g := range []struct {
		json, csv, section string
		groups             func(a *appsecStat) map[string]score.GroupOf[score.Stat, score.Stat]
		wide               string
	}{
		{"appsec.by_difficulty", "appsec:difficulty", SecAppSecDifficulty, func(a *appsecStat) map[string]score.GroupOf[score.Stat, score.Stat] { return a.ByDifficulty }, "mean score by difficulty"},
		{"appsec.by_language", "appsec:language", SecAppSecLanguage, func(a *appsecStat) map[string]score.GroupOf[score.Stat, score.Stat] { return a.ByLanguage }, "mean score by language"},
		{"appsec.by_archetype", "appsec:archetype", SecAppSecArchetype, func(a *appsecStat) map[string]score.GroupOf[score.Stat, score.Stat] { return a.ByArchetype }, "mean score by archetype"},
	} {
		compare := strings.Compare
		if g.section == SecAppSecDifficulty {
			compare = difficultyCompare
		}
		fam := &Family{JSON: g.json, CSV: g.csv, Compare: compare, Names: func(f *Figures) []string {
			if f.AppSec == nil {
				return nil
			}
			return sortedKeys(g.groups(f.AppSec), compare)
		}}
		member := func(key, label, wide string, format Format, fn func(x score.GroupOf[score.Stat, score.Stat]) score.Stat) Metric {
			return Metric{Key: key, Label: label, Section: g.section, Format: format, Family: fam, Wide: wide,
				Get: func(f *Figures, name string) (Value, bool) {
					if f.AppSec == nil {
						return Value{}, false
					}
					x, ok := g.groups(f.AppSec)[name]
					return Value{Stat: fn(x)}, ok
				}}
		}
		type gs = score.GroupOf[score.Stat, score.Stat]
		ms = append(ms,
			member("n", "records", "", Count, func(x gs) score.Stat { return x.N }),
			member("mean_score", "mean score", g.wide, Points, func(x gs) score.Stat { return x.MeanScore }),
			member("pass_rate", "pass rate", "", Fraction, func(x gs) score.Stat { return x.PassRate }),
			member("mean_graded", "mean over graded parts", "", Fraction, func(x gs) score.Stat { return x.MeanGraded }),
		)
	}
	return ms
}

// difficultyCompare orders difficulties easiest first, then other names by text.
func difficultyCompare(a, b string) int {
	idx := func(s string) int {
		for i, d := range appsec.Difficulties() {
			if string(d) == s {
				return i
			}
		}
		return len(appsec.Difficulties())
	}
	if ia, ib := idx(a), idx(b); ia != ib {
		return ia - ib
	}
	return strings.Compare(a, b)
}
