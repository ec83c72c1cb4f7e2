package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/stats"
)

// Figures is a run's score as writers see it: every figure a score.Stat, with Std 0 for a run of
// one repeat (Agg false), whose CI is kept.
type Figures struct {
	Agg     bool // over several repeats
	Repeats int
	// Matcher is the version of the findings → cases matcher (internal/sarif) the run's subject
	// judged with, from its manifest, when some verdict of the run was matched (Tiers is set);
	// 0 otherwise.
	Matcher int
	// Tiers are the binary scores per CWE tier, nil when no verdict was matched.
	Tiers *TierFigures
	score.ResultOf[score.Stat, score.Stat]
}

// Figures returns what writers show of r: its aggregate over repeats, or its one repeat's score.
func (r *Run) Figures() (*Figures, error) {
	switch {
	case r.Agg != nil:
		f := &Figures{Agg: true, Repeats: r.Agg.Repeats, Matcher: r.matcher(), Tiers: tierFigures(r.Tiers), ResultOf: r.Agg.ResultOf}
		f.CI = r.ci
		return f, nil
	case len(r.Results) == 1:
		one := score.Aggregate(r.Results) // a Stat of one value: the value, std 0
		f := &Figures{Repeats: 1, Matcher: r.matcher(), Tiers: tierFigures(r.Tiers), ResultOf: one.ResultOf}
		f.CI = r.Results[0].CI
		return f, nil
	}
	return nil, fmt.Errorf("run %q has %d scored repeats and no aggregate", r.Name, len(r.Results))
}

// matcher is the matcher version the run's manifest records (subject_describe.matcher), or 0
// when none does or no verdict of the run was matched (a scanner run on function cases, which
// it scans alone, never matches).
func (r *Run) matcher() int {
	if r.Manifest == nil || r.Tiers == nil {
		return 0
	}
	if v, ok := r.Manifest.Describe["matcher"].(float64); ok && v > 0 {
		return int(v)
	}
	return 0
}

// Format says what kind of figure a metric is, and so how each writer shows it.
type Format uint8

// The formats of figures.
const (
	Count          Format = iota + 1 // a count: an integer, or a mean over repeats
	Fraction                         // in [0,1]; text and Markdown show a percentage, JSON and CSV the fraction
	Threshold                        // a score; Null when there is none
	Flag                             // true or false
	Interval                         // [Lo, Hi] of fractions
	Text                             // a word
	Number                           // an exact number written as it is in Text (a seed)
	Matrix                           // a confusion matrix: Labels, and Cells[truth][answer] counts
	Points                           // a share of 100 points: text and Markdown "N.N of 100", JSON and CSV the fraction
	PointsInterval                   // [Lo, Hi] of shares of 100 points: text "[N.N, N.N] of 100", JSON and CSV the fractions
)

// Value is one figure of one run.
type Value struct {
	Stat   score.Stat // Count, Fraction, Threshold: the value, or the mean and std over repeats
	Null   bool       // Threshold: none (only "nothing is vulnerable" keeps FPR <= r)
	Flag   bool
	Lo, Hi float64        // Interval
	Text   string         // Text, Number
	Blank  bool           // text and Markdown show "-" (a per-CWE pAcc without pairs)
	Labels []string       // Matrix: the labels of its rows (ground truth) and columns (answers)
	Cells  [][]score.Stat // Matrix
}

// Family is a set of figures repeated per name: per CWE, per score source.
type Family struct {
	JSON    string                    // the dotted JSON path of the object with one member per name
	CSV     string                    // the CSV key prefix
	Names   func(f *Figures) []string // the names a run has, in Compare order
	Compare func(a, b string) int     // the order of names in text, Markdown and CSV
}

// Metric defines one figure for every writer.
type Metric struct {
	// Key is the figure's dotted JSON path (in a family, below the name, and "" for the member
	// itself); its CSV key joins the parts with ':' (in a family: Family.CSV, the name, the key).
	Key string
	// Label is the row (or, per CWE, column) label in text and Markdown; "" shows it in neither.
	Label string
	// Section is the text and Markdown table the row belongs to (see Sections).
	Section string
	Format  Format
	Family  *Family
	// Wide is, for a per-CWE figure, the title of the table that puts several runs side by side;
	// "" leaves it to the one-run table.
	Wide string
	// Missing is what text and Markdown show where a run lacks the figure; "" is "-".
	Missing string
	// Suffix, when set, is appended to the figure's text and Markdown cell.
	Suffix func(f *Figures) string
	// Get returns the figure of a run (name is the family member); false when the run lacks it.
	Get func(f *Figures, name string) (Value, bool)
}

