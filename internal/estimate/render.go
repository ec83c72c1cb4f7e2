package estimate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Rows are estimates, the document `vulnbench run --estimate` writes (output.Document); its
// JSON is the list of rows.
type Rows []Row

// Kind implements output.Document.
func (Rows) Kind() string { return "estimate" }

// JSONValue is the rows as a JSON list.
func (rs Rows) JSONValue() (any, error) { return []Row(rs), nil }

// WriteText writes the estimate as a table, with how it was made under it; a cost not known is
// "unpriced", never a number.
func (rs Rows) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "subject\tmodel\tunits\tcalls\tinput tokens\toutput tokens\tcost\tbatch cost\ttime\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", r.Subject, r.Model, r.Units, r.Calls, r.InputTokens, r.OutputTokens,
			usd(r.CostUSD), usd(r.BatchUSD), r.Duration().Round(1e9))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rs {
		note := "unpriced (add the model with --prices FILE)"
		if r.CostUSD != nil {
			note = "list prices of " + r.PriceDate
		}
		fmt.Fprintf(w, "\n%s on %s: %s\n  %s\n", r.Subject, r.Model, note, strings.Join(r.Method, "\n  "))
	}
	return nil
}

func usd(v *float64) string {
	if v == nil {
		return "unpriced"
	}
	return fmt.Sprintf("$%.4f", *v)
}
