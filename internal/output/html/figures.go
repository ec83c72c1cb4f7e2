package html

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The papers' figures: F1 and pAcc with their intervals and the pairwise outcomes (JitVul,
// PrimeVul), VEX-Bench's status F1 and justification macro-F1 with std whiskers and the tokens
// per case beside (its Figures 1 and 7), cost per case on a log axis against the headline figure
// with the Pareto front (Figure 3), the headline figures by language and by repository size
// (Figures 5 and 6), the confusion over the twelve categories (Figure 4), tool calls per label,
// AppSecBench's rubric parts. Each is downloadable as SVG, and its data as CSV.

// figure is one plot of the page.
type figure struct {
	ID    string // the figure's anchor and download name
	Title string
	SVG   template.HTML
	Note  string
	CSV   string // the plotted data
	// YFraction marks a y axis of fractions (held to [0, 1]); XLog a logarithmic x axis.
	YFraction, XLog bool
	Class           string // the figure element's class: "plot", or "roc" for the ROC curves
}

// SVGURL is the figure's SVG as a data: URL, to download (the page stays self-contained).
func (f figure) SVGURL() template.URL {
	return dataURL("image/svg+xml", `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+string(f.SVG))
}

// CSVURL is the figure's data as a data: URL.
func (f figure) CSVURL() template.URL { return dataURL("text/csv", f.CSV) }

func dataURL(mime, data string) template.URL {
	// #nosec G203 -- base64 of our own rendering: no markup, no script
	return template.URL("data:" + mime + ";charset=utf-8;base64," + base64.StdEncoding.EncodeToString([]byte(data)))
}

// table is rows (the header first) as CSV.
func table(rows [][]string) string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.WriteAll(rows) // a bytes.Buffer does not fail
	return b.String()
}

func num(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// slug is a figure id from its title.
func slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// headline is the figure a suite is ranked by (the board's first column): F1 for PrimeVul and
// JitVul, status F1 for VEX-Bench, the mean score for AppSecBench, with its interval.
type headline struct {
	label string
	get   func(f *report.Figures) (v score.Stat, lo, hi float64, ok bool)
}

func headlineOf(t *report.Truth) headline {
	nan := math.NaN()
	ci := func(iv *stats.Interval) (float64, float64) {
		if iv == nil {
			return nan, nan
		}
		return iv[0], iv[1]
	}
	switch {
	case t.HasAppSec():
		return headline{"mean score (fraction of 100 points)", func(f *report.Figures) (score.Stat, float64, float64, bool) {
			if f.AppSec == nil {
				return score.Stat{}, nan, nan, false
			}
			lo, hi := nan, nan
			if f.CI != nil {
				lo, hi = ci(f.CI.MeanScore)
			}
			return f.AppSec.MeanScore, lo, hi, true
		}}
	case t.HasVEX():
		return headline{"status F1", func(f *report.Figures) (score.Stat, float64, float64, bool) {
			if f.VEX == nil {
				return score.Stat{}, nan, nan, false
			}
			lo, hi := nan, nan
			if f.CI != nil {
				lo, hi = ci(f.CI.StatusF1)
			}
			return f.VEX.StatusF1, lo, hi, true
		}}
	}
	return headline{"F1", func(f *report.Figures) (score.Stat, float64, float64, bool) {
		lo, hi := nan, nan
		if f.CI != nil {
			lo, hi = f.CI.F1[0], f.CI.F1[1]
		}
		return f.Binary.F1, lo, hi, true
	}}
}

// whisker is a figure's interval: its bootstrap CI when it has one, else mean ± std over
// repeats (none for one repeat), cut to [0, 1].
func whisker(s score.Stat, lo, hi float64) (float64, float64) {
	if !math.IsNaN(lo) {
		return lo, hi
	}
	if s.Std == 0 {
		return math.NaN(), math.NaN()
	}
	return max(0, s.Mean-s.Std), min(1, s.Mean+s.Std)
}

func (c *content) add(f figure) {
	if f.ID == "" {
		f.ID = slug(f.Title)
	}
	c.Plots = append(c.Plots, f)
}

func (c *content) addPlots(rep *report.Report, names []string, figs []*report.Figures, rf1 float64, havePairs bool) error {
	vex, appsec := rep.Truth.HasVEX(), rep.Truth.HasAppSec()
	if !vex && !appsec {
		if err := c.addF1Plot(names, figs, rf1); err != nil {
			return err
		}
	}
	if vex {
		if err := c.addVEXPlots(rep, names, figs); err != nil {
			return err
		}
	}
	if err := c.addPairwise(names, figs); err != nil {
		return err
	}
	if err := c.addToolPlot(names, figs); err != nil {
		return err
	}
	if appsec {
		if err := c.addAppSecPlot(names, figs); err != nil {
			return err
		}
	}
	if err := c.addGroupPlots(rep, names); err != nil {
		return err
	}
	if err := c.addDistPlots(rep, names, figs); err != nil {
		return err
	}
	if err := c.addCostPlot(rep, names, figs); err != nil {
		return err
	}
	for i, r := range rep.Runs {
		fig, err := rocFigure(r, names[i])
		if err != nil {
			return err
		}
		c.ROC = append(c.ROC, fig)
		if fig, ok, err := vdsFigure(r, names[i]); err != nil {
			return err
		} else if ok {
			c.ROC = append(c.ROC, fig)
		}
	}
	return nil
}

// addF1Plot adds F1 and pAcc per run, each with its interval as a whisker, and the random-guess
// lines (JitVul's and PrimeVul's headline figure).
func (c *content) addF1Plot(names []string, figs []*report.Figures, randomF1 float64) error {
	n := len(figs)
	series := [][]float64{make([]float64, n)}
	lo, hi := [][]float64{make([]float64, n)}, [][]float64{make([]float64, n)}
	pairs := false
	for _, f := range figs {
		pairs = pairs || f.Pairwise != nil
	}
	labels := []string{"F1"}
	if pairs {
		labels = append(labels, "pAcc")
		series, lo, hi = append(series, make([]float64, n)), append(lo, make([]float64, n)), append(hi, make([]float64, n))
	}
	rows := [][]string{{"run", "figure", "value", "lo", "hi", "whisker"}}
	nan := math.NaN()
	for i, f := range figs {
		flo, fhi := nan, nan
		if f.CI != nil {
			flo, fhi = f.CI.F1[0], f.CI.F1[1]
		}
		series[0][i] = f.Binary.F1.Mean
		lo[0][i], hi[0][i] = whisker(f.Binary.F1, flo, fhi)
		rows = append(rows, []string{names[i], "f1", num(series[0][i]), num(lo[0][i]), num(hi[0][i]), whiskerKind(f, flo)})
		if pairs {
			plo, phi := nan, nan
			if f.CI != nil && f.CI.PAcc != nil {
				plo, phi = f.CI.PAcc[0], f.CI.PAcc[1]
			}
			if f.Pairwise != nil {
				series[1][i] = f.Pairwise.PAcc.Mean
				lo[1][i], hi[1][i] = whisker(f.Pairwise.PAcc, plo, phi)
			} else {
				lo[1][i], hi[1][i] = nan, nan
			}
			rows = append(rows, []string{names[i], "pacc", num(series[1][i]), num(lo[1][i]), num(hi[1][i]), whiskerKind(f, plo)})
		}
	}
	p := newPlot("F1 and pAcc per run", "", "fraction")
	p.Y.Min, p.Y.Max = 0, 1
	if err := barsWith(p, vg.Points(14), labels, series, lo, hi); err != nil {
		return err
	}
	x := float64(n)
	if err := dashed(p, fmt.Sprintf("random F1 %.1f%%", 100*randomF1), randomF1, -0.5, x-0.5, colour(0)); err != nil {
		return err
	}
	if pairs {
		if err := dashed(p, "random pAcc 25.0%", 0.25, -0.5, x-0.5, colour(1)); err != nil {
			return err
		}
	}
	nominal(p, names)
	p.Legend.Top = true
	s, err := svg(p, width(n), 3*vg.Inch)
	if err != nil {
		return err
	}
	c.add(figure{Title: "F1 and pAcc", SVG: s, CSV: table(rows), YFraction: true,
		Note: "whiskers: the 95% bootstrap interval (over cases and repeats), else mean ± std over repeats"})
	return nil
}

// whiskerKind says what a figure's whisker is.
func whiskerKind(f *report.Figures, lo float64) string {
	switch {
	case !math.IsNaN(lo):
		return "95% CI"
	case f.Agg:
		return "std"
	}
	return ""
}

// addVEXPlots adds VEX-Bench's status F1 and justification macro-F1 per run with the std over
// repeats as whiskers (its Figures 1 and 7), the lenient macro-F1 beside them when some case has
// alternatives, and beside them the tokens each run used per case.
func (c *content) addVEXPlots(rep *report.Report, names []string, figs []*report.Figures) error {
	var ns []string
	var st, mf, lf, slo, shi, mlo, mhi, llo, lhi, tokens []float64
	rows := [][]string{{"run", "status_f1", "status_f1_std", "justification_macro_f1", "justification_macro_f1_std", "repeats", "tokens_per_case",
		"justification_macro_f1_lenient", "justification_macro_f1_lenient_std"}}
	nan := math.NaN()
	anyTokens, anyLenient := false, false
	for i, f := range figs {
		if f.VEX == nil {
			continue
		}
		ns = append(ns, names[i])
		st, mf = append(st, f.VEX.StatusF1.Mean), append(mf, f.VEX.JustificationMacroF1.Mean)
		a, b := whisker(f.VEX.StatusF1, nan, nan)
		slo, shi = append(slo, a), append(shi, b)
		a, b = whisker(f.VEX.JustificationMacroF1, nan, nan)
		mlo, mhi = append(mlo, a), append(mhi, b)
		l := f.VEX.JustificationMacroF1 // no case with alternatives: the lenient figure is the strict one
		if f.VEX.JustificationMacroF1Lenient != nil {
			l, anyLenient = *f.VEX.JustificationMacroF1Lenient, true
		}
		lf = append(lf, l.Mean)
		a, b = whisker(l, nan, nan)
		llo, lhi = append(llo, a), append(lhi, b)
		tok := tokensPerCase(rep, rep.Runs[i])
		anyTokens = anyTokens || !math.IsNaN(tok)
		tokens = append(tokens, tok)
		rows = append(rows, []string{names[i], num(f.VEX.StatusF1.Mean), num(f.VEX.StatusF1.Std), num(f.VEX.JustificationMacroF1.Mean),
			num(f.VEX.JustificationMacroF1.Std), strconv.Itoa(f.Repeats), num(tok), num(l.Mean), num(l.Std)})
	}
	if len(ns) == 0 {
		return nil
	}
	p := newPlot("VEX-Bench: status F1, justification macro-F1", "", "fraction")
	p.Y.Min, p.Y.Max = 0, 1
	series, means, lows, highs := []string{"status F1", "justification macro-F1"}, [][]float64{st, mf}, [][]float64{slo, mlo}, [][]float64{shi, mhi}
	title := "VEX-Bench status F1 and justification macro-F1"
	note := "status: exploitable (vulnerable) is positive; justification: macro-F1 over the categories of the ground truth; whiskers: the std over repeats (none for one repeat)"
	if anyLenient {
		series, means, lows, highs = append(series, "justification macro-F1 (lenient)"), append(means, lf), append(lows, llo), append(highs, lhi)
		title += " (strict and lenient)"
		note += "; lenient: an answer among the case's acceptable alternatives (vex.alternatives) counts as right"
	} else {
		rows = colsOf(rows, 7) // no lenient columns without alternatives
	}
	if err := barsWith(p, vg.Points(14), series, means, lows, highs); err != nil {
		return err
	}
	nominal(p, ns)
	p.Legend.Top = true
	s, err := svg(p, width(len(ns)), 3*vg.Inch)
	if err != nil {
		return err
	}
	data := table(rows)
	c.add(figure{Title: title, SVG: s, CSV: data, YFraction: true, Note: note})
	if !anyTokens {
		return nil
	}
	tp := newPlot("Tokens per case", "", "tokens per case")
	tp.Y.Min = 0
	tp.Y.Tick.Marker = plainTicks{}
	hi := 0.0
	tv := make([]float64, len(tokens))
	for i, t := range tokens {
		if !math.IsNaN(t) {
			tv[i], hi = t, max(hi, t)
		}
	}
	tp.Y.Max = hi*1.15 + 1
	bc, err := plotter.NewBarChart(plotter.Values(tv), vg.Points(14))
	if err != nil {
		return err
	}
	bc.Color, bc.LineStyle.Width = colour(0), 0
	tp.Add(bc)
	nominal(tp, ns)
	s, err = svg(tp, width(len(ns))*3/4, 3*vg.Inch)
	if err != nil {
		return err
	}
	c.add(figure{ID: "vex-tokens-per-case", Title: "VEX-Bench tokens per case", SVG: s, CSV: data,
		Note: "every attempt's input and output tokens over the run's cases and repeats, beside the figures they bought"})
	return nil
}

// tokensPerCase is a run's tokens per case and repeat over every attempt (its Spend), NaN when
// not known.
func tokensPerCase(rep *report.Report, r *report.Run) float64 {
	units := len(rep.Truth.Cases) * max(1, len(r.Repeats))
	if r.Spend == nil || units == 0 {
		return math.NaN()
	}
	return float64(r.Spend.Tokens) / float64(units)
}

// costPerCase is a run's cost per case and repeat over every attempt, and whether it is known
// (priced; an unpriced run has none, never 0).
func costPerCase(rep *report.Report, r *report.Run) (float64, bool) {
	units := len(rep.Truth.Cases) * max(1, len(r.Repeats))
	if r.Spend == nil || !r.Spend.Known() || units == 0 {
		return 0, false
	}
	return r.Spend.Cost / float64(units), true
}

// addPairwise adds each run's pairwise outcomes as a stacked bar (JitVul's and PrimeVul's).
func (c *content) addPairwise(names []string, figs []*report.Figures) error {
	var parts [4][]float64
	rows := [][]string{{"run", "p_c", "p_v", "p_b", "p_r", "pairs"}}
	any := false
	for i, f := range figs {
		if f.Pairwise == nil {
			for k := range parts {
				parts[k] = append(parts[k], 0)
			}
			continue
		}
		any = true
		r := []string{names[i]}
		for k, s := range []score.Stat{f.Pairwise.PC, f.Pairwise.PV, f.Pairwise.PB, f.Pairwise.PR} {
			parts[k] = append(parts[k], s.Mean)
			r = append(r, num(s.Mean))
		}
		rows = append(rows, append(r, num(f.Pairwise.Pairs.Mean)))
	}
	if !any {
		return nil
	}
	s, err := pairwisePlot(names, parts)
	if err != nil {
		return err
	}
	c.add(figure{Title: "Pairwise outcomes", SVG: s, CSV: table(rows), YFraction: true,
		Note: "P-C: both cases of a pair right; P-V: both called vul; P-B: both called ben; P-R: both wrong (reversed). Random guessing: 25% each."})
	return nil
}

// addToolPlot adds the mean tool calls per vul and per ben case of the runs that made any.
func (c *content) addToolPlot(names []string, figs []*report.Figures) error {
	var tn []string
	var tv, tb []float64
	rows := [][]string{{"run", "tool_calls_vul_mean", "tool_calls_ben_mean"}}
	for i, f := range figs {
		if f.JIT == nil || f.JIT.ToolCalls.Vul.Mean.Mean+f.JIT.ToolCalls.Ben.Mean.Mean == 0 {
			continue
		}
		tn = append(tn, names[i])
		tv, tb = append(tv, f.JIT.ToolCalls.Vul.Mean.Mean), append(tb, f.JIT.ToolCalls.Ben.Mean.Mean)
		rows = append(rows, []string{names[i], num(tv[len(tv)-1]), num(tb[len(tb)-1])})
	}
	if len(tn) == 0 {
		return nil
	}
	s, err := toolPlot(tn, tv, tb)
	if err != nil {
		return err
	}
	c.add(figure{Title: "Tool calls by label", SVG: s, CSV: table(rows),
		Note: "an agent that asks more on vul cases than on ben ones reads the code, not only the answer's prior"})
	return nil
}

// addAppSecPlot adds the rubric parts of the runs graded on AppSecBench records.
func (c *content) addAppSecPlot(names []string, figs []*report.Figures) error {
	var runs []string
	var graded []*score.AppSecOf[score.Stat, score.Stat]
	for i, f := range figs {
		if f.AppSec != nil && f.AppSec.Records.Mean > 0 {
			runs, graded = append(runs, names[i]), append(graded, f.AppSec)
		}
	}
	if len(runs) == 0 {
		return nil
	}
	parts := grade.Parts()
	share := make([][]float64, len(parts))
	ungraded := false
	rows := [][]string{append([]string{"part"}, runs...)}
	for j, part := range parts {
		share[j] = make([]float64, len(runs))
		row := []string{part}
		for k, a := range graded {
			s, ok := a.Parts[part]
			if !ok {
				share[j][k], ungraded = math.NaN(), true
			} else {
				share[j][k] = s.Mean
			}
			row = append(row, num(share[j][k]))
		}
		rows = append(rows, row)
	}
	s, err := appsecPlot(runs, parts, share)
	if err != nil {
		return err
	}
	note := "each part's mean points over its weight, among the records graded on it (the tables give the points, the pass rate and the judge's agreement)"
	if ungraded {
		note += "; a part with no bar for a run was not graded there (the judged parts need --judge-model)"
	}
	c.add(figure{Title: "AppSecBench rubric parts", SVG: s, CSV: table(rows), YFraction: true, Note: note})
	return nil
}

// addGroupPlots adds the headline figures by language and by repository size (VEX-Bench's
// Figures 5 and 6): for VEX-Bench status F1 and justification macro-F1, else the suite's
// headline figure; a bar per run in each group, the std over repeats as whiskers.
func (c *content) addGroupPlots(rep *report.Report, names []string) error {
	type metric struct {
		label string
		get   func(f *report.Figures) (score.Stat, bool)
	}
	h := headlineOf(rep.Truth)
	ms := []metric{{h.label, func(f *report.Figures) (score.Stat, bool) {
		v, _, _, ok := h.get(f)
		return v, ok
	}}}
	if rep.Truth.HasVEX() {
		ms = append(ms, metric{"justification macro-F1", func(f *report.Figures) (score.Stat, bool) {
			if f.VEX == nil {
				return score.Stat{}, false
			}
			return f.VEX.JustificationMacroF1, true
		}})
	}
	for _, dim := range []struct{ key, by string }{{report.DimLanguage, "language"}, {report.DimRepoSize, "repository size"}} {
		var groups []string
		for _, r := range rep.Runs {
			for _, g := range r.Groups[dim.key] {
				if !containsString(groups, g.Name) {
					groups = append(groups, g.Name)
				}
			}
		}
		if len(groups) < 2 {
			continue
		}
		for _, m := range ms {
			var runs []string
			var series, lo, hi [][]float64
			rows := [][]string{{dim.key, "cases", "run", "value", "std"}}
			for i, r := range rep.Runs {
				if r.Groups[dim.key] == nil {
					continue
				}
				v, l, u := make([]float64, len(groups)), make([]float64, len(groups)), make([]float64, len(groups))
				for j, g := range groups {
					v[j], l[j], u[j] = 0, math.NaN(), math.NaN()
					for _, gs := range r.Groups[dim.key] {
						if gs.Name != g {
							continue
						}
						st, ok := m.get(gs.Figures)
						if !ok {
							continue
						}
						v[j] = st.Mean
						l[j], u[j] = whisker(st, math.NaN(), math.NaN())
						rows = append(rows, []string{g, strconv.Itoa(gs.Cases), names[i], num(st.Mean), num(st.Std)})
					}
				}
				runs, series, lo, hi = append(runs, names[i]), append(series, v), append(lo, l), append(hi, u)
			}
			if len(runs) == 0 {
				continue
			}
			title := m.label + " by " + dim.by
			p := newPlot(title, "", "fraction")
			p.Y.Min, p.Y.Max = 0, 1
			w := vg.Points(math.Max(4, math.Min(14, 48/float64(len(runs)))))
			if err := barsWith(p, w, runs, series, lo, hi); err != nil {
				return err
			}
			nominal(p, groups)
			p.Legend.Top = true
			s, err := svg(p, width(len(groups)*max(1, len(runs)/2)), 3*vg.Inch)
			if err != nil {
				return err
			}
			c.add(figure{Title: title, SVG: s, CSV: table(rows), YFraction: true,
				Note: "each group's cases scored alone; whiskers: the std over repeats (none for one repeat); repository size: the snapshot's lines of code (meta.repo_size)"})
		}
	}
	return nil
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// addCostPlot adds the headline figure of each priced run against its cost per case, on a log
// axis, with the Pareto front joined (VEX-Bench's Figure 3); unpriced runs are left off and named.
func (c *content) addCostPlot(rep *report.Report, names []string, figs []*report.Figures) error {
	h := headlineOf(rep.Truth)
	var cn, unpriced []string
	var cost, value []float64
	rows := [][]string{{"run", "cost_per_case_usd", strings.ReplaceAll(h.label, " ", "_")}}
	for i, r := range rep.Runs {
		cpc, ok := costPerCase(rep, r)
		v, _, _, has := h.get(figs[i])
		switch {
		case r.Spend == nil || !has:
			continue
		case !ok || cpc <= 0:
			if r.Spend.Unpriced > 0 {
				unpriced = append(unpriced, names[i])
				rows = append(rows, []string{names[i], "unpriced", num(v.Mean)})
			}
			continue
		}
		cn, cost, value = append(cn, names[i]), append(cost, cpc), append(value, v.Mean)
		rows = append(rows, []string{names[i], num(cpc), num(v.Mean)})
	}
	if len(cn) == 0 {
		return nil
	}
	s, err := costPlot(cn, cost, value, h.label)
	if err != nil {
		return err
	}
	note := "cost per case: every attempt of the run, retries and errors included, over its cases and repeats; the dashed line joins the runs no other beats on both (the Pareto front)"
	if len(unpriced) > 0 {
		note += "; left off, unpriced (no price for the model): " + strings.Join(unpriced, ", ")
	}
	c.add(figure{Title: "Cost per case against " + h.label, SVG: s, CSV: table(rows), YFraction: true, XLog: true, Note: note})
	return nil
}

// costPlot draws each run's figure against its cost per case on a log axis, the Pareto front
// joined, each run named beside its point.
func costPlot(names []string, cost, value []float64, label string) (template.HTML, error) {
	p := newPlot("Cost per case against "+label, "cost per case (USD, log scale)", label)
	p.Y.Min, p.Y.Max = 0, 1
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	lo, hi := cost[0], cost[0]
	for _, c := range cost {
		lo, hi = min(lo, c), max(hi, c)
	}
	p.X.Min, p.X.Max = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)+0.3))
	xys := make(plotter.XYs, len(cost))
	for i := range cost {
		xys[i] = plotter.XY{X: cost[i], Y: value[i]}
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return "", err
	}
	sc.Color = colour(0)
	sc.Radius = vg.Points(4)
	p.Add(sc)
	p.Legend.Add(label, sc)
	if front := Pareto(cost, value); len(front) > 1 {
		pts := make(plotter.XYs, len(front))
		for j, i := range front {
			pts[j] = xys[i]
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return "", err
		}
		l.Color = colour(1)
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(l)
		p.Legend.Add("Pareto front", l)
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
	if err != nil {
		return "", err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].XAlign = draw.XLeft
	}
	lb.Offset = vg.Point{X: vg.Points(6)}
	p.Add(lb)
	p.Legend.Top = true
	return svg(p, 6*vg.Inch, 3.5*vg.Inch)
}

// plainTicks are the default ticks labelled as plain numbers (25000, not 25000.00).
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}

// colsOf keeps the first n columns of each row.
func colsOf(rows [][]string, n int) [][]string {
	for i := range rows {
		rows[i] = rows[i][:min(n, len(rows[i]))]
	}
	return rows
}