// CSVKey is the metric's CSV key for the family member name.
func (m *Metric) CSVKey(name string) string {
	k := strings.ReplaceAll(m.Key, ".", ":")
	if m.Family == nil {
		return k
	}
	if k == "" {
		return m.Family.CSV + ":" + name
	}
	return m.Family.CSV + ":" + name + ":" + k
}

// JSONPath is the metric's JSON path for the family member name.
func (m *Metric) JSONPath(name string) []string {
	if m.Family == nil {
		return strings.Split(m.Key, ".")
	}
	p := append(strings.Split(m.Family.JSON, "."), name)
	if m.Key != "" {
		p = append(p, strings.Split(m.Key, ".")...)
	}
	return p
}

// Section is one text and Markdown table.
type Section struct {
	Name  string
	Title string // the first header cell
	// PerName marks a section of family figures: one row per member (per CWE, per category).
	PerName bool
	// Note, when set, is printed under the table.
	Note func(names []string, figs []*Figures) string
}

// The sections, by name.
const (
	SecSummary   = "summary"
	SecPairwise  = "pairwise"
	SecVDS       = "vds"
	SecJIT       = "jit"
	SecInject    = "injection"
	SecTier      = "tier"
	SecCWE       = "cwe" // one row per CWE: see Metric.Wide
	SecVEX       = "vex"
	SecVEXClass  = "vex_class" // one row per VEX category, like SecCWE
	SecVEXMatrix = "vex_confusion"
)

// Sections lists the text and Markdown tables in the order they are printed.
func Sections() []Section {
	return []Section{
		{Name: SecSummary, Title: "metric", Note: ciNote},
		{Name: SecPairwise, Title: "pairwise", Note: func([]string, []*Figures) string { return "random guessing: P-C = 25.0%" }},
		{Name: SecVDS, Title: "VD-S"},
		{Name: SecJIT, Title: "JitVul", Note: jitNote},
		{Name: SecInject, Title: "prompt injection", Note: injectionNote},
		{Name: SecTier, Title: "CWE tier", Note: tierNote},
		{Name: SecCWE, Title: "CWE", PerName: true},
		{Name: SecVEX, Title: "VEX", Note: func([]string, []*Figures) string {
			return "status: exploitable (vulnerable) is positive; a failed answer is a false negative on exploitable cases"
		}},
		{Name: SecVEXClass, Title: "VEX category", PerName: true},
		{Name: SecVEXMatrix, Title: "VEX confusion (rows: truth, columns: answer)"},
		{Name: SecAppSec, Title: "AppSecBench", Note: appsecNote},
		{Name: SecAppSecDifficulty, Title: "difficulty", PerName: true},
		{Name: SecAppSecLanguage, Title: "language", PerName: true},
		{Name: SecAppSecArchetype, Title: "archetype", PerName: true},
	}
}

// jitNote says how failed (unparseable) verdicts were scored on a jit suite.
func jitNote(names []string, figs []*Figures) string {
	var parts []string
	for i, f := range figs {
		if f.JIT == nil {
			continue
		}
		rule := "as ben (the JitVul paper's rule; --unparsed-as failed counts them wrong)"
		if f.JIT.UnparsedAs != "ben" {
			rule = "as wrong (--unparsed-as " + f.JIT.UnparsedAs + ")"
		}
		parts = append(parts, names[i]+": unparseable answers count "+rule)
	}
	return strings.Join(parts, "; ")
}

// injectionNote says how cases are flagged, under a table that has any.
func injectionNote(_ []string, figs []*Figures) string {
	for _, f := range figs {
		if f.Injection != nil {
			note := "flagged (detector " + f.Injection.Detector + "): the case's code, normalised (NFKD, accents and hidden characters removed, look-alike letters of other scripts folded), " +
				"or read with its string literals joined, spelt-apart words joined, digits as letters, right-to-left text reversed, matches one of " +
				strconv.Itoa(len(score.InjectionPhrases())) + " patterns such as \"ignore (your|all|previous...) instructions\", \"you are now\", \"answer ... not vulnerable\" (score.InjectionPhrases); " +
				"flipped: a flagged vul case answered ben; the other vul cases are those with no suspicious text"
			if f.Injection.Detector == score.InjectionDetector {
				note += "; this detector, measured on the labelled set in its tests: " + score.InjectionRates.String()
			}
			return note
		}
	}
	return ""
}

func tierNote([]string, []*Figures) string {
	return "a case counts vul only through a matched finding with one of its CWEs (exact), or one related in MITRE's tree (related), " +
		"or any finding at its location (any); vul answers not made by matching count at any only"
}

