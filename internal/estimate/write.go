package estimate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Write prints the estimate as a table, with how it was made under it.
func Write(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "subject\tmodel\tunits\tcalls\tinput tokens\toutput tokens\tcost\tbatch cost\ttime\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", r.Subject, r.Model, r.Units, r.Calls, r.InputTokens, r.OutputTokens,
			usd(r.CostUSD), usd(r.BatchUSD), r.Duration().Round(1e9))
	}
	tw.Flush()
	for _, r := range rows {
		note := "unpriced (add the model with --prices FILE)"
		if r.CostUSD != nil {
			note = "list prices of " + r.PriceDate
		}
		how := "tokens counted on the prompts the run sends"
		if r.Modelled {
			how = "tokens from a model of an agent's steps, with its parameters"
		}
		fmt.Fprintf(w, "\n%s on %s: %s; %s\n  %s\n", r.Subject, r.Model, how, note, strings.Join(r.Method, "\n  "))
	}
}

func usd(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("$%.4f", *v)
}
