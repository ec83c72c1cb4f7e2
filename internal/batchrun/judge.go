package batchrun

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/judge"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llm/batch"
	"github.com/vulnbench/vulnbench/internal/store"
)

// JudgeStore is what the judge's batch phase needs of the store: the batches it made for the
// response cache, and the cache.
type JudgeStore interface {
	PutCacheBatch(ctx context.Context, b store.CacheBatch) error
	SetCacheBatchState(ctx context.Context, provider, host, id, state string) error
	CollectCacheBatch(ctx context.Context, provider, host, id, state string) error
	PendingCacheBatches(ctx context.Context, provider, host string) ([]store.CacheBatch, error)
	llm.CacheStore
}

// JudgeInput is the batch phase of a judge's calls (score --judge-batch).
type JudgeInput struct {
	Store JudgeStore
	// Online is the judge as it calls online (judge.Open): its model names the requests' cache
	// keys and its table prices the answers (at batch prices).
	Online  *judge.Judge
	BaseURL string // the judge's --base-url; "": PROVIDER_BASE_URL, else the provider's API
	// Score scores with g as the scoring will. It is called once, before anything is sent, with
	// g's judge recording every request it is asked and calling no model (replies unread, the
	// calibration never refusing) and no fix checker.
	Score   func(ctx context.Context, g *grade.Grader) error
	Poll    time.Duration // between polls of a batch in flight (0: 30 s)
	OnPlan  func(JudgePlan)
	OnState func(id string, st batch.State) // each batch's state when it changes
}

// JudgePlan is what the batch phase found to do, said before it polls.
type JudgePlan struct {
	Requests  int // the distinct judge requests of the scoring
	Cached    int // of them, answered in the response cache: not sent again
	Held      int // in a batch made before and not collected (a killed score's): polled, not submitted
	Submitted int
}

// Judge makes the judge's calls of a scoring through the provider's batch API: Score collects
// every request without calling a model; those the response cache does not answer are
// submitted in batches, unless a stored batch not yet collected holds them (each batch stored
// in the store, keyed by the requests' cache keys, as it is created); every batch holding one
// is polled to its end and its answers put in the response cache, in the transaction that
// marks it collected. The judge returned answers each request from these results, costed at
// batch prices, or else from the response cache, and never calls the model online: a request
// the batch refused or that expired is its error, which the next scoring submits again.
func Judge(ctx context.Context, in JudgeInput) (*judge.Judge, error) {
	info, prices := in.Online.Model().Info(), in.Online.Prices()
	rec := &recorder{info: info, reqs: map[string]llm.Request{}}
	if err := collectRequests(ctx, in, rec); err != nil {
		return nil, err
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range rec.reqs {
			if !yield(k) {
				return
			}
		}
	})
	plan := JudgePlan{Requests: len(keys)}
	var items []batch.Item
	for _, k := range keys {
		_, ok, err := in.Store.GetResponse(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("judge batch: %w", err)
		}
		if ok {
			plan.Cached++
			continue
		}
		items = append(items, batch.Item{ID: k, Req: rec.reqs[k]})
	}
	answers := NewAnswers(info, "", nil)
	answers.els = llm.WithCache(unanswered{info}, in.Store, llm.CacheOptions{})
	if len(items) == 0 {
		if in.OnPlan != nil {
			in.OnPlan(plan)
		}
		return judge.New(answers, prices.AtBatch())
	}
	client, err := newClient(info, in.BaseURL, prices)
	if err != nil {
		return nil, fmt.Errorf("judge batch: %w", err)
	}
	results, err := phase(ctx, phaseInput{client: client, ledger: cacheLedger{st: in.Store, info: info}, items: items, poll: in.Poll,
		onSubmit: func(submitted, held int) {
			plan.Submitted, plan.Held = submitted, held
			if in.OnPlan != nil {
				in.OnPlan(plan)
			}
		},
		onState: changes(in.OnState)})
	if err != nil {
		return nil, fmt.Errorf("judge batch: %w", err)
	}
	for _, it := range items {
		if r, ok := results[it.ID]; ok {
			if r.Err != nil {
				r.Err = fmt.Errorf("%w (the next score submits it again)", r.Err)
			}
			answers.byKey[it.ID] = r
		}
	}
	return judge.New(answers, prices.AtBatch())
}