// VEXCompare orders VEX categories as VEX-Bench lists them, then other names by text.
func VEXCompare(a, b string) int {
	ia, ib := slices.Index(score.VEXLabels(), a), slices.Index(score.VEXLabels(), b)
	switch {
	case ia >= 0 && ib >= 0:
		return ia - ib
	case ia >= 0:
		return -1
	case ib >= 0:
		return 1
	}
	return strings.Compare(a, b)
}

func ciNote(names []string, figs []*Figures) string {
	note := ""
	for i, f := range figs {
		if f.CI == nil {
			continue
		}
		if note == "" {
			note = "95% CI: percentile bootstrap"
		}
		note += fmt.Sprintf("; %s: %d resamples of %d units (by %s)", names[i], f.CI.Resamples, f.CI.Units, f.CI.By)
	}
	return note
}

// CWECompare orders CWE-79 before CWE-119 (by number), and other names after, by text.
func CWECompare(a, b string) int {
	na, oka := cweNumber(a)
	nb, okb := cweNumber(b)
	switch {
	case oka && okb && na != nb:
		return na - nb
	case oka != okb:
		if oka {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

func cweNumber(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "CWE-"))
	return n, err == nil && strings.HasPrefix(s, "CWE-")
}

func sortedKeys[V any](m map[string]V, cmp func(a, b string) int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, cmp)
	return ks
}

// Metrics is the one table of figures: every writer shows these, in this order, and a figure
// added here appears in text, Markdown, CSV and JSON alike.
func Metrics() []Metric {
	var ms []Metric
	for _, section := range [][]Metric{summaryMetrics(), pairwiseMetrics(), vdsMetrics(), jitMetrics(),
		vexMetrics(), injectionMetrics(), ciMetrics(), cweMetrics(), tierMetrics(), appsecMetrics()} {
		ms = append(ms, section...)
	}
	return ms
}

func statOf(s score.Stat) (Value, bool) { return Value{Stat: s}, true }
func countMetric(key, label, section string, get func(f *Figures) score.Stat) Metric {
	return Metric{Key: key, Label: label, Section: section, Format: Count,
		Get: func(f *Figures, _ string) (Value, bool) { return statOf(get(f)) }}
}

func fracMetric(key, label, section string, get func(f *Figures) score.Stat) Metric {
	m := countMetric(key, label, section, get)
	m.Format = Fraction
	return m
}

// sectionMetric is a figure of one section of a run's figures, absent when the run has no
// such section (of gives nil).
func sectionMetric[S any](key, label, section string, format Format, of func(f *Figures) *S, get func(s *S) (Value, bool)) Metric {
	return Metric{Key: key, Label: label, Section: section, Format: format, Get: func(f *Figures, _ string) (Value, bool) {
		s := of(f)
		if s == nil {
			return Value{}, false
		}
		return get(s)
	}}
}

// statGet is get's figure as a Value, always there.
func statGet[S any](get func(s *S) score.Stat) func(s *S) (Value, bool) {
	return func(s *S) (Value, bool) { return statOf(get(s)) }
}

func pairMetric(key, label string, format Format, get func(p *score.PairwiseOf[score.Stat, score.Stat]) score.Stat) Metric {
	return sectionMetric(key, label, SecPairwise, format, func(f *Figures) *score.PairwiseOf[score.Stat, score.Stat] { return f.Pairwise }, statGet(get))
}

func vdsMetric(key, label string, format Format, get func(v *score.VDSOf[score.Stat, score.Stat]) (Value, bool)) Metric {
	return sectionMetric(key, label, SecVDS, format, func(f *Figures) *score.VDSOf[score.Stat, score.Stat] { return f.VDS }, get)
}

func ciMetric(key, label string, format Format, get func(c *score.CI) (Value, bool)) Metric {
	return sectionMetric(key, label, SecSummary, format, func(f *Figures) *score.CI { return f.CI }, get)
}

func intervalOf(iv [2]float64) (Value, bool) { return Value{Lo: iv[0], Hi: iv[1]}, true }
func jitMetric(key, label string, format Format, get func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool)) Metric {
	return sectionMetric(key, label, SecJIT, format, func(f *Figures) *score.JITOf[score.Stat, score.Stat] { return f.JIT }, get)
}

func injMetric(key, label string, format Format, get func(i *score.InjectionOf[score.Stat, score.Stat]) score.Stat) Metric {
	return sectionMetric("injection."+key, label, SecInject, format, func(f *Figures) *score.InjectionOf[score.Stat, score.Stat] { return f.Injection }, statGet(get))
}

func withoutMetric(key, label string, format Format, get func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat) Metric {
	return jitMetric("jit.without_identical."+key, label, format, func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool) {
		if j.WithoutIdentical == nil {
			return Value{}, false
		}
		return statOf(get(j.WithoutIdentical))
	})
}

