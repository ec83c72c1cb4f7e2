package html

import (
	"fmt"
	"html/template"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// okabeIto is Okabe and Ito's palette, told apart by the common colour-vision deficiencies:
// blue, orange, bluish green, vermillion, sky blue, reddish purple, yellow, black.
var okabeIto = [...]color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, {0xE6, 0x9F, 0x00, 0xFF}, {0x00, 0x9E, 0x73, 0xFF}, {0xD5, 0x5E, 0x00, 0xFF},
	{0x56, 0xB4, 0xE9, 0xFF}, {0xCC, 0x79, 0xA7, 0xFF}, {0xF0, 0xE4, 0x42, 0xFF}, {0x00, 0x00, 0x00, 0xFF},
}

// colour is series k's colour: every plot's k-th series, in Okabe and Ito's palette.
func colour(k int) color.Color { return okabeIto[k%len(okabeIto)] }

// shade is a table cell's background for a fraction in [0,1], one hue from near white (0) to a
// mid blue (1): ordered by lightness, which every colour vision reads, and light enough at 1
// for dark text.
func shade(v float64) template.CSS {
	v = min(max(v, 0), 1)
	return template.CSS(fmt.Sprintf("background:hsl(205,70%%,%d%%)", 96-int(36*v))) // #nosec G203 -- numbers only
}

// whiskers draws one interval per bar of a bar chart at the bar's own place: a vertical line
// from Lo to Hi at the bar's centre (its group's X plus Offset, in the canvas, as
// plotter.BarChart places it), capped at both ends. Each whisker is one black path, so that a
// reader (and the browser test) finds it over its bar.
type whiskers struct {
	X, Lo, Hi []float64 // per bar: its group's place, the interval; NaN bounds: none
	Offset    vg.Length
}

// Plot implements plot.Plotter.
func (w whiskers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ls := draw.LineStyle{Color: color.Black, Width: vg.Points(1.2)}
	cap := vg.Points(3)
	for i, x := range w.X {
		if math.IsNaN(w.Lo[i]) || math.IsNaN(w.Hi[i]) { // no interval
			continue
		}
		cx := trX(x) + w.Offset
		lo, hi := trY(w.Lo[i]), trY(w.Hi[i])
		path := vg.Path{}
		path.Move(vg.Point{X: cx, Y: lo})
		path.Line(vg.Point{X: cx, Y: hi})
		path.Move(vg.Point{X: cx - cap, Y: lo})
		path.Line(vg.Point{X: cx + cap, Y: lo})
		path.Move(vg.Point{X: cx - cap, Y: hi})
		path.Line(vg.Point{X: cx + cap, Y: hi})
		c.SetLineStyle(ls)
		c.Stroke(path)
	}
}

// DataRange implements plot.DataRanger: the whiskers' span (the bars' own where none is drawn).
func (w whiskers) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range w.X {
		xmin, xmax = min(xmin, w.X[i]), max(xmax, w.X[i])
		if !math.IsNaN(w.Lo[i]) && !math.IsNaN(w.Hi[i]) {
			ymin, ymax = min(ymin, w.Lo[i]), max(ymax, w.Hi[i])
		}
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 0, 0
	}
	return
}

// any reports whether some whisker is drawn.
func (w whiskers) any() bool {
	for i := range w.X {
		if !math.IsNaN(w.Lo[i]) && !math.IsNaN(w.Hi[i]) {
			return true
		}
	}
	return false
}
