package output

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/report"
)

// ScoresJSON writes rep's scores as JSON, the score contract scripts rely on (fractions
// stay in [0,1]): what the json format writes of a report, and what documents that hold reports
// (breakdowns, subsets) embed.
func ScoresJSON(w io.Writer, rep *report.Report) error {
	return WriteScores(w, "json", rep, func(b *bytes.Buffer, cols []Column) error {
		return writeJSON(b, rep, report.Metrics(), cols)
	})
}

// writeJSON writes the score object of one run, or {"runs": [{"run": ID, "subject": ..,
// "model": .., ...}]} for several; both open with the scorer and vulnbench's version. A family's
// members (CWEs, score sources) are ordered by name, as encoding/json orders map keys.
func writeJSON(b *bytes.Buffer, rep *report.Report, ms []report.Metric, cols []Column) error {
	var c bytes.Buffer
	c.WriteString(`{"scorer":` + strconv.Itoa(rep.Scorer) + `,"vulnbench":`)
	if err := marshal(&c, rep.Vulnbench); err != nil {
		return err
	}
	if len(cols) == 1 {
		n, err := figuresNode(ms, cols[0].Figs)
		if err != nil {
			return err
		}
		n.members(&c)
	} else {
		c.WriteString(`,"runs":[`)
		for i, col := range cols {
			if i > 0 {
				c.WriteByte(',')
			}
			n, err := figuresNode(ms, col.Figs)
			if err != nil {
				return err
			}
			c.WriteString(`{"run":`)
			_ = marshal(&c, col.Run.Name)
			c.WriteString(`,"subject":`)
			_ = marshal(&c, col.Run.Subject)
			if col.Run.Model != "" {
				c.WriteString(`,"model":`)
				_ = marshal(&c, col.Run.Model)
			}
			n.members(&c)
			c.WriteByte('}')
		}
		c.WriteByte(']')
	}
	c.WriteByte('}')
	if err := stdjson.Indent(b, c.Bytes(), "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	return nil
}

func marshal(b *bytes.Buffer, v any) error {
	j, err := stdjson.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(j)
	return nil
}

// node is a JSON object whose members keep the order they were set in.
type node struct {
	keys []string
	kids map[string]*node
	raw  map[string][]byte
}

func (n *node) set(path []string, raw []byte) {
	for len(path) > 1 {
		k := path[0]
		if n.kids == nil {
			n.kids = map[string]*node{}
		}
		kid := n.kids[k]
		if kid == nil {
			kid = &node{}
			n.kids[k] = kid
			n.keys = append(n.keys, k)
		}
		n, path = kid, path[1:]
	}
	if n.raw == nil {
		n.raw = map[string][]byte{}
	}
	if _, ok := n.raw[path[0]]; !ok {
		n.keys = append(n.keys, path[0])
	}
	n.raw[path[0]] = raw
}

// members writes ,"key":value for each member.
func (n *node) members(b *bytes.Buffer) {
	for _, k := range n.keys {
		b.WriteByte(',')
		_ = marshal(b, k)
		b.WriteByte(':')
		if kid, ok := n.kids[k]; ok {
			b.WriteByte('{')
			var inner bytes.Buffer
			kid.members(&inner)
			b.Write(bytes.TrimPrefix(inner.Bytes(), []byte(",")))
			b.WriteByte('}')
			continue
		}
		b.Write(n.raw[k])
	}
}

func figuresNode(ms []report.Metric, f *report.Figures) (*node, error) {
	n := &node{}
	err := report.Each(ms, f, strings.Compare, func(x report.Figure) error {
		raw, err := jsonValue(x.Metric.Format, x.Value, f.Agg)
		if err != nil {
			return fmt.Errorf("%s: %w", x.Metric.CSVKey(x.Name), err)
		}
		n.set(x.Metric.JSONPath(x.Name), raw)
		return nil
	})
	return n, err
}

func jsonValue(format report.Format, v report.Value, agg bool) ([]byte, error) {
	switch format {
	case report.Count, report.Fraction, report.Threshold, report.Points:
		if v.Null {
			return []byte("null"), nil
		}
		if agg {
			return stdjson.Marshal(v.Stat)
		}
		return stdjson.Marshal(v.Stat.Mean)
	case report.Flag:
		return stdjson.Marshal(v.Flag)
	case report.Interval, report.PointsInterval:
		return stdjson.Marshal([2]float64{v.Lo, v.Hi})
	case report.Number:
		return []byte(v.Text), nil
	case report.Matrix:
		out := struct {
			Labels []string `json:"labels"`
			Matrix any      `json:"matrix"`
		}{Labels: v.Labels}
		if agg {
			out.Matrix = v.Cells
		} else {
			m := make([][]float64, len(v.Cells))
			for i, row := range v.Cells {
				m[i] = make([]float64, len(row))
				for j, c := range row {
					m[i][j] = c.Mean
				}
			}
			out.Matrix = m
		}
		return stdjson.Marshal(out)
	}
	return stdjson.Marshal(v.Text)
}
