package html

import (
	"fmt"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
)

// addDistPlots adds the per-case distributions (tokens, cost, tool calls by label) and the VEX
// confusion heat maps of the runs that have them.
func (c *content) addDistPlots(rep *report.Report, names []string, figs []*report.Figures) error {
	var tn, cn []string
	var tokens, cost [][]float64
	for i, r := range rep.Runs {
		pc := r.PerCase
		if pc == nil {
			continue
		}
		if len(pc.Tokens) > 0 {
			tn, tokens = append(tn, names[i]), append(tokens, pc.Tokens)
		}
		if len(pc.Cost) > 0 {
			cn, cost = append(cn, names[i]), append(cost, pc.Cost)
		}
	}
	for _, d := range []struct {
		title, y, note string
		names          []string
		values         [][]float64
	}{
		{"Tokens per case", "tokens (input + output)", "each case's tokens over its attempts, retries and errors included (first repeat)", tn, tokens},
		{"Cost per case", "cost (USD)", "each case's cost over its attempts, retries and errors included (first repeat); cases of unknown cost left out", cn, cost},
	} {
		if len(d.names) == 0 {
			continue
		}
		s, err := boxPlot(d.title+" per run", d.y, d.names, d.values)
		if err != nil {
			return err
		}
		rows := [][]string{{"run", "case", d.y}}
		for i, vs := range d.values {
			for k, v := range vs {
				rows = append(rows, []string{d.names[i], strconv.Itoa(k), num(v)})
			}
		}
		c.add(figure{Title: d.title, SVG: s, CSV: table(rows), Note: "box: quartiles and median; whiskers: 1.5 IQR; points: beyond; " + d.note})
	}
	for i, r := range rep.Runs {
		if r.PerCase == nil || r.PerCase.Tools == nil {
			continue
		}
		s, err := toolHistPlot(names[i], r.PerCase.Tools)
		if err != nil {
			return err
		}
		h := r.PerCase.Tools
		rows := [][]string{{"tool_calls_from", "tool_calls_to", "share_of_vul_cases", "share_of_ben_cases"}}
		for k, lo := range h.Low {
			rows = append(rows, []string{strconv.Itoa(lo), strconv.Itoa(lo + h.Width - 1), num(h.Vul[k]), num(h.Ben[k])})
		}
		c.add(figure{Title: "Tool calls per label " + names[i], SVG: s, CSV: table(rows), YFraction: true,
			Note: "share of the answered cases of each label by the tool calls made for the verdict (first repeat)"})
	}
	for i, f := range figs {
		if f.VEX == nil {
			continue
		}
		if fig, ok, err := confusionFigure(names[i], f); err != nil {
			return err
		} else if ok {
			c.add(fig)
		}
	}
	return nil
}

// confusionFigure is the heat map of a run's VEX confusion (mean over repeats), every category
// shown, or false when the run has no VEX answer.
func confusionFigure(name string, f *report.Figures) (figure, bool, error) {
	cm := f.VEX.Confusion
	var rows []string
	var counts, share [][]float64
	total := 0.0
	for r, truth := range cm.Labels {
		if truth == score.VEXFailed {
			continue // never a truth: a column only
		}
		cs, sh := make([]float64, len(cm.Labels)), make([]float64, len(cm.Labels))
		row := 0.0
		for c := range cm.Labels {
			cs[c] = cm.Matrix[r][c].Mean
			row += cs[c]
		}
		for c := range cm.Labels {
			if row > 0 {
				sh[c] = cs[c] / row
			}
		}
		rows, counts, share = append(rows, truth), append(counts, cs), append(share, sh)
		total += row
	}
	if total == 0 {
		return figure{}, false, nil
	}
	s, err := confusionPlot(name, rows, cm.Labels, counts, share)
	if err != nil {
		return figure{}, false, err
	}
	data := [][]string{append([]string{"truth \\ answer"}, cm.Labels...)}
	for r, label := range rows {
		row := []string{label}
		for _, v := range counts[r] {
			row = append(row, num(v))
		}
		data = append(data, row)
	}
	return figure{Title: "VEX confusion " + name, SVG: s, CSV: table(data),
		Note: "rows: the truth, columns: the answer (failed: no valid answer); a cell's colour is its share of the row (white 0%, dark 100%), its text the count (mean over repeats)"}, true, nil
}

// vdsFigure is the VD-S curve of a run's first repeat, from its ROC points, or false when it
// has no curve.
func vdsFigure(r *report.Run, name string) (figure, bool, error) {
	_, res, _ := r.First()
	if r.ROC == nil || res == nil || res.VDS == nil {
		return figure{}, false, nil
	}
	s, err := vdsPlot(name, r.ROC.VDSCurve(), res.VDS.FPRTolerance, res.VDS.FNR)
	if err != nil {
		return figure{}, false, err
	}
	rows := [][]string{{"fpr_tolerance_r", "fnr"}}
	for _, p := range r.ROC.VDSCurve() {
		rows = append(rows, []string{num(p.X), num(p.Y)})
	}
	return figure{Title: "VD-S curve " + name, SVG: s, CSV: table(rows), YFraction: true,
		Note: fmt.Sprintf("the FNR at the best threshold whose FPR is at most r, for every r; the point: the run's VD-S at r = %.2f%%", 100*res.VDS.FPRTolerance)}, true, nil
}
