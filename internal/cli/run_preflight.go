package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/preflight"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// runPreflight checks, before anything is opened or stored, that the machine and --repos,
// --advisories hold everything the subject needs on the suite's cases; every miss is printed
// at once with its fix, and the run exits 2. Warnings (an unpriced model) are printed and the
// run goes on.
func runPreflight(ctx context.Context, e *env, reg *subject.Registry, o *runOpts, fs *pflag.FlagSet) error {
	fac, arg, err := reg.Lookup(o.subject)
	if err != nil {
		return usageErr("%v", err)
	}
	_, live := subjectValues(fs, fac)
	cfg, err := fac.Configure(arg, live)
	if err != nil {
		return usageErr("%v", err)
	}
	in := preflight.Input{Suite: o.suite, Reading: e.reading, Factory: fac, Config: cfg, Repos: o.repos, Getenv: os.Getenv}
	if o.after.raw != "" {
		if err := o.after.validate(); err != nil {
			return err
		}
		in.Keep = o.after.keep
	}
	rep, err := preflight.Check(ctx, in)
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(e.stderr, "vulnbench: warning: %s\n", w)
	}
	return preflightErr(rep.Err())
}

// preflightErr is a failed preflight as exit status 2.
func preflightErr(err error) error {
	var pe *preflight.Error
	if errors.As(err, &pe) {
		return &exitError{code: ExitUsage, err: err}
	}
	return err
}

// workerPreflight is the worker's preflight of each run it opens: the run's stored cases
// against this host's programs, environment and --repos. A miss refuses the run on this host
// (the worker notes every miss with its fix) and leaves its units to other workers.
func workerPreflight(st *store.Store, repos string) func(context.Context, *store.Run, subject.Factory, subject.Config) error {
	return func(ctx context.Context, run *store.Run, fac subject.Factory, cfg subject.Config) error {
		rep, err := preflight.Check(ctx, preflight.Input{Suite: run.SuitePath, Factory: fac, Config: cfg, Repos: repos, Getenv: os.Getenv,
			Cases: func(fn func(*suite.Case) error) error { return st.Cases(ctx, run.ID, fn) }})
		if err != nil {
			return err
		}
		return rep.Err()
	}
}