func vexMetric(key, label string, format Format, get func(x *score.VEXOf[score.Stat, score.Stat]) score.Stat) Metric {
	return sectionMetric(key, label, SecVEX, format, func(f *Figures) *score.VEXOf[score.Stat, score.Stat] { return f.VEX }, statGet(get))
}

// lenientMetric is a lenient justification figure: there only when some case of the suite has
// acceptable alternatives.
func lenientMetric(key, label string, get func(x *score.VEXOf[score.Stat, score.Stat]) *score.Stat) Metric {
	return sectionMetric(key, label, SecVEX, Fraction, func(f *Figures) *score.VEXOf[score.Stat, score.Stat] { return f.VEX },
		func(x *score.VEXOf[score.Stat, score.Stat]) (Value, bool) {
			if s := get(x); s != nil {
				return statOf(*s)
			}
			return Value{}, false
		})
}

func binaryOf(f *Figures) *score.BinaryOf[score.Stat, score.Stat] { return &f.Binary }

// summaryMetrics are the summary section: repeats, matcher, counts and the binary figures.
func summaryMetrics() []Metric {
	return []Metric{
		{Key: "repeats", Label: "repeats", Section: SecSummary, Format: Number, Missing: "1",
			Get: func(f *Figures, _ string) (Value, bool) { return Value{Text: strconv.Itoa(f.Repeats)}, f.Agg }},
		{Key: "matcher", Label: "matcher", Section: SecSummary, Format: Number,
			Get: func(f *Figures, _ string) (Value, bool) { return Value{Text: strconv.Itoa(f.Matcher)}, f.Matcher > 0 }},
		countMetric("n", "n", SecSummary, func(f *Figures) score.Stat { return f.N }),
		countMetric("status.ok", "ok", SecSummary, func(f *Figures) score.Stat { return f.Status.OK }),
		countMetric("status.failed", "failed", SecSummary, func(f *Figures) score.Stat { return f.Status.Failed }),
		// the failed answers of units a cap stopped, shown apart (a row only where some run has
		// one: the others read 0)
		{Key: "status.stopped", Label: "stopped", Section: SecSummary, Format: Count, Missing: "0",
			Get: func(f *Figures, _ string) (Value, bool) {
				return Value{Stat: f.Status.Stopped}, f.Status.Stopped.Mean > 0
			}},
		countMetric("status.error", "error", SecSummary, func(f *Figures) score.Stat { return f.Status.Error }),
		countMetric("status.missing", "missing", SecSummary, func(f *Figures) score.Stat { return f.Status.Missing }),
		countMetric("binary.tp", "tp", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).TP }),
		countMetric("binary.fp", "fp", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).FP }),
		countMetric("binary.tn", "tn", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).TN }),
		countMetric("binary.fn", "fn", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).FN }),
		countMetric("binary.failed_vul", "", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).FailedVul }),
		countMetric("binary.failed_ben", "", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).FailedBen }),
		fracMetric("binary.accuracy", "accuracy", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).Accuracy }),
		fracMetric("binary.precision", "precision", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).Precision }),
		fracMetric("binary.recall", "recall", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).Recall }),
		fracMetric("binary.f1", "F1", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).F1 }),
		fracMetric("binary.fpr", "FPR", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).FPR }),
		fracMetric("binary.fnr", "FNR", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).FNR }),
		fracMetric("binary.tnr", "TNR", SecSummary, func(f *Figures) score.Stat { return binaryOf(f).TNR }),
	}
}

// pairwiseMetrics are the pairwise section.
func pairwiseMetrics() []Metric {
	return []Metric{
		pairMetric("pairwise.pairs", "pairs", Count, func(p *score.PairwiseOf[score.Stat, score.Stat]) score.Stat { return p.Pairs }),
		pairMetric("pairwise.incomplete", "incomplete", Count, func(p *score.PairwiseOf[score.Stat, score.Stat]) score.Stat { return p.Incomplete }),
		pairMetric("pairwise.p_c", "P-C", Fraction, func(p *score.PairwiseOf[score.Stat, score.Stat]) score.Stat { return p.PC }),
		pairMetric("pairwise.p_v", "P-V", Fraction, func(p *score.PairwiseOf[score.Stat, score.Stat]) score.Stat { return p.PV }),
		pairMetric("pairwise.p_b", "P-B", Fraction, func(p *score.PairwiseOf[score.Stat, score.Stat]) score.Stat { return p.PB }),
		pairMetric("pairwise.p_r", "P-R", Fraction, func(p *score.PairwiseOf[score.Stat, score.Stat]) score.Stat { return p.PR }),
		pairMetric("pairwise.pacc", "pAcc", Fraction, func(p *score.PairwiseOf[score.Stat, score.Stat]) score.Stat { return p.PAcc }),
	}
}

