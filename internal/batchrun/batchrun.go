// Package batchrun does a plain-LLM run's model calls on the provider's batch API (run
// --batch): before the run's units start, every unit left gets its request submitted in batches
// (each batch recorded with the run as it is created, so a restarted run polls the batches it
// made and never submits a unit twice; each chunk recorded as an intent before its create is
// sent, so a run killed between the provider creating a batch and its id being stored finds
// that batch on the provider), the batches are polled to their end, and each result
// becomes the answer the unit's model call gets: through the same meter, attempts, response
// cache and cost (at batch prices) as online. A request the batch refused, or that expired,
// is that unit's error: a resume with --retry-errors submits it again as the next attempt.
//
// Judge does the same for the judge's calls of a scoring (score --judge-batch), its batches
// kept by the requests' cache keys rather than with a run (judge.go).
package batchrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llm/batch"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Store is what the batch phase needs of the store.
type Store interface {
	Units(ctx context.Context, runID string, fn func(store.UnitState)) error
	PutBatch(ctx context.Context, b store.Batch) error
	SetBatchState(ctx context.Context, runID, batchID, state string, collected bool) error
	Batches(ctx context.Context, runID string) ([]store.Batch, error)
	PutBatchIntent(ctx context.Context, in store.BatchIntent) error
	BatchIntents(ctx context.Context, runID string) ([]store.BatchIntent, error)
	DropBatchIntent(ctx context.Context, runID, nonce string) error
	BatchStored(ctx context.Context, provider, batchID string) (bool, error)
	llm.CacheStore
}

// Answers is the model a batch run's subject calls: each request is answered from its unit's
// batch result (filled by Prepare), and stored in the response cache as an online answer is.
type Answers struct {
	info  llm.Info
	ns    string
	cache llm.CacheStore // nil: none
	mu    sync.Mutex
	byKey map[string]batch.Result
	// els answers a request no batch result holds (nil: none does; an error).
	els llm.Model
}

// NewAnswers is the (empty) answers of a model; Prepare fills them.
func NewAnswers(info llm.Info, namespace string, cache llm.CacheStore) *Answers {
	return &Answers{info: info, ns: namespace, cache: cache, byKey: map[string]batch.Result{}}
}

// Info implements llm.Model.
func (a *Answers) Info() llm.Info { return a.info }

// Complete implements llm.Model: the batch's answer to req, or its per-request error.
func (a *Answers) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	key, err := llm.CacheKey(a.ns, a.info, req)
	if err != nil {
		return llm.Response{}, err
	}
	a.mu.Lock()
	r, ok := a.byKey[key]
	a.mu.Unlock()
	if !ok && a.els != nil {
		return a.els.Complete(ctx, req)
	}
	if !ok {
		return llm.Response{}, fmt.Errorf("batch run: this request was in no batch (was the run changed since its batches were made?)")
	}
	if r.Err != nil {
		return llm.Response{Calls: 1}, fmt.Errorf("batch request %s: %w", r.ID, r.Err)
	}
	resp := r.Resp
	resp.Calls = 1
	if a.cache != nil {
		if b, err := jsonResponse(resp); err == nil {
			_ = a.cache.PutResponse(context.WithoutCancel(ctx), key, a.info.Provider, a.info.Model, b)
		}
	}
	return resp, nil
}

// Input is one batch phase.
type Input struct {
	Store       Store
	RunID       string
	Cases       func(fn func(*suite.Case) error) error // the run's kept cases
	Repeats     int
	RetryErrors bool
	Subject     subject.Requester
	Client      *batch.Client
	Answers     *Answers
	Poll        time.Duration // between polls of the batches in flight (0: 30 s)
	// Settle is how long after an intent's time a batch the provider does not list is known
	// never created (its create, if sent, answered or abandoned); 0: 2 minutes.
	Settle time.Duration
	// OnState hears each batch's state as polled.
	OnState func(id string, st batch.State)
}

// unit is one unit left, with its request.
type unit struct {
	id  string // custom id: a hash of case, repeat and attempt
	key string // the request's cache key
	req llm.Request
}

// CustomID is the custom id of a unit's attempt: 32 hex digits of its hash (within both
// providers' pattern and length).
func CustomID(caseID string, repeat, attempt int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", caseID, repeat, attempt)))
	return "u" + hex.EncodeToString(sum[:16])
}

// Prepare resolves the run's intents left by a process killed mid-create (the batch found on
// the provider is stored and polled; one never created is forgotten), submits the units left
// that no stored batch holds, polls every batch of the run to its end and fills in.Answers
// with the results of the units left.
func Prepare(ctx context.Context, in Input) error {
	left, err := unitsLeft(ctx, in)
	if err != nil {
		return err
	}
	items := make([]batch.Item, len(left))
	for i, u := range left {
		items[i] = batch.Item{ID: u.id, Req: u.req}
	}
	results, err := phase(ctx, phaseInput{client: in.Client, ledger: runLedger{in}, run: in.RunID, items: items, poll: in.Poll, onState: in.OnState})
	if err != nil {
		return err
	}
	in.Answers.mu.Lock()
	defer in.Answers.mu.Unlock()
	for _, u := range left {
		if r, ok := results[u.id]; ok {
			in.Answers.byKey[u.key] = r
		}
	}
	return nil
}

