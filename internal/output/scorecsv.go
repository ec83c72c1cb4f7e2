package output

import (
	"bytes"
	stdcsv "encoding/csv"
	"io"
	"slices"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/report"
)

// ScoresCSV writes rep's scores as CSV, a row per figure (fractions stay in [0,1]): what the csv
// format writes of a report, and what documents that hold reports embed.
func ScoresCSV(w io.Writer, rep *report.Report) error {
	return WriteScores(w, "csv", rep, func(b *bytes.Buffer, cols []Column) error {
		return writeCSV(b, rep, report.Metrics(), cols)
	})
}

// writeCSV writes run,subject,model,metric,value (and std when a run is aggregated), one row per
// figure, after a scorer and a vulnbench row per run. Fractions stay in [0,1]; a nil VD-S
// threshold has no row; an interval has a :lo and a :hi row.
func writeCSV(b *bytes.Buffer, rep *report.Report, ms []report.Metric, cols []Column) error {
	withStd := slices.ContainsFunc(cols, func(c Column) bool { return c.Figs.Agg })
	cw := stdcsv.NewWriter(b)
	header := []string{"run", "subject", "model", "metric", "value"}
	if withStd {
		header = append(header, "std")
	}
	_ = cw.Write(header)
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, c := range cols {
		row := func(key, value, std string) {
			rec := []string{c.Run.Name, c.Run.Subject, c.Run.Model, key, value}
			if withStd {
				rec = append(rec, std)
			}
			_ = cw.Write(rec)
		}
		row("scorer", strconv.Itoa(rep.Scorer), "")
		row("vulnbench", rep.Vulnbench, "")
		_ = report.Each(ms, c.Figs, nil, func(x report.Figure) error {
			key, v := x.Metric.CSVKey(x.Name), x.Value
			switch x.Metric.Format {
			case report.Interval, report.PointsInterval:
				row(key+":lo", num(v.Lo), "")
				row(key+":hi", num(v.Hi), "")
			case report.Flag:
				row(key, strconv.FormatBool(v.Flag), "")
			case report.Text, report.Number:
				row(key, v.Text, "")
			case report.Matrix: // one row per cell: KEY:TRUTH:ANSWER
				for i, r := range v.Cells {
					for j, x := range r {
						std := ""
						if c.Figs.Agg {
							std = num(x.Std)
						}
						row(key+":"+v.Labels[i]+":"+v.Labels[j], num(x.Mean), std)
					}
				}
			default:
				if v.Null {
					return nil
				}
				std := ""
				if c.Figs.Agg {
					std = num(v.Stat.Std)
				}
				row(key, num(v.Stat.Mean), std)
			}
			return nil
		})
	}
	cw.Flush()
	return cw.Error()
}
