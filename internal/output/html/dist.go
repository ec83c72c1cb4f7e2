package html

import (
	"fmt"
	"html/template"
	"image/color"
	"math"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/report"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The papers' distribution figures: tokens and cost per case as box plots per run, tool calls
// per label as a histogram, the VEX confusion as a heat map, and the VD-S curve.

// boxPlot draws one box (quartiles, whiskers at 1.5 IQR, outliers as points) per run.
func boxPlot(title, ylabel string, names []string, values [][]float64) (template.HTML, error) {
	p := newPlot(title, "", ylabel)
	p.Y.Min = 0
	hi := 0.0
	for i, vs := range values {
		for _, v := range vs {
			hi = math.Max(hi, v)
		}
		b, err := plotter.NewBoxPlot(vg.Points(24), float64(i), plotter.Values(vs))
		if err != nil {
			return "", fmt.Errorf("%s of %s: %w", title, names[i], err)
		}
		b.FillColor = colour(0)
		p.Add(b)
	}
	p.Y.Max = math.Max(hi*1.1, 1e-9)
	nominal(p, names)
	return svg(p, width(len(names)), 3*vg.Inch)
}

// toolHistPlot draws one run's tool calls per answered case, vul and ben side by side, as the
// share of the label's cases in each bin.
func toolHistPlot(name string, h *report.ToolHist) (template.HTML, error) {
	p := newPlot("Tool calls per case by label: "+name, "tool calls", "share of the label's cases")
	p.Y.Min, p.Y.Max = 0, 1
	w := vg.Points(math.Max(3, math.Min(12, 160/float64(len(h.Low)))))
	if err := bars(p, w, []string{fmt.Sprintf("vul cases (%d)", h.NVul), fmt.Sprintf("ben cases (%d)", h.NBen)}, [][]float64{h.Vul, h.Ben}); err != nil {
		return "", err
	}
	bins := make([]string, len(h.Low))
	for k, lo := range h.Low {
		bins[k] = fmt.Sprint(lo)
		if h.Width > 1 {
			bins[k] = fmt.Sprintf("%d-%d", lo, lo+h.Width-1)
		}
	}
	p.NominalX(bins...)
	p.Legend.Top = true
	return svg(p, width(len(bins)), 3*vg.Inch)
}

// vdsPlot draws VD-S against the tolerated FPR r: the FNR at the best threshold whose FPR is
// at most r, with the run's own r marked.
func vdsPlot(name string, curve []report.XY, r, fnr float64) (template.HTML, error) {
	p := newPlot("VD-S curve "+name, "tolerated false-positive rate r", "false-negative rate")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	xys := make(plotter.XYs, len(curve))
	for i, c := range curve {
		xys[i] = plotter.XY{X: c.X, Y: c.Y}
	}
	if err := addCurve(p, "VD-S(r)", xys); err != nil {
		return "", err
	}
	if err := addMark(p, fmt.Sprintf("r = %.1f%%: FNR %.1f%%", 100*r, 100*fnr), r, fnr); err != nil {
		return "", err
	}
	return svg(p, 4*vg.Inch, 4*vg.Inch)
}

// shareGrid is a confusion matrix as row shares for a heat map: column c is the answer, row r
// the truth, the first drawn at the top.
type shareGrid struct{ share [][]float64 }

func (g shareGrid) Dims() (c, r int)   { return len(g.share[0]), len(g.share) }
func (g shareGrid) Z(c, r int) float64 { return g.share[len(g.share)-1-r][c] }
func (g shareGrid) X(c int) float64    { return float64(c) }
func (g shareGrid) Y(r int) float64    { return float64(r) }

// ramp is the heat maps' palette: white (0) to the plots' first colour (1).
type ramp struct{}

func (ramp) Colors() []color.Color {
	end := color.RGBAModel.Convert(colour(0)).(color.RGBA)
	cs := make([]color.Color, 32)
	for i := range cs {
		f := float64(i) / float64(len(cs)-1)
		mix := func(a uint8) uint8 { return uint8(255 - f*(255-float64(a))) }
		cs[i] = color.RGBA{R: mix(end.R), G: mix(end.G), B: mix(end.B), A: 255}
	}
	return cs
}

var _ palette.Palette = ramp{}

// confusionPlot draws a VEX confusion matrix as a heat map: each cell's colour is its share of
// the truth's row, its text the count.
func confusionPlot(name string, rows, cols []string, counts, share [][]float64) (template.HTML, error) {
	p := newPlot("VEX confusion "+name, "answer", "truth")
	hm := plotter.NewHeatMap(shareGrid{share}, ramp{})
	hm.Min, hm.Max = 0, 1
	p.Add(hm)
	var xys plotter.XYs
	var texts []string
	n := len(rows)
	for r := range counts {
		for c, v := range counts[r] {
			if v == 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: float64(c), Y: float64(n - 1 - r)})
			texts = append(texts, strconv.FormatFloat(v, 'g', 3, 64)) // a mean over repeats: 1.67
		}
	}
	if len(xys) > 0 {
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
		if err != nil {
			return "", err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		}
		p.Add(lb)
	}
	// Upright column names, one per column (slanted, long names run into their neighbours),
	// read downwards from the axis: a text starts at its anchor, so a browser's font, wider
	// than gonum's metrics, runs on into the margin below, not into the cells.
	p.NominalX(cols...)
	p.X.Tick.Label.Rotation = -math.Pi / 2
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XLeft, draw.YCenter
	up := make([]string, n)
	for r := range rows {
		up[n-1-r] = rows[r]
	}
	p.X.Label.Padding = vg.Points(12) // clear of the browser's longer names
	p.NominalY(up...)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.5, float64(len(cols))-0.5, -0.5, float64(n)-0.5
	return svg(p, 7*vg.Inch, 7*vg.Inch)
}