// runLedger keeps a run's batches with the run: every one of them holds its units (a unit
// retried is a new attempt, under a new custom id), and so does the batch of an intent left
// over, once found on the provider.
type runLedger struct{ in Input }

func (l runLedger) pending(ctx context.Context) ([]batch.Ref, error) {
	in := l.in
	bs, err := in.Store.Batches(ctx, in.RunID)
	if err != nil {
		return nil, err
	}
	intents, err := in.Store.BatchIntents(ctx, in.RunID)
	if err != nil {
		return nil, err
	}
	for _, it := range intents {
		b, ok, err := resolve(ctx, in, it)
		if err != nil {
			return nil, err
		}
		if ok {
			bs = append(bs, b)
		}
	}
	refs := make([]batch.Ref, len(bs))
	for i, b := range bs {
		refs[i] = batch.Ref{Provider: b.Provider, ID: b.ID, IDs: b.CustomIDs, Nonce: b.Nonce}
	}
	return refs, nil
}

func (l runLedger) intend(ctx context.Context, ch batch.Chunk) error {
	return l.in.Store.PutBatchIntent(ctx, store.BatchIntent{RunID: l.in.RunID, Nonce: ch.Nonce, Provider: l.in.Client.Provider(), CustomIDs: ch.IDs, CreatedAt: ch.At})
}

func (l runLedger) put(ctx context.Context, r batch.Ref) error {
	return l.in.Store.PutBatch(ctx, store.Batch{RunID: l.in.RunID, ID: r.ID, Provider: r.Provider, CustomIDs: r.IDs, State: "submitted", Nonce: r.Nonce})
}

func (l runLedger) polled(ctx context.Context, r batch.Ref, st batch.State) error {
	return l.in.Store.SetBatchState(ctx, l.in.RunID, r.ID, st.Status, false)
}

func (l runLedger) collected(ctx context.Context, r batch.Ref, st batch.State, _ []batch.Result) error {
	return l.in.Store.SetBatchState(ctx, l.in.RunID, r.ID, st.Status, true)
}

// resolve looks on the provider for the batch of an intent left by a killed process: found, it
// is stored as the run's batch (and the intent dropped); not found once the intent is Settle
// old, the batch was never created and the intent is dropped, its units left to submit again.
func resolve(ctx context.Context, in Input, it store.BatchIntent) (store.Batch, bool, error) {
	settle := in.Settle
	if settle <= 0 {
		settle = 2 * time.Minute
	}
	ch := batch.Chunk{Nonce: it.Nonce, IDs: it.CustomIDs, At: it.CreatedAt}
	o := batch.FindOptions{Poll: in.Poll, Skip: func(id string) (bool, error) { return in.Store.BatchStored(ctx, it.Provider, id) }}
	for {
		ref, ok, err := in.Client.Find(ctx, in.RunID, ch, o)
		if err != nil {
			return store.Batch{}, false, fmt.Errorf("the batch of chunk %s (created at %s, not stored): %w", it.Nonce, it.CreatedAt.Format(time.RFC3339), err)
		}
		if ok {
			b := store.Batch{RunID: in.RunID, ID: ref.ID, Provider: ref.Provider, CustomIDs: ref.IDs, State: "submitted", Nonce: it.Nonce}
			return b, true, in.Store.PutBatch(context.WithoutCancel(ctx), b)
		}
		wait := time.Until(it.CreatedAt.Add(settle))
		if wait <= 0 {
			return store.Batch{}, false, in.Store.DropBatchIntent(context.WithoutCancel(ctx), in.RunID, it.Nonce)
		}
		select {
		case <-ctx.Done():
			return store.Batch{}, false, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// unitsLeft lists the units not done, each at its next attempt, with its request.
func unitsLeft(ctx context.Context, in Input) ([]unit, error) {
	type k struct {
		id string
		r  int
	}
	states := map[k]store.UnitState{}
	if err := in.Store.Units(ctx, in.RunID, func(u store.UnitState) { states[k{u.CaseID, u.Repeat}] = u }); err != nil {
		return nil, err
	}
	var left []unit
	err := in.Cases(func(c *suite.Case) error {
		for r := 0; r < in.Repeats; r++ {
			st, ok := states[k{c.ID, r}]
			if ok && (st.Scored || !in.RetryErrors) {
				continue
			}
			req, err := in.Subject.Request(subject.Unit{Case: c, Repeat: r, Attempt: st.Attempts})
			if err != nil {
				return fmt.Errorf("case %s: %w", c.ID, err)
			}
			key, err := llm.CacheKey(in.Answers.ns, in.Answers.info, req)
			if err != nil {
				return err
			}
			left = append(left, unit{id: CustomID(c.ID, r, st.Attempts), key: key, req: req})
		}
		return nil
	})
	return left, err
}

func jsonResponse(r llm.Response) ([]byte, error) { return json.Marshal(r) }
