package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// ErrBudget is engine.ErrBudget: a model call refused because the run's --max-cost is reached.
var ErrBudget = engine.ErrBudget

// meter is the model one unit sees, and the one account of its calls: before each call it
// checks the unit's limits and reserves the call's share of the run's budget; after it, it
// prices the call, settles the budget, adds the usage and cost to the unit's and records the
// call in the trace (typed calls and raw ones, an agent CLI's through the gateway, alike).
type meter struct {
	next   llm.Model
	prices llm.Prices
	budget Ledger // nil: no --max-cost
	rate   Pacer  // nil: no shared rate limit
	limits subject.Limits
	rec    trace.Recorder

	mu    sync.Mutex
	usage verdict.Usage
	steps int
	// stop ends a unit's raw calls: after a refusal (a unit limit, the run's budget) or a fault
	// every later call would meet (a fatal provider error, a dead connection), every later raw
	// call is refused with it, unsent: an agent CLI's own retries would only multiply it.
	stop error
}

func newMeter(next llm.Model, prices llm.Prices, budget Ledger, rate Pacer, limits subject.Limits, rec trace.Recorder) *meter {
	return &meter{next: next, prices: prices, budget: budget, rate: rate, limits: limits, rec: rec}
}

// Ledger is a run's --max-cost: Reserve before each model call (an error wrapping ErrBudget
// when the cap is reached), Settle with what it cost after. The local pool's is engine.Budget,
// in memory; River workers share one row of the store.
type Ledger interface {
	Reserve(ctx context.Context) (float64, error)
	Settle(ctx context.Context, reserved float64, cost *float64)
}

// Pacer is a run's shared rate limit: Wait returns when one more call may be sent.
type Pacer interface {
	Wait(ctx context.Context) error
}

// localLedger is the local pool's budget.
type localLedger struct{ b *engine.Budget }

func (l localLedger) Reserve(context.Context) (float64, error) {
	est, ok := l.b.Reserve()
	if !ok {
		return 0, fmt.Errorf("%w ($%.4f of $%.4f spent)", ErrBudget, l.b.Spent(), l.b.Cap)
	}
	return est, nil
}

func (l localLedger) Settle(_ context.Context, reserved float64, cost *float64) {
	l.b.Settle(reserved, cost)
}

func (m *meter) Info() llm.Info { return m.next.Info() }

// Usage returns what the unit's calls consumed so far.
func (m *meter) Usage() verdict.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.usage
	if u.CostUSD != nil {
		u.CostUSD = verdict.Float(*u.CostUSD)
	}
	return u
}

func (m *meter) check() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.limits
	switch {
	case l.Steps > 0 && m.steps >= l.Steps:
		return fmt.Errorf("%w: %d model calls (--max-steps %d)", subject.ErrLimit, m.steps, l.Steps)
	case l.Tokens > 0 && m.usage.InputTokens+m.usage.OutputTokens >= l.Tokens:
		return fmt.Errorf("%w: %d tokens (--unit-max-tokens %d)", subject.ErrLimit, m.usage.InputTokens+m.usage.OutputTokens, l.Tokens)
	case l.CostUSD > 0 && m.usage.CostUSD != nil && *m.usage.CostUSD >= l.CostUSD:
		return fmt.Errorf("%w: $%.4f (--unit-max-cost %g)", subject.ErrLimit, *m.usage.CostUSD, l.CostUSD)
	}
	m.steps++
	return nil
}

func (m *meter) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	reserved, err := m.before(ctx)
	if err != nil {
		return llm.Response{}, err
	}
	spec := m.next.Info().Spec()
	last := ""
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1].Content
	}
	m.rec.Record(trace.Event{Kind: trace.ModelRequest, Name: spec, Content: last})
	start := time.Now()
	resp, err := m.next.Complete(ctx, req)
	cost := m.after(ctx, reserved, spec, callInfo{usage: resp.Usage, cached: resp.Cached, calls: resp.Calls, retries: resp.Retries, waited: resp.Waited}, err)
	m.recordAnswer(spec, resp.Text, nil, resp.Usage, cost, latency(start, resp.Latency, err), resp.Cached, err)
	return resp, err
}

