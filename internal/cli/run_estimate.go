package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/estimate"
	"github.com/vulnbench/vulnbench/internal/subject"
)

// runEstimate is run --estimate: the subject built as the run would build it, the suite gone
// over once, and the estimate printed; no store is opened and no model called.
func runEstimate(_ context.Context, e *env, reg *subject.Registry, o *runOpts, fs *pflag.FlagSet) error {
	switch {
	case o.resume != "":
		return usageErr("--estimate applies to a new run (--suite and --subject), not to --resume")
	case o.suite == "" || o.subject == "":
		return usageErr("run --estimate needs --suite SUITE and --subject SPEC")
	}
	if o.format != "text" && o.format != "json" {
		return usageErr("--estimate prints text or json, not --format %s", o.format)
	}
	fac, arg, err := reg.Lookup(o.subject)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := reg.Foreign(fac, fs.Changed); err != nil {
		return usageErr("%v", err)
	}
	_, live := fac.ValuesOf(fs)
	cfg, err := fac.Configure(arg, live)
	if err != nil {
		return usageErr("%v", err)
	}
	in := estimate.Input{Suite: o.suite, Reading: e.reading, Spec: o.subject, Factory: fac, Config: cfg, Repeats: o.repeats,
		MaxSteps: o.maxSteps, Concurrency: o.concurrency}
	if o.after.raw != "" {
		in.Keep = o.after.keep
	}
	row, err := estimate.Estimate(in)
	if err != nil {
		return err
	}
	if o.format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode([]estimate.Row{row})
	}
	writeEstimate(e.stdout, []estimate.Row{row})
	return nil
}

// writeEstimate prints the estimate as a table, with how it was made under it.
func writeEstimate(w io.Writer, rows []estimate.Row) {
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
		fmt.Fprintf(w, "\n%s on %s: %s\n  %s\n", r.Subject, r.Model, note, strings.Join(r.Method, "\n  "))
	}
}

func usd(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("$%.4f", *v)
}
