package batchrun

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llm/batch"
)

// ledger is where a batch phase keeps its batches, so that a process killed after one was
// created polls it again instead of submitting its requests twice: a run's (run --batch) or the
// response cache's (the judge's calls, score --judge-batch).
type ledger interface {
	// pending lists the stored batches whose requests are not to be submitted again.
	pending(ctx context.Context) ([]batch.Ref, error)
	// intend records a chunk before its create is sent (nil: not recorded).
	intend(ctx context.Context, ch batch.Chunk) error
	// put stores a batch the moment it exists.
	put(ctx context.Context, ref batch.Ref) error
	// polled records a batch's state as polled.
	polled(ctx context.Context, ref batch.Ref, st batch.State) error
	// collected hears the results of an ended batch, read.
	collected(ctx context.Context, ref batch.Ref, st batch.State, rs []batch.Result) error
}

// phaseInput is one submit-and-poll phase.
type phaseInput struct {
	client *batch.Client
	ledger ledger
	run    string       // the run the batches are for (in OpenAI's batch metadata), "" for none
	items  []batch.Item // every request wanted; those a pending batch holds are not submitted
	poll   time.Duration
	// onSubmit hears, before the first poll, how many requests were submitted and how many a
	// pending batch already held.
	onSubmit func(submitted, held int)
	onState  func(id string, st batch.State)
}

// phase submits the items that no pending batch holds, polls every pending batch holding an
// item to its end (each poll recorded, each ended batch's results handed to the ledger) and
// returns the results, by custom id, of the batches polled.
func phase(ctx context.Context, in phaseInput) (map[string]batch.Result, error) {
	stored, err := in.ledger.pending(ctx)
	if err != nil {
		return nil, err
	}
	held := map[string]bool{}
	for _, b := range stored {
		for _, id := range b.IDs {
			held[id] = true
		}
	}
	var items []batch.Item
	want := make(map[string]bool, len(in.items))
	for _, it := range in.items {
		want[it.ID] = true
		if !held[it.ID] {
			items = append(items, it)
		}
	}
	if len(items) > 0 {
		_, err := in.client.Submit(ctx, items, batch.Hooks{Run: in.run,
			OnChunk: func(ch batch.Chunk) error { return in.ledger.intend(ctx, ch) },
			OnRef: func(r batch.Ref) error {
				stored = append(stored, r)
				return in.ledger.put(context.WithoutCancel(ctx), r)
			}})
		if err != nil {
			return nil, err
		}
	}
	if in.onSubmit != nil {
		in.onSubmit(len(items), len(in.items)-len(items))
	}
	poll := in.poll
	if poll <= 0 {
		poll = 30 * time.Second
	}
	results := map[string]batch.Result{}
	for _, ref := range stored {
		if !holdsAny(ref, want) {
			continue
		}
		st, err := pollToEnd(ctx, in, ref, poll)
		if err != nil {
			return nil, err
		}
		rs, err := in.client.Results(ctx, ref)
		if err != nil {
			return nil, err
		}
		if err := in.ledger.collected(context.WithoutCancel(ctx), ref, st, rs); err != nil {
			return nil, err
		}
		for _, r := range rs {
			results[r.ID] = r
		}
	}
	return results, nil
}

// pollToEnd polls ref every poll until it has ended.
func pollToEnd(ctx context.Context, in phaseInput, ref batch.Ref, poll time.Duration) (batch.State, error) {
	for {
		st, err := in.client.Poll(ctx, ref)
		if err != nil {
			return st, err
		}
		if in.onState != nil {
			in.onState(ref.ID, st)
		}
		if err := in.ledger.polled(context.WithoutCancel(ctx), ref, st); err != nil {
			return st, err
		}
		if st.Ended {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(poll):
		}
	}
}

func holdsAny(ref batch.Ref, want map[string]bool) bool {
	for _, id := range ref.IDs {
		if want[id] {
			return true
		}
	}
	return false
}

// newClient is the batch client of the model info names, served at base ("": the
// PROVIDER_BASE_URL variable, else the provider's API), its key from the environment.
func newClient(info llm.Info, base string, prices llm.Prices) (*batch.Client, error) {
	if base == "" {
		base = os.Getenv(strings.ToUpper(info.Provider) + "_BASE_URL")
	}
	return batch.New(info.Spec(), batch.Options{BaseURL: base, Key: os.Getenv(llm.KeyEnv(info.Provider)), Caps: prices.Capabilities(info.Spec())})
}