// collectRequests has in.Score grade with a judge over rec, gated on the calibration set as
// score's judge is (so that the calibration's requests are collected too) but never refused.
func collectRequests(ctx context.Context, in JudgeInput, rec *recorder) error {
	j, err := judge.New(rec, in.Online.Prices())
	if err != nil {
		return err
	}
	set, err := judge.LoadSet()
	if err != nil {
		return err
	}
	g, err := grade.NewGrader()
	if err != nil {
		return err
	}
	g.Judge = &judge.Gated{Of: j, Set: set, Force: true}
	if err := in.Score(ctx, g); err != nil {
		return fmt.Errorf("judge batch: collecting the judge's requests: %w", err)
	}
	return nil
}

// recorder is a model that answers nothing and keeps every request it is asked, by cache key
// (the judge's, in the default namespace).
type recorder struct {
	info llm.Info
	mu   sync.Mutex
	reqs map[string]llm.Request
}

func (r *recorder) Info() llm.Info { return r.info }

func (r *recorder) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	key, err := llm.CacheKey("", r.info, req)
	if err != nil {
		return llm.Response{}, err
	}
	r.mu.Lock()
	r.reqs[key] = req
	r.mu.Unlock()
	return llm.Response{}, nil
}

// unanswered is the model behind the response cache for a request no batch answered.
type unanswered struct{ info llm.Info }

func (u unanswered) Info() llm.Info { return u.info }

func (unanswered) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, fmt.Errorf("this judge request was in no batch and is not in the response cache (did the scoring change since its requests were collected?)")
}

// cacheLedger keeps the judge's batches in the store's cache_batches, keyed by the requests'
// cache keys (their custom ids): only batches not collected hold their requests, so a request
// whose collected batch did not answer it (refused, expired) is submitted again.
type cacheLedger struct {
	st   JudgeStore
	info llm.Info // the judge's model: its provider and host hold the batches
}

func (l cacheLedger) pending(ctx context.Context) ([]batch.Ref, error) {
	bs, err := l.st.PendingCacheBatches(ctx, l.info.Provider, l.info.BaseHost)
	refs := make([]batch.Ref, len(bs))
	for i, b := range bs {
		refs[i] = batch.Ref{Provider: b.Provider, ID: b.ID, IDs: b.Keys}
	}
	return refs, err
}

// intend records nothing: a score killed between the provider creating a batch and its id
// being stored leaves no trace, and the next score submits that batch's requests again (a
// run's intents live with the run, in batch_intents).
func (cacheLedger) intend(context.Context, batch.Chunk) error { return nil }

func (l cacheLedger) put(ctx context.Context, r batch.Ref) error {
	return l.st.PutCacheBatch(ctx, store.CacheBatch{Provider: r.Provider, BaseHost: l.info.BaseHost, ID: r.ID, Keys: r.IDs, State: "submitted"})
}

func (l cacheLedger) polled(ctx context.Context, r batch.Ref, st batch.State) error {
	return l.st.SetCacheBatchState(ctx, r.Provider, l.info.BaseHost, r.ID, st.Status)
}

// collected puts the batch's answers in the response cache and marks it collected with them.
func (l cacheLedger) collected(ctx context.Context, r batch.Ref, st batch.State, rs []batch.Result) error {
	for _, res := range rs {
		if res.Err != nil {
			continue
		}
		b, err := json.Marshal(res.Resp)
		if err != nil {
			return fmt.Errorf("batch %s, request %s: %w", r.ID, res.ID, err)
		}
		if err := l.st.PutResponse(ctx, res.ID, l.info.Provider, l.info.Model, b); err != nil {
			return err
		}
	}
	return l.st.CollectCacheBatch(ctx, r.Provider, l.info.BaseHost, r.ID, st.Status)
}

// changes calls fn with a batch's state only when it differs from the last one it heard.
func changes(fn func(string, batch.State)) func(string, batch.State) {
	if fn == nil {
		return nil
	}
	last := map[string]batch.State{}
	return func(id string, st batch.State) {
		if old, ok := last[id]; ok && old == st {
			return
		}
		last[id] = st
		fn(id, st)
	}
}