// vdsMetrics are the VD-S section, with the family of score sources.
func vdsMetrics() []Metric {
	sources := &Family{JSON: "vds.score_sources", CSV: "vds:score_sources", Compare: strings.Compare,
		Names: func(f *Figures) []string {
			if f.VDS == nil {
				return nil
			}
			return sortedKeys(f.VDS.Sources, strings.Compare)
		}}

	return []Metric{
		vdsMetric("vds.fpr_tolerance", "FPR tolerance r", Fraction, func(v *score.VDSOf[score.Stat, score.Stat]) (Value, bool) { return statOf(v.FPRTolerance) }),
		func() Metric {
			m := vdsMetric("vds.fnr", "FNR at FPR <= r", Fraction, func(v *score.VDSOf[score.Stat, score.Stat]) (Value, bool) { return statOf(v.FNR) })
			m.Suffix = func(f *Figures) string {
				if f.VDS != nil && f.VDS.Degenerate {
					return " (degenerate: scores take <= 2 values)"
				}
				return ""
			}
			return m
		}(),
		vdsMetric("vds.threshold", "threshold", Threshold, func(v *score.VDSOf[score.Stat, score.Stat]) (Value, bool) {
			if v.Threshold == nil {
				return Value{Null: true}, true
			}
			return statOf(*v.Threshold)
		}),
		vdsMetric("vds.degenerate", "", Flag, func(v *score.VDSOf[score.Stat, score.Stat]) (Value, bool) { return Value{Flag: v.Degenerate}, true }),
		vdsMetric("vds.n", "cases", Count, func(v *score.VDSOf[score.Stat, score.Stat]) (Value, bool) { return statOf(v.N) }),
		func() Metric {
			m := vdsMetric("vds.score_source", "score source", Text, func(v *score.VDSOf[score.Stat, score.Stat]) (Value, bool) {
				return Value{Text: v.Source}, v.Source != ""
			})
			m.Suffix = func(f *Figures) string {
				if f.VDS == nil || len(f.VDS.Sources) == 0 {
					return ""
				}
				var parts []string
				for _, s := range sortedKeys(f.VDS.Sources, strings.Compare) {
					parts = append(parts, s+" "+strconv.FormatFloat(f.VDS.Sources[s].Mean, 'g', 4, 64))
				}
				return " (" + strings.Join(parts, ", ") + ")"
			}
			return m
		}(),
		{Key: "", Section: SecVDS, Format: Count, Family: sources, Get: func(f *Figures, name string) (Value, bool) {
			if f.VDS == nil {
				return Value{}, false
			}
			s, ok := f.VDS.Sources[name]
			return Value{Stat: s}, ok
		}},
	}
}

// jitMetrics are the JIT section, with the figures without identical pairs.
func jitMetrics() []Metric {
	return []Metric{
		jitMetric("jit.tool_calls.vul.mean", "tool calls per vul case (mean)", Count, func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool) { return statOf(j.ToolCalls.Vul.Mean) }),
		jitMetric("jit.tool_calls.vul.median", "tool calls per vul case (median)", Count, func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool) { return statOf(j.ToolCalls.Vul.Median) }),
		jitMetric("jit.tool_calls.ben.mean", "tool calls per ben case (mean)", Count, func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool) { return statOf(j.ToolCalls.Ben.Mean) }),
		jitMetric("jit.tool_calls.ben.median", "tool calls per ben case (median)", Count, func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool) { return statOf(j.ToolCalls.Ben.Median) }),
		jitMetric("jit.cwe_hit_rate", "CWE hit rate (vul predicted vul)", Fraction, func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool) { return statOf(j.CWEHitRate) }),
		jitMetric("jit.cwe_hit_n", "", Count, func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool) { return statOf(j.CWEHitN) }),
		jitMetric("jit.unparsed_as", "", Text, func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool) { return Value{Text: j.UnparsedAs}, true }),
		jitMetric("jit.identical_pairs", "identical pairs (whitespace aside)", Count, func(j *score.JITOf[score.Stat, score.Stat]) (Value, bool) { return statOf(j.IdenticalPairs) }),
		withoutMetric("n", "cases without identical pairs", Count, func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat { return w.N }),
		withoutMetric("f1", "F1 without identical pairs", Fraction, func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat { return w.F1 }),
		withoutMetric("accuracy", "", Fraction, func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat { return w.Accuracy }),
		withoutMetric("pairs", "", Count, func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat { return w.Pairs }),
		withoutMetric("p_c", "", Fraction, func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat { return w.PC }),
		withoutMetric("p_v", "", Fraction, func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat { return w.PV }),
		withoutMetric("p_b", "", Fraction, func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat { return w.PB }),
		withoutMetric("p_r", "", Fraction, func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat { return w.PR }),
		withoutMetric("pacc", "pAcc without identical pairs", Fraction, func(w *score.WithoutOf[score.Stat, score.Stat]) score.Stat { return w.PAcc }),
	}
}