// CompleteRaw is Complete for a raw call (the gateway's): the same limits, step count, shared
// rate, budget, prices and usage, the cost set on the response, and the call in the trace: the
// tool outputs the request sends back (req.Seen), the request, then the answer with the tool
// calls it asks for, or the error. After a refusal or a fault every call would meet, the unit's
// later raw calls are refused unsent (meter.stop).
func (m *meter) CompleteRaw(ctx context.Context, req llm.RawRequest) (llm.RawResponse, error) {
	next, ok := llm.AsRaw(m.next)
	if !ok {
		return llm.RawResponse{}, fmt.Errorf("%w (%T)", llm.ErrNotRaw, m.next)
	}
	spec := m.next.Info().Spec()
	for _, r := range req.Seen.ToolResults {
		m.rec.Record(trace.Event{Kind: trace.ToolResult, CallID: r.CallID, Content: r.Content})
	}
	m.rec.Record(trace.Event{Kind: trace.ModelRequest, Name: spec, Content: req.Seen.Last})
	if err := m.stopped(); err != nil {
		m.rec.Record(trace.Event{Kind: trace.Error, Name: spec, Content: err.Error()})
		return llm.RawResponse{}, err
	}
	start := time.Now()
	reserved, err := m.before(ctx)
	if err != nil {
		m.halt(err)
		m.recordAnswer(spec, "", nil, llm.Usage{}, nil, latency(start, 0, err), false, err)
		return llm.RawResponse{}, err
	}
	resp, err := next.CompleteRaw(ctx, req)
	resp.CostUSD = m.after(ctx, reserved, spec, callInfo{usage: resp.Usage, cached: resp.Cached, calls: resp.Calls, retries: resp.Retries, waited: resp.Waited}, err)
	m.halt(err)
	m.recordAnswer(spec, resp.Answer.Text, resp.Answer.ToolCalls, resp.Usage, resp.CostUSD, latency(start, resp.Latency, err), resp.Cached, err)
	return resp, err
}

// latency is a call's: the provider's answer's, or the time until it failed.
func latency(start time.Time, answered time.Duration, err error) time.Duration {
	if err != nil {
		return time.Since(start)
	}
	return answered
}

// recordAnswer records a call's answer (its text, the tool calls it asks for: a raw call's, as
// a typed call's are the agent loop's to record) with its usage, cost and latency, or its error.
func (m *meter) recordAnswer(spec, text string, calls []llm.ToolCall, u llm.Usage, cost *float64, lat time.Duration, cached bool, err error) {
	tu := trace.Usage{InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens, CacheWriteTokens: u.CacheWriteTokens,
		OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens}
	if err != nil {
		m.rec.Record(trace.Event{Kind: trace.Error, Name: spec, Content: err.Error(), Usage: tu, CostUSD: cost, LatencyMS: lat.Milliseconds()})
		return
	}
	m.rec.Record(trace.Event{Kind: trace.ModelResponse, Name: spec, Content: text, Usage: tu, CostUSD: cost, LatencyMS: lat.Milliseconds(), Cached: cached})
	for _, tc := range calls {
		m.rec.Record(trace.Event{Kind: trace.ToolCall, Name: tc.Name, CallID: tc.ID, Args: tc.Arguments})
	}
}

// stopped is the error that ended the unit's raw calls, or nil.
func (m *meter) stopped() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stop
}

// halt ends the unit's raw calls after err when every later call would meet it: the meter's
// refusal (a limit, the budget), a fatal provider error, or a fault the stack's retries gave up
// on that is no provider's answer; not a provider's refusal of this request, nor the caller
// hanging up.
func (m *meter) halt(err error) {
	var ae *llm.APIError
	if err == nil || errors.Is(err, context.Canceled) || (errors.As(err, &ae) && llm.Classify(err) != llm.Fatal) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stop == nil {
		m.stop = err
	}
}

// before checks the unit's limits (counting the step), waits for the shared rate and reserves
// the call's share of the run's budget.
func (m *meter) before(ctx context.Context) (float64, error) {
	if err := m.check(); err != nil {
		return 0, err
	}
	if m.rate != nil {
		if err := m.rate.Wait(ctx); err != nil {
			return 0, err
		}
	}
	if m.budget == nil {
		return 0, nil
	}
	return m.budget.Reserve(ctx)
}

// callInfo is what a finished call reports to the meter, typed or raw.
type callInfo struct {
	usage   llm.Usage
	cached  bool
	calls   int
	retries int
	waited  time.Duration
}

// after prices the call (0 when cached; unpriced when it failed without usage), settles the
// budget and adds the usage to the unit's; it returns the cost.
func (m *meter) after(ctx context.Context, reserved float64, spec string, c callInfo, err error) *float64 {
	var cost *float64
	switch {
	case c.cached:
		cost = verdict.Float(0)
	case err == nil || c.usage.InputTokens+c.usage.OutputTokens > 0:
		if p, ok := m.prices.Cost(spec, c.usage); ok {
			cost = verdict.Float(p)
		}
	}
	if m.budget != nil {
		m.budget.Settle(context.WithoutCancel(ctx), reserved, cost)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := &m.usage
	u.Calls += c.calls
	u.Retries += c.retries
	u.WaitMS += c.waited.Milliseconds()
	if c.cached {
		u.CacheHits++
	} else {
		u.InputTokens += c.usage.InputTokens
		u.CachedInputTokens += c.usage.CachedInputTokens
		u.OutputTokens += c.usage.OutputTokens
		u.CacheWriteTokens += c.usage.CacheWriteTokens
		u.ReasoningTokens += c.usage.ReasoningTokens
	}
	if cost != nil {
		if u.CostUSD == nil {
			u.CostUSD = verdict.Float(0)
		}
		*u.CostUSD += *cost
	}
	return cost
}
