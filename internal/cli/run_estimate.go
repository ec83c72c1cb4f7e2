package cli

import (
	"context"

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
	if err := checkFormat(o.format, estimate.Rows{}); err != nil {
		return err
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
	return present(e.stdout, o.format, estimate.Rows{row})
}