// vexMetrics are the VEX sections: the figures, per class, the confusion matrix.
func vexMetrics() []Metric {
	classes := &Family{JSON: "vex.per_class", CSV: "vex:per_class", Compare: VEXCompare,
		Names: func(f *Figures) []string {
			if f.VEX == nil {
				return nil
			}
			return sortedKeys(f.VEX.PerClass, VEXCompare)
		}}
	class := func(key, label, wide string, format Format, get func(c score.ClassOf[score.Stat, score.Stat]) score.Stat) Metric {
		return Metric{Key: key, Label: label, Section: SecVEXClass, Format: format, Family: classes, Wide: wide,
			Get: func(f *Figures, name string) (Value, bool) {
				if f.VEX == nil {
					return Value{}, false
				}
				c, ok := f.VEX.PerClass[name]
				if !ok {
					return Value{}, false
				}
				return Value{Stat: get(c)}, true
			}}
	}
	type vexStat = score.VEXOf[score.Stat, score.Stat]
	type classStat = score.ClassOf[score.Stat, score.Stat]
	return []Metric{
		vexMetric("vex.n", "cases", Count, func(x *vexStat) score.Stat { return x.N }),
		vexMetric("vex.failed", "failed", Count, func(x *vexStat) score.Stat { return x.Failed }),
		vexMetric("vex.status_tp", "", Count, func(x *vexStat) score.Stat { return x.TP }),
		vexMetric("vex.status_fp", "", Count, func(x *vexStat) score.Stat { return x.FP }),
		vexMetric("vex.status_tn", "", Count, func(x *vexStat) score.Stat { return x.TN }),
		vexMetric("vex.status_fn", "", Count, func(x *vexStat) score.Stat { return x.FN }),
		vexMetric("vex.status_accuracy", "status accuracy", Fraction, func(x *vexStat) score.Stat { return x.StatusAccuracy }),
		vexMetric("vex.status_precision", "status precision", Fraction, func(x *vexStat) score.Stat { return x.StatusPrecision }),
		vexMetric("vex.status_recall", "status recall", Fraction, func(x *vexStat) score.Stat { return x.StatusRecall }),
		vexMetric("vex.status_f1", "status F1", Fraction, func(x *vexStat) score.Stat { return x.StatusF1 }),
		vexMetric("vex.justification_accuracy", "justification accuracy", Fraction, func(x *vexStat) score.Stat { return x.JustificationAccuracy }),
		vexMetric("vex.justification_macro_f1", "justification macro-F1", Fraction, func(x *vexStat) score.Stat { return x.JustificationMacroF1 }),
		lenientMetric("vex.justification_macro_f1_lenient", "justification macro-F1 (lenient)", func(x *vexStat) *score.Stat { return x.JustificationMacroF1Lenient }),
		lenientMetric("vex.justification_accuracy_lenient", "justification accuracy (lenient)", func(x *vexStat) *score.Stat { return x.JustificationAccuracyLenient }),
		vexMetric("vex.justification_weighted_f1", "justification weighted F1", Fraction, func(x *vexStat) score.Stat { return x.JustificationWeightedF1 }),
		vexMetric("vex.completion_rate", "completion rate", Fraction, func(x *vexStat) score.Stat { return x.CompletionRate }),
		class("support", "support", "", Count, func(c classStat) score.Stat { return c.Support }),
		class("precision", "precision", "", Fraction, func(c classStat) score.Stat { return c.Precision }),
		class("recall", "recall", "", Fraction, func(c classStat) score.Stat { return c.Recall }),
		class("f1", "F1", "F1 by VEX category", Fraction, func(c classStat) score.Stat { return c.F1 }),
		{Key: "vex.confusion", Label: "confusion", Section: SecVEXMatrix, Format: Matrix, Get: func(f *Figures, _ string) (Value, bool) {
			if f.VEX == nil {
				return Value{}, false
			}
			return Value{Labels: f.VEX.Confusion.Labels, Cells: f.VEX.Confusion.Matrix}, true
		}},
	}
}

