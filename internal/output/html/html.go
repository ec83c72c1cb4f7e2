// Package html writes the static HTML report of a report model (internal/report): one
// self-contained page (no script, no font, no request to anywhere; it works from file://) with
// the score tables and their intervals as every writer shows them (output.Tables), the
// random-guess lines, and plots drawn by gonum/plot as inline SVG: F1 and pAcc per run, the ROC
// curve of each run with its VD-S point, pairwise outcomes as stacked bars, tool calls by label
// for agents, cost against F1 and pAcc; a per-CWE F1 and pAcc heat map and the VEX confusion
// matrices as coloured tables. The same report gives the same bytes: nothing in it is read from
// the clock, and every list is in a fixed order.
//
// Everything that comes from cases, runs or models goes through html/template, so it is text in
// the page, never markup.
package html

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
	"gonum.org/v1/plot/plotter"
)

// Version is the version of the report's layout; bump it when the same report model renders
// otherwise.
const Version = 1

//go:embed report.css
var css string

//go:embed report.tmpl
var tmplText string

// Style is the report's style sheet, for pages that embed a Fragment.
func Style() template.CSS { return template.CSS(css) } // #nosec G203 -- our own embedded file

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct": func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
}).Parse(tmplText))

// Page presents the report as one whole HTML page. Ranking, when set, is the ranking of its
// runs as the board ranks them (board.TableOf, as a table), shown above the scores.
type Page struct {
	Ranking *output.Table
}

// Name implements output.Presenter.
func (Page) Name() string { return "html" }

// Presents implements output.Presenter: every document (a report's scores as the report page,
// others in their own HTML layout or as tables).
func (Page) Presents(output.Document) bool { return true }

// Present implements output.Presenter.
func (p Page) Present(w io.Writer, d output.Document) error {
	rep, ok := d.(*report.Report)
	if !ok {
		if h, ok := d.(output.HTMLWriter); ok {
			return output.Buffered(w, h.WriteHTML)
		}
		return writeBlocks(w, d)
	}
	c, err := build(rep)
	if err != nil {
		return err
	}
	c.Ranking = p.Ranking
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "page", struct {
		Style template.CSS
		*content
	}{Style(), c}); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// Fragment presents the report's content without the page around it, for pages that embed it
// (the web viewer's run page, with Style in its own sheet).
type Fragment struct{}

// Name implements output.Presenter.
func (Fragment) Name() string { return "html-fragment" }

// Presents implements output.Presenter: a report's scores.
func (Fragment) Presents(d output.Document) bool { _, ok := d.(*report.Report); return ok }

// Present implements output.Presenter.
func (Fragment) Present(w io.Writer, d output.Document) error {
	rep, ok := d.(*report.Report)
	if !ok {
		return &output.UnsupportedError{Format: "html-fragment", Kind: d.Kind(), Known: []string{"html"}}
	}
	c, err := build(rep)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "body", c); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// content is what the template shows.
type content struct {
	Title     string
	Ranking   *output.Table
	Scorer    int
	Vulnbench string
	Layout    int
	Truth     string
	Cases     int
	Runs      []runRow
	Tables    []output.Table
	Random    []string
	Plots     []figure
	ROC       []figure
	Heat      *heat
	Matrices  []matrix
	Notes     []string
}

type runRow struct {
	Name, Subject, Model, State, Created, Finished, Cost string
}

type figure struct {
	Title string
	SVG   template.HTML
	Note  string
}

// heat is the per-CWE F1 and pAcc table, a cell's colour its value.
type heat struct {
	Runs []string
	Rows []heatRow
}

type heatRow struct {
	CWE   string
	N     string
	Cells []heatCell
}

type heatCell struct {
	Text  string
	Style template.CSS
	Title string
}

type matrix struct {
	Title  string
	Labels []string
	Rows   []matrixRow
}

type matrixRow struct {
	Label string
	Cells []heatCell
}

