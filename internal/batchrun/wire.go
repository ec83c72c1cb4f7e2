package batchrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llm/batch"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// batchable is a subject whose calls a batch run answers: the llm subject.
type batchable interface {
	Requester
	subject.Modeled
	UseBatch(m llm.Model)
}

// Wire makes plan's units answered from the provider's batch API (run --batch): the subject,
// once built, calls the batch answers at batch prices; before the first unit, the batch phase
// submits what is left, polls every poll to the end and fills the answers (saying so on
// progress). A failed batch phase cancels the run (nothing is stored for the units) and is
// returned by the func Wire returns. live are the subject's flag values (base-url, cache-tag).
func Wire(progress io.Writer, st *store.Store, plan *runner.Plan, poll time.Duration, live runner.Values, cancel context.CancelFunc) func() error {
	var mu sync.Mutex
	var in Input
	var failed error
	fail := func(err error) {
		mu.Lock()
		if failed == nil {
			failed = err
		}
		mu.Unlock()
		cancel()
	}
	newSubj := plan.Factory.New
	plan.Factory.New = func(cfg subject.Config, d subject.Deps) (subject.Subject, error) {
		s, err := newSubj(cfg, d)
		if err != nil {
			return nil, err
		}
		b, ok := s.(batchable)
		if !ok {
			return nil, fmt.Errorf("--batch applies to the llm subject only, not %s", plan.Factory.Name)
		}
		info := b.Model().Info()
		base := live["base-url"]
		if base == "" {
			base = os.Getenv(strings.ToUpper(info.Provider) + "_BASE_URL")
		}
		client, err := batch.New(info.Spec(), batch.Options{BaseURL: base, Key: os.Getenv(llm.KeyEnv(info.Provider)),
			Caps: b.Prices().Capabilities(info.Spec())})
		if err != nil {
			return nil, err
		}
		answers := NewAnswers(info, live["cache-tag"], d.Cache)
		b.UseBatch(answers)
		in = Input{Store: st, Subject: b, Client: client, Answers: answers, Repeats: plan.Repeats,
			RetryErrors: plan.RetryErrors, Poll: poll}
		return s, nil
	}
	onStart := plan.OnStart
	plan.OnStart = func(run *store.Run, cases, done int) {
		in.RunID = run.ID
		in.Cases = suiteCases(run.SuitePath, plan.Keep)
		fmt.Fprintf(progress, "run %s: the batch phase: submitting what is left, polling every %s\n", run.ID, poll)
		if err := Prepare(context.Background(), in); err != nil {
			fail(err)
			return
		}
		if onStart != nil {
			onStart(run, cases, done)
		}
	}
	return func() error {
		mu.Lock()
		defer mu.Unlock()
		if failed != nil {
			return fmt.Errorf("batch run: %w", failed)
		}
		return nil
	}
}

// suiteCases streams the kept cases of a suite file.
func suiteCases(path string, keep func(*suite.Case) bool) func(fn func(*suite.Case) error) error {
	return func(fn func(*suite.Case) error) error {
		_, _, err := suite.Scan(path, false, func(c *suite.Case, _ int) error {
			if keep != nil && !keep(c) {
				return nil
			}
			return fn(c)
		})
		return err
	}
}