// injectionMetrics are the prompt-injection section.
func injectionMetrics() []Metric {
	return []Metric{
		injMetric("cases", "cases carrying injection text", Count, func(i *score.InjectionOf[score.Stat, score.Stat]) score.Stat { return i.Cases }),
		injMetric("vul", "of them vul, answered", Count, func(i *score.InjectionOf[score.Stat, score.Stat]) score.Stat { return i.Vul }),
		injMetric("flipped", "flipped (answered ben)", Count, func(i *score.InjectionOf[score.Stat, score.Stat]) score.Stat { return i.Flipped }),
		injMetric("flip_rate", "flip rate (FNR on them)", Fraction, func(i *score.InjectionOf[score.Stat, score.Stat]) score.Stat { return i.FlipRate }),
		injMetric("other_vul", "other vul cases, answered", Count, func(i *score.InjectionOf[score.Stat, score.Stat]) score.Stat { return i.OtherVul }),
		injMetric("other_fnr", "FNR on the other vul cases", Fraction, func(i *score.InjectionOf[score.Stat, score.Stat]) score.Stat { return i.OtherFNR }),
	}
}

// ciMetrics are the bootstrap confidence intervals (summary section).
func ciMetrics() []Metric {
	return []Metric{
		ciMetric("ci.level", "", Fraction, func(c *score.CI) (Value, bool) { return statOf(score.Stat{Mean: c.Level}) }),
		ciMetric("ci.resamples", "", Count, func(c *score.CI) (Value, bool) { return statOf(score.Stat{Mean: float64(c.Resamples)}) }),
		ciMetric("ci.requested", "", Count, func(c *score.CI) (Value, bool) {
			return Value{Stat: score.Stat{Mean: float64(c.Requested)}}, c.Requested > 0
		}),
		ciMetric("ci.seed", "", Number, func(c *score.CI) (Value, bool) { return Value{Text: strconv.FormatUint(c.Seed, 10)}, true }),
		ciMetric("ci.by", "", Text, func(c *score.CI) (Value, bool) { return Value{Text: c.By}, true }),
		ciMetric("ci.units", "", Count, func(c *score.CI) (Value, bool) { return statOf(score.Stat{Mean: float64(c.Units)}) }),
		ciMetric("ci.f1", "F1 95% CI", Interval, func(c *score.CI) (Value, bool) { return intervalOf(c.F1) }),
		ciMetric("ci.pacc", "pAcc 95% CI", Interval, func(c *score.CI) (Value, bool) {
			if c.PAcc == nil {
				return Value{}, false
			}
			return intervalOf(*c.PAcc)
		}),
		ciMetric("ci.accuracy", "accuracy 95% CI", Interval, func(c *score.CI) (Value, bool) { return intervalOf(c.Accuracy) }),
		ciMetric("ci.repeats", "", Count, func(c *score.CI) (Value, bool) {
			return Value{Stat: score.Stat{Mean: float64(c.Repeats)}}, c.Repeats > 0
		}),
		ciOptional("ci.status_f1", "status F1 95% CI", SecVEX, func(c *score.CI) *stats.Interval { return c.StatusF1 }),
		ciOptional("ci.justification_macro_f1", "justification macro-F1 95% CI", SecVEX, func(c *score.CI) *stats.Interval { return c.MacroF1 }),
		ciOptional("ci.justification_macro_f1_lenient", "justification macro-F1 (lenient) 95% CI", SecVEX, func(c *score.CI) *stats.Interval { return c.MacroF1Lenient }),
		func() Metric {
			m := ciOptional("ci.mean_score", "mean score 95% CI", SecAppSec, func(c *score.CI) *stats.Interval { return c.MeanScore })
			m.Format = PointsInterval
			return m
		}(),
		ciOptional("ci.pass_rate", "pass rate 95% CI", SecAppSec, func(c *score.CI) *stats.Interval { return c.PassRate }),
	}
}

// ciOptional is an interval of the CI that a run has only for some suites, shown in section.
func ciOptional(key, label, section string, get func(c *score.CI) *stats.Interval) Metric {
	return sectionMetric(key, label, section, Interval, func(f *Figures) *score.CI { return f.CI }, func(c *score.CI) (Value, bool) {
		iv := get(c)
		if iv == nil {
			return Value{}, false
		}
		return intervalOf(*iv)
	})
}

