package breakdown

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/report"
)

// Scores writes one report in a score format (text, md, json, csv): the score writers'.
type Scores func(w io.Writer, format string, rep *report.Report) error

// Subset names a subset of a suite: what chose it, and how many cases it kept of how many.
type Subset struct {
	Name  string `json:"subset"` // e.g. "language=c", or "cases from ids.txt"
	Cases int    `json:"cases"`
	Of    int    `json:"of"`
}

// SubsetOf is the subset a report's truth holds.
func SubsetOf(name string, rep *report.Report) Subset {
	return Subset{Name: name, Cases: len(rep.Truth.Cases), Of: rep.Truth.Total}
}

func (s Subset) line() string {
	return fmt.Sprintf("subset %s: %d of %d cases (the suite's sha256 is the whole suite's)", s.Name, s.Cases, s.Of)
}

// WriteSubset writes rep, the score of a subset, in format with the subset named: a line before
// text and Markdown, members "subset", "cases", "of" and "scores" in JSON, a first column in CSV.
func WriteSubset(w io.Writer, format string, s Subset, rep *report.Report, scores Scores) error {
	var buf bytes.Buffer
	if err := scores(&buf, format, rep); err != nil {
		return err
	}
	switch format {
	case "json":
		return writeJSON(w, map[string]any{"subset": s.Name, "cases": s.Cases, "of": s.Of, "scores": json.RawMessage(buf.Bytes())})
	case "csv":
		return prefixCSV(w, &buf, []string{"subset"}, []string{s.Name})
	case "md":
		fmt.Fprintf(w, "_%s_\n\n", s.line())
	default:
		fmt.Fprintln(w, s.line())
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Write writes a breakdown in format: each group's report as the score writers write it, under
// a heading naming the group (text, Markdown); JSON {"by", "groups": [{"group", "cases", "of",
// "scores"}]}; CSV with "by" and "group" columns first.
func Write(w io.Writer, format string, b *Breakdown, scores Scores) error {
	type jgroup struct {
		Group  string          `json:"group"`
		Cases  int             `json:"cases"`
		Of     int             `json:"of"`
		Scores json.RawMessage `json:"scores"`
	}
	var groups []jgroup
	for i, g := range b.Groups {
		var buf bytes.Buffer
		if err := scores(&buf, format, g.Report); err != nil {
			return err
		}
		s := SubsetOf(b.By+"="+g.Name, g.Report)
		switch format {
		case "json":
			groups = append(groups, jgroup{g.Name, s.Cases, s.Of, json.RawMessage(bytes.TrimSpace(buf.Bytes()))})
			continue
		case "csv":
			if err := prefixCSV(w, &buf, []string{"by", "group"}, []string{b.By, g.Name}, i > 0); err != nil {
				return err
			}
			continue
		case "md":
			fmt.Fprintf(w, "## %s = %s (%d of %d cases)\n\n", b.By, g.Name, s.Cases, s.Of)
		default:
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "== %s = %s: %d of %d cases ==\n", b.By, g.Name, s.Cases, s.Of)
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	if format == "json" {
		return writeJSON(w, map[string]any{"by": b.By, "groups": groups})
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// prefixCSV copies the CSV in r to w with cols (header) and vals (every record) first; with
// skipHeader set, the header line is left out.
func prefixCSV(w io.Writer, r io.Reader, cols, vals []string, skipHeader ...bool) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	for i, rec := range recs {
		if i == 0 {
			if len(skipHeader) > 0 && skipHeader[0] {
				continue
			}
			_ = cw.Write(append(append([]string{}, cols...), rec...))
			continue
		}
		_ = cw.Write(append(append([]string{}, vals...), rec...))
	}
	cw.Flush()
	return cw.Error()
}