func build(rep *report.Report) (*content, error) {
	tables, err := output.Tables(rep)
	if err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	c := &content{Scorer: rep.Scorer, Vulnbench: rep.Vulnbench, Layout: Version, Tables: tables,
		Truth: rep.Truth.Source, Cases: len(rep.Truth.Cases)}
	names := make([]string, len(rep.Runs))
	figs := make([]*report.Figures, len(rep.Runs))
	for i, r := range rep.Runs {
		names[i] = r.Name
		f, err := r.Figures()
		if err != nil {
			return nil, fmt.Errorf("html report: %w", err)
		}
		figs[i] = f
		row := runRow{Name: r.Name, Subject: r.Subject, Model: r.Model}
		if r.Stored != nil {
			row.State = r.Stored.State
			row.Created = stamp(r.Stored.CreatedAt)
			row.Finished = stamp(r.Stored.FinishedAt)
		}
		row.Cost = costText(r.Spend)
		c.Runs = append(c.Runs, row)
	}
	c.Title = "vulnbench report: " + strings.Join(names, ", ")
	for _, n := range rep.Notes() {
		c.Notes = append(c.Notes, n.Text)
	}
	rf1, havePairs := c.randomLines(rep)
	if err := c.addPlots(rep, names, figs, rf1, havePairs); err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	c.Heat = cweHeat(names, figs)
	c.Matrices = vexMatrices(names, figs)
	return c, nil
}