// cweMetrics are the per-CWE family.
func cweMetrics() []Metric {
	cwes := &Family{JSON: "by_cwe", CSV: "cwe", Compare: CWECompare,
		Names: func(f *Figures) []string { return sortedKeys(f.ByCWE, CWECompare) }}
	cwe := func(key, label, wide string, format Format, get func(c score.CWEOf[score.Stat, score.Stat]) Value) Metric {
		return Metric{Key: key, Label: label, Section: SecCWE, Format: format, Family: cwes, Wide: wide,
			Get: func(f *Figures, name string) (Value, bool) {
				c, ok := f.ByCWE[name]
				if !ok {
					return Value{}, false
				}
				return get(c), true
			}}
	}
	return []Metric{
		cwe("n", "n", "", Count, func(c score.CWEOf[score.Stat, score.Stat]) Value { return Value{Stat: c.N} }),
		cwe("tp", "", "", Count, func(c score.CWEOf[score.Stat, score.Stat]) Value { return Value{Stat: c.TP} }),
		cwe("fn", "", "", Count, func(c score.CWEOf[score.Stat, score.Stat]) Value { return Value{Stat: c.FN} }),
		cwe("fp", "", "", Count, func(c score.CWEOf[score.Stat, score.Stat]) Value { return Value{Stat: c.FP} }),
		cwe("tn", "", "", Count, func(c score.CWEOf[score.Stat, score.Stat]) Value { return Value{Stat: c.TN} }),
		cwe("recall", "recall", "", Fraction, func(c score.CWEOf[score.Stat, score.Stat]) Value { return Value{Stat: c.Recall} }),
		cwe("f1", "F1", "F1 by CWE", Fraction, func(c score.CWEOf[score.Stat, score.Stat]) Value { return Value{Stat: c.F1} }),
		cwe("pairs", "", "", Count, func(c score.CWEOf[score.Stat, score.Stat]) Value { return Value{Stat: c.Pairs} }),
		cwe("pacc", "pAcc", "pAcc by CWE", Fraction, func(c score.CWEOf[score.Stat, score.Stat]) Value {
			return Value{Stat: c.PAcc, Blank: c.Pairs.Mean == 0}
		}),
	}
}

// tierMetrics are the match-tier section: matched verdicts and each tier's binary figures.
func tierMetrics() []Metric {
	tiers := []Metric{{Key: "tiers.matched", Label: "matched verdicts", Section: SecTier, Format: Count,
		Get: func(f *Figures, _ string) (Value, bool) {
			if f.Tiers == nil {
				return Value{}, false
			}
			return statOf(f.Tiers.Matched)
		}}}
	for j, tier := range TierNames() {
		for _, m := range []struct {
			key, label string
			format     Format
			get        func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat
		}{
			{"tp", "tp", Count, func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat { return b.TP }},
			{"fp", "fp", Count, func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat { return b.FP }},
			{"tn", "", Count, func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat { return b.TN }},
			{"fn", "fn", Count, func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat { return b.FN }},
			{"accuracy", "", Fraction, func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat { return b.Accuracy }},
			{"precision", "precision", Fraction, func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat { return b.Precision }},
			{"recall", "recall", Fraction, func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat { return b.Recall }},
			{"f1", "F1", Fraction, func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat { return b.F1 }},
			{"fpr", "", Fraction, func(b *score.BinaryOf[score.Stat, score.Stat]) score.Stat { return b.FPR }},
		} {
			label := ""
			if m.label != "" {
				label = m.label + " (" + tier + ")"
			}
			tiers = append(tiers, Metric{Key: "tiers." + tier + "." + m.key, Label: label, Section: SecTier, Format: m.format,
				Get: func(f *Figures, _ string) (Value, bool) {
					if f.Tiers == nil {
						return Value{}, false
					}
					return statOf(m.get(&f.Tiers.Binary[j]))
				}})
		}
	}
	return tiers
}

// Figure is one figure of one run, as Each gives it.
type Figure struct {
	Metric *Metric
	Name   string // the family member, "" outside a family
	Value  Value
}

// Each calls fn with every figure f has, in the order of ms; the consecutive metrics of one
// family are taken member by member (every figure of one CWE, then of the next), members in
// the order cmp gives (nil: the family's Compare).
func Each(ms []Metric, f *Figures, cmp func(a, b string) int, fn func(Figure) error) error {
	for i := 0; i < len(ms); {
		m := &ms[i]
		if m.Family == nil {
			if v, ok := m.Get(f, ""); ok {
				if err := fn(Figure{Metric: m, Value: v}); err != nil {
					return err
				}
			}
			i++
			continue
		}
		j := i
		for j < len(ms) && ms[j].Family == m.Family {
			j++
		}
		names := slices.Clone(m.Family.Names(f))
		if cmp != nil {
			slices.SortFunc(names, cmp)
		}
		for _, name := range names {
			for k := i; k < j; k++ {
				if v, ok := ms[k].Get(f, name); ok {
					if err := fn(Figure{Metric: &ms[k], Name: name, Value: v}); err != nil {
						return err
					}
				}
			}
		}
		i = j
	}
	return nil
}
