package cli

import (
	"context"
	"io"
	"os"
	"strconv"

	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/estimate"
	"github.com/vulnbench/vulnbench/internal/llm"
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
	row, err := estimate.Estimate(in)
	if err != nil {
		return err
	}
	return present(e.stdout, o.format, estimate.Rows{row})
}