// costText is a run's cost as the runs table writes it: dollars when every attempt that used a
// model is priced, "unpriced" (never $0) when some is not, "-" when no attempt used a model.
func costText(sp *store.Spend) string {
	switch {
	case sp == nil:
		return ""
	case sp.Known():
		return fmt.Sprintf("$%.4f", sp.Cost)
	case sp.Unpriced > 0:
		return "unpriced"
	}
	return "-"
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// randomLines says what guessing at random scores on this truth: each case vul with
// probability 1/2, whatever the code. With a share p of vul cases, precision is p and recall
// 1/2, so F1 = p / (p + 1/2); accuracy is 1/2; each pair is right with probability 1/4.
func (c *content) randomLines(rep *report.Report) (f1 float64, pairs bool) {
	var vul, n int
	for i := range rep.Truth.Cases {
		n++
		if rep.Truth.Cases[i].Vul {
			vul++
		}
		pairs = pairs || rep.Truth.Cases[i].Pair != 0
	}
	if n == 0 {
		return 0, pairs
	}
	p := float64(vul) / float64(n)
	if p > 0 {
		f1 = p / (p + 0.5)
	}
	c.Random = append(c.Random, fmt.Sprintf("random guessing (each case vul with probability 1/2) on these %d cases, %.1f%% of them vul: accuracy 50.0%%, precision %.1f%%, recall 50.0%%, F1 %.1f%%", n, 100*p, 100*p, 100*f1))
	if pairs {
		c.Random = append(c.Random, "random guessing on pairs: P-C = P-V = P-B = P-R = 25.0%, so pAcc 25.0%")
	}
	return f1, pairs
}

func (c *content) addPlots(rep *report.Report, names []string, figs []*report.Figures, rf1 float64, havePairs bool) error {
	f1, pacc := make([]float64, len(figs)), make([]float64, len(figs))
	var parts [4][]float64
	pairs := false
	for i, f := range figs {
		f1[i] = f.Binary.F1.Mean
		if f.Pairwise != nil {
			pairs = true
			pacc[i] = f.Pairwise.PAcc.Mean
			for k, s := range []score.Stat{f.Pairwise.PC, f.Pairwise.PV, f.Pairwise.PB, f.Pairwise.PR} {
				parts[k] = append(parts[k], s.Mean)
			}
		} else {
			for k := range parts {
				parts[k] = append(parts[k], 0)
			}
		}
	}
	s, err := headlinePlot(names, f1, pacc, rf1, pairs)
	if err != nil {
		return err
	}
	c.Plots = append(c.Plots, figure{Title: "F1 and pAcc", SVG: s})
	if err := c.addVEXPlot(names, figs); err != nil {
		return err
	}
	if pairs {
		s, err := pairwisePlot(names, parts)
		if err != nil {
			return err
		}
		c.Plots = append(c.Plots, figure{Title: "Pairwise outcomes", SVG: s,
			Note: "P-C: both cases of a pair right; P-V: both called vul; P-B: both called ben; P-R: both wrong (reversed). Random guessing: 25% each."})
	}
	// Tool calls by label, for runs whose verdicts made any (agents).
	var tn []string
	var tv, tb []float64
	for i, f := range figs {
		if f.JIT == nil || f.JIT.ToolCalls.Vul.Mean.Mean+f.JIT.ToolCalls.Ben.Mean.Mean == 0 {
			continue
		}
		tn = append(tn, names[i])
		tv = append(tv, f.JIT.ToolCalls.Vul.Mean.Mean)
		tb = append(tb, f.JIT.ToolCalls.Ben.Mean.Mean)
	}
	if len(tn) > 0 {
		s, err := toolPlot(tn, tv, tb)
		if err != nil {
			return err
		}
		c.Plots = append(c.Plots, figure{Title: "Tool calls by label", SVG: s,
			Note: "an agent that asks more on vul cases than on ben ones reads the code, not only the answer's prior"})
	}
	if err := c.addAppSecPlot(names, figs); err != nil {
		return err
	}
	if err := c.addDistPlots(rep, names, figs); err != nil {
		return err
	}
	var cn, unpriced []string
	var cc, cf, cp []float64
	for i, r := range rep.Runs {
		switch {
		case r.Spend == nil:
			continue
		case !r.Spend.Known():
			if r.Spend.Unpriced > 0 {
				unpriced = append(unpriced, names[i])
			}
			continue
		}
		cn = append(cn, names[i])
		cc, cf, cp = append(cc, r.Spend.Cost), append(cf, f1[i]), append(cp, pacc[i])
	}
	if len(cn) > 0 {
		s, err := costPlot(cn, cc, cf, cp, pairs)
		if err != nil {
			return err
		}
		note := "cost: every attempt of the run, retries and errors included"
		if len(unpriced) > 0 {
			note += "; left off, unpriced: " + strings.Join(unpriced, ", ")
		}
		c.Plots = append(c.Plots, figure{Title: "Cost against F1 and pAcc", SVG: s, Note: note})
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

const noROC = "no ROC curve: the run has no scored verdict on a vul case and on a ben case"

// rocFigure is the ROC curve of a run's first repeat (report.Run.ROC), with its VD-S point, or
// says why none.
func rocFigure(r *report.Run, name string) (figure, error) {
	fig := figure{Title: "ROC " + name}
	_, res, _ := r.First()
	if r.ROC == nil || res == nil || res.VDS == nil {
		fig.Note = noROC
		return fig, nil
	}
	v := r.ROC
	vds := res.VDS
	say := ""
	fig.Note = fmt.Sprintf("VD-S: FNR %.1f%% at FPR %.2f%% <= r = %.2f%% (score source: %s)", 100*vds.FNR, 100*v.VDS.X, 100*vds.FPRTolerance, vds.Source)
	if vds.Degenerate {
		say = " (degenerate)"
		fig.Note = "degenerate: the scores take at most two values (a label, not a ranking), so the curve has one inner point and VD-S says little. " + fig.Note
	}
	if len(r.Repeats) > 1 {
		fig.Note += fmt.Sprintf("; repeat %d of %d", r.Repeats[0], len(r.Repeats))
	}
	xys := make(plotter.XYs, len(v.Points))
	for i, p := range v.Points {
		xys[i] = plotter.XY{X: p.X, Y: p.Y}
	}
	s, err := rocPlot(name, xys, v.VDS.X, v.VDS.Y, say)
	if err != nil {
		return fig, err
	}
	fig.SVG = s
	return fig, nil
}

// addAppSecPlot adds the rubric parts of the runs graded on AppSecBench records, if any.
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
	for j, part := range parts {
		share[j] = make([]float64, len(runs))
		for k, a := range graded {
			s, ok := a.Parts[part]
			if !ok {
				share[j][k], ungraded = math.NaN(), true
				continue
			}
			share[j][k] = s.Mean
		}
	}
	s, err := appsecPlot(runs, parts, share)
	if err != nil {
		return err
	}
	note := "each part's mean points over its weight, among the records graded on it (the tables give the points, the pass rate and the judge's agreement)"
	if ungraded {
		note += "; a part with no bar for a run was not graded there (the judged parts need --judge-model)"
	}
	c.Plots = append(c.Plots, figure{Title: "AppSecBench rubric parts", SVG: s, Note: note})
	return nil
}

// addVEXPlot adds VEX-Bench's headline figures per run when some run has them.
func (c *content) addVEXPlot(names []string, figs []*report.Figures) error {
	var ns []string
	var st, sd, mf, md []float64
	for i, f := range figs {
		if f.VEX == nil {
			continue
		}
		ns = append(ns, names[i])
		st, sd = append(st, f.VEX.StatusF1.Mean), append(sd, f.VEX.StatusF1.Std)
		mf, md = append(mf, f.VEX.JustificationMacroF1.Mean), append(md, f.VEX.JustificationMacroF1.Std)
	}
	if len(ns) == 0 {
		return nil
	}
	s, err := vexPlot(ns, st, sd, mf, md)
	if err != nil {
		return err
	}
	c.Plots = append(c.Plots, figure{Title: "VEX-Bench status F1 and justification macro-F1", SVG: s,
		Note: "status: exploitable (vulnerable) is positive; justification: macro-F1 over the categories; error bars: the std over repeats"})
	return nil
}
