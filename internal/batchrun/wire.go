package batchrun

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Run is the run a batch phase answers (runner.Run): its subject and the kind's declaration, its
// settings (base URL, cache tag), its repeats, whether error units are redone, and its cases.
type Run interface {
	Subject() subject.Subject
	Factory() subject.Factory
	Settings() manifest.Settings
	Repeats() int
	RetryErrors() bool
	Cases(ctx context.Context, fn func(*suite.Case) error) error
}

// Wire makes r's units answered from the provider's batch API (run --batch): r's subject calls
// the batch answers at batch prices. The OnStart it returns, before the first unit, submits what
// is left, polls every poll to the end and fills the answers (saying so on progress); its error
// (the batch phase failed) stops the run before any unit is stored. The subject's kind must
// declare it can be batched (subject.Can.Batch); its settings give the base URL and cache tag.
func Wire(progress io.Writer, st *store.Store, r Run, poll time.Duration) (func(ctx context.Context, run *store.Run, cases, done int) error, error) {
	b, ok := r.Factory().Batcher(r.Subject())
	if !ok {
		return nil, fmt.Errorf("--batch applies to the llm subject only, not %s", r.Factory().Name)
	}
	info, set := b.Model().Info(), r.Settings()
	client, err := newClient(info, set.BaseURL, b.Prices())
	if err != nil {
		return nil, err
	}
	answers := NewAnswers(info, set.CacheTag, st)
	b.UseBatch(answers)
	return func(ctx context.Context, run *store.Run, _, _ int) error {
		in := Input{Store: st, Subject: b, Client: client, Answers: answers, Repeats: r.Repeats(),
			RetryErrors: r.RetryErrors(), Poll: poll, RunID: run.ID,
			Cases: func(fn func(*suite.Case) error) error { return r.Cases(ctx, fn) }}
		fmt.Fprintf(progress, "run %s: the batch phase: submitting what is left, polling every %s\n", run.ID, poll)
		if err := Prepare(ctx, in); err != nil {
			return fmt.Errorf("batch run: %w", err)
		}
		return nil
	}, nil
}
