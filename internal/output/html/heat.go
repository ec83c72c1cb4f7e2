package html

import (
	"fmt"
	"slices"

	"github.com/vulnbench/vulnbench/internal/report"
)

func cweHeat(names []string, figs []*report.Figures) *heat {
	var cwes []string
	for _, f := range figs {
		for w := range f.ByCWE {
			if !slices.Contains(cwes, w) {
				cwes = append(cwes, w)
			}
		}
	}
	if len(cwes) == 0 {
		return nil
	}
	slices.SortFunc(cwes, report.CWECompare)
	h := &heat{Runs: names}
	for _, w := range cwes {
		row := heatRow{CWE: w}
		for _, f := range figs {
			c, ok := f.ByCWE[w]
			if !ok {
				row.Cells = append(row.Cells, heatCell{Text: "-"}, heatCell{Text: "-"})
				continue
			}
			if row.N == "" {
				row.N = fmt.Sprintf("%g", c.N.Mean)
			}
			row.Cells = append(row.Cells, heatCell{Text: fmt.Sprintf("%.1f%%", 100*c.F1.Mean), Style: shade(c.F1.Mean),
				Title: fmt.Sprintf("%s F1: tp %g, fp %g, fn %g, tn %g", w, c.TP.Mean, c.FP.Mean, c.FN.Mean, c.TN.Mean)})
			if c.Pairs.Mean == 0 {
				row.Cells = append(row.Cells, heatCell{Text: "-", Title: "no pair of this CWE"})
				continue
			}
			row.Cells = append(row.Cells, heatCell{Text: fmt.Sprintf("%.1f%%", 100*c.PAcc.Mean), Style: shade(c.PAcc.Mean),
				Title: fmt.Sprintf("%s pAcc over %g pairs", w, c.Pairs.Mean)})
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

func vexMatrices(names []string, figs []*report.Figures) []matrix {
	var out []matrix
	for i, f := range figs {
		if f.VEX == nil {
			continue
		}
		cm := f.VEX.Confusion
		var keep []int
		for k := range cm.Labels {
			for j := range cm.Labels {
				if cm.Matrix[k][j].Mean != 0 || cm.Matrix[j][k].Mean != 0 {
					keep = append(keep, k)
					break
				}
			}
		}
		m := matrix{Title: "VEX confusion of " + names[i] + " (rows: truth, columns: answer)"}
		for _, k := range keep {
			m.Labels = append(m.Labels, cm.Labels[k])
		}
		for _, k := range keep {
			total := 0.0
			for _, j := range keep {
				total += cm.Matrix[k][j].Mean
			}
			row := matrixRow{Label: cm.Labels[k]}
			for _, j := range keep {
				v := cm.Matrix[k][j].Mean
				cell := heatCell{Text: fmt.Sprintf("%g", v)}
				if total > 0 && v > 0 {
					share := v / total
					if k != j {
						share = 1 - share // off the diagonal, many is bad
					}
					cell.Style = shade(share)
				}
				row.Cells = append(row.Cells, cell)
			}
			m.Rows = append(m.Rows, row)
		}
		if len(keep) > 0 {
			out = append(out, m)
		}
	}
	return out
}
