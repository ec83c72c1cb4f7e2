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
	"strconv"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
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
	c.ids()
	c.Heat = cweHeat(names, figs)
	c.Matrices = vexMatrices(names, figs)
	return c, nil
}

// ids gives every figure an id of its own (its title's slug; a number after it when taken).
func (c *content) ids() {
	seen := map[string]int{}
	for _, figs := range [][]figure{c.Plots, c.ROC} {
		for i := range figs {
			id := figs[i].ID
			if id == "" {
				id = slug(figs[i].Title)
			}
			seen[id]++
			if n := seen[id]; n > 1 {
				id += "-" + strconv.Itoa(n)
			}
			figs[i].ID = id
		}
	}
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

const noROC = "no ROC curve: the run has no scored verdict on a vul case and on a ben case"

// rocFigure is the ROC curve of a run's first repeat (report.Run.ROC), with its VD-S point, or
// says why none.
func rocFigure(r *report.Run, name string) (figure, error) {
	fig := figure{Title: "ROC " + name, Class: "roc"}
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
	rows := [][]string{{"fpr", "tpr"}}
	for _, p := range v.Points {
		rows = append(rows, []string{num(p.X), num(p.Y)})
	}
	fig.CSV, fig.YFraction = table(rows), true
	return fig, nil
}
