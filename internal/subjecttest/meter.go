package subjecttest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// meter is the model a unit sees in a run, as the runner meters it (internal/runner/meter.go),
// without the run's shared parts (the --max-cost ledger, the --rpm pacer): before each call it
// checks the unit's limits; after it, it records the request and the response (or the error) in
// the trace and adds the usage and cost to the unit's.
type meter struct {
	next   llm.Model
	prices llm.Prices
	limits subject.Limits
	rec    trace.Recorder

	mu    sync.Mutex
	usage verdict.Usage
	steps int
}

func (m *meter) Info() llm.Info { return m.next.Info() }

// Usage is what the unit's calls consumed so far.
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
	if err := m.check(); err != nil {
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
	var cost *float64
	if c, ok := m.prices.Cost(spec, resp.Usage); ok && (err == nil || resp.Usage.InputTokens+resp.Usage.OutputTokens > 0) {
		cost = verdict.Float(c)
	}
	tu := trace.Usage{InputTokens: resp.Usage.InputTokens, CachedInputTokens: resp.Usage.CachedInputTokens,
		CacheWriteTokens: resp.Usage.CacheWriteTokens, OutputTokens: resp.Usage.OutputTokens, ReasoningTokens: resp.Usage.ReasoningTokens}
	if err != nil {
		m.rec.Record(trace.Event{Kind: trace.Error, Name: spec, Content: err.Error(), Usage: tu, CostUSD: cost, LatencyMS: time.Since(start).Milliseconds()})
	} else {
		m.rec.Record(trace.Event{Kind: trace.ModelResponse, Name: spec, Content: resp.Text, Usage: tu, CostUSD: cost, LatencyMS: resp.Latency.Milliseconds()})
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := &m.usage
	u.Calls += resp.Calls
	u.Retries += resp.Retries
	u.WaitMS += resp.Waited.Milliseconds()
	u.InputTokens += resp.Usage.InputTokens
	u.CachedInputTokens += resp.Usage.CachedInputTokens
	u.OutputTokens += resp.Usage.OutputTokens
	u.CacheWriteTokens += resp.Usage.CacheWriteTokens
	u.ReasoningTokens += resp.Usage.ReasoningTokens
	if cost != nil {
		if u.CostUSD == nil {
			u.CostUSD = verdict.Float(0)
		}
		*u.CostUSD += *cost
	}
	return resp, err
}
