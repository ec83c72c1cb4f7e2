// Package subject defines what is under test and the environment it judges a case in. Subjects
// are symmetrical: a baseline, a scanner, a predictions file, a model or an agent all turn a unit
// (case, repeat, attempt) into a verdict, using only what their Env gives them. The explicit list
// of subject kinds is in internal/subject/builtin.
package subject

import (
	"context"
	"errors"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Unit is one try at one (case, repeat). Attempt counts the tries at it from 0: every attempt is
// stored, and a retried unit gets the next number.
type Unit struct {
	Case    *suite.Case
	Repeat  int
	Attempt int
}

// Subject judges units. Assess returns an error only for infrastructure faults (the runner stores
// them as an error verdict with the reason); an answer that cannot be understood is a verdict with
// status failed. Assess is called from several goroutines at once.
type Subject interface {
	Assess(ctx context.Context, u Unit, env *Env) (verdict.Verdict, error)
}

// ErrAbort, wrapped in a subject's error, stops the whole run: a fault that every case would hit
// (a rejected API key, an unknown model). The attempt is not stored, so a resume redoes it.
var ErrAbort = errors.New("run aborted")

// ErrLimit, wrapped, says a unit reached one of its limits (steps, tokens, cost): an agent stops
// there and answers with what it has, or the unit ends in an error that says which limit. It is
// llm.ErrLimit, declared there so that agents (which drive models, below subjects) can test for it.
var ErrLimit = llm.ErrLimit

// ErrNoSnapshot is returned by Env.Snapshot for a case without a repository.
var ErrNoSnapshot = errors.New("the case has no repository snapshot")

// NeedsRepo is the error of subject name when Env.Snapshot failed with err for case c: for a
// case without a repository, one that says what the subject needs.
func NeedsRepo(name string, c *suite.Case, err error) error {
	if errors.Is(err, ErrNoSnapshot) {
		return fmt.Errorf("subject %s needs the case's repository: case %s has no repo.url and repo.commit (%w)", name, c.ID, err)
	}
	return fmt.Errorf("subject %s: %w", name, err)
}

// Config is a subject kind's typed configuration, recorded in the run's manifest as JSON.
type Config interface {
	Validate() error
}
