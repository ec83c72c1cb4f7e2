package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/estimate"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/subject"
)

// runEstimate is run --estimate: the subject built as the run would build it, the suite gone
// over once, and the estimate printed; no store is opened and no model called.
func runEstimate(ctx context.Context, e *env, reg *subject.Registry, o *runOpts, fs *pflag.FlagSet) error {
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
	if err := foreignFlags(fs, reg, fac); err != nil {
		return err
	}
	_, live := subjectValues(fs, fac)
	cfg, err := fac.Configure(arg, live)
	if err != nil {
		return usageErr("%v", err)
	}
	// No call is made: a missing API key must not stop the estimate, so the model stack is built
	// with a stand-in where the environment has none (it is never sent anywhere).
	getenv := func(k string) string {
		if v := os.Getenv(k); v != "" || (k != llm.KeyEnv("openai") && k != llm.KeyEnv("anthropic")) {
			return v
		}
		return "estimate-makes-no-call"
	}
	subj, err := fac.New(cfg, subject.Deps{Getenv: getenv})
	if err != nil {
		return err
	}
	if c, ok := subj.(io.Closer); ok {
		defer c.Close()
	}
	steps := o.maxSteps
	if s, ok := cfg.(interface{ Steps(*subject.Env) int }); ok {
		steps = s.Steps(subject.NewEnv(subject.EnvOptions{Limits: subject.Limits{Steps: o.maxSteps}}))
	}
	rpm, _ := strconv.Atoi(live["rpm"])
	maxTokens, _ := strconv.Atoi(live["max-tokens"])
	in := estimate.Input{Suite: o.suite, Reading: e.reading, Spec: o.subject, Subject: subj, Repeats: o.repeats, StepCap: steps,
		MaxTokens: maxTokens, RPM: rpm, Concurrency: o.concurrency}
	if o.after.raw != "" {
		in.Keep = o.after.keep
	}
	if _, ok := subj.(estimate.ContextRequester); ok { // depaug: the run's retrieval, on the run's snapshots
		sb, err := openSandbox(ctx, o.sandbox, fs.Changed("sandbox"), e.stderr)
		if err != nil {
			return err
		}
		envs := runner.SnapshotEnvs(o.repos, o.snapCache, sb)
		in.Env = func(u subject.Unit) *subject.Env { env, _ := envs.Prepare(u, nil); return env }
	}
	row, err := estimate.Estimate(ctx, in)
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
