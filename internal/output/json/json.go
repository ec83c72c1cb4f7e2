// Package json presents documents as JSON: a report's scores as the score contract scripts rely
// on (fractions stay in [0,1], absent sections are omitted, over repeats each figure is {mean,
// std}), any other document as its JSON value, indented.
package json

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
)

// Presenter writes documents as JSON.
type Presenter struct{ output.General }

// Name implements output.Presenter.
func (Presenter) Name() string { return "json" }

// Present implements output.Presenter.
func (Presenter) Present(w io.Writer, d output.Document) error {
	if rep, ok := d.(*report.Report); ok {
		return output.ScoresJSON(w, rep)
	}
	v, err := output.JSONOf(d)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	enc := stdjson.NewEncoder(&b)
	enc.SetEscapeHTML(false) // text such as "pass rate (>= 70)" or a finding's message stays as it is
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write %s as json: %w", d.Kind(), err)
	}
	_, err = w.Write(b.Bytes())
	return err
}
