package llm

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits are a model's budgets per minute; 0 means no limit.
type Limits struct {
	RPM int // requests per minute
	TPM int // tokens per minute (estimated before the call from the prompt's length)
}

type limited struct {
	next   Model
	req    *rate.Limiter
	tok    *rate.Limiter
	mu     sync.Mutex
	paused time.Time // after a 429, every caller waits until then
	strike int       // consecutive 429s, for the pause's growth
}

// WithLimits spaces calls to stay within the provider's per-minute budgets, and pauses every
// caller of this model when the provider answers 429, for its Retry-After or a growing step.
func WithLimits(next Model, l Limits) Model {
	m := &limited{next: next}
	if l.RPM > 0 {
		m.req = rate.NewLimiter(rate.Limit(float64(l.RPM)/60), max(1, l.RPM/60))
	}
	if l.TPM > 0 {
		m.tok = rate.NewLimiter(rate.Limit(float64(l.TPM)/60), l.TPM)
	}
	return m
}

func (m *limited) Info() Info { return m.next.Info() }

func (m *limited) Complete(ctx context.Context, req Request) (Response, error) {
	start := time.Now()
	if err := m.wait(ctx, req); err != nil {
		return Response{Waited: time.Since(start)}, err
	}
	waited := time.Since(start)
	resp, err := m.next.Complete(ctx, req)
	resp.Waited += waited
	var ae *APIError
	m.mu.Lock()
	if errors.As(err, &ae) && ae.Status == 429 {
		m.strike++
		pause := ae.RetryAfter
		if pause <= 0 {
			pause = time.Duration(min(m.strike, 6)) * time.Second
		}
		if until := time.Now().Add(pause); until.After(m.paused) {
			m.paused = until
		}
	} else if err == nil {
		m.strike = 0
	}
	m.mu.Unlock()
	return resp, err
}

func (m *limited) wait(ctx context.Context, req Request) error {
	m.mu.Lock()
	until := m.paused
	m.mu.Unlock()
	if d := time.Until(until); d > 0 {
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
	if m.req != nil {
		if err := m.req.Wait(ctx); err != nil {
			return err
		}
	}
	if m.tok != nil {
		n := min(estimateTokens(req), m.tok.Burst())
		if err := m.tok.WaitN(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// estimateTokens guesses a call's tokens before it is made: about four characters a token for
// the prompt, plus the answer's budget.
func estimateTokens(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
		for _, tc := range m.ToolCalls {
			n += len(tc.Arguments)
		}
	}
	out := req.MaxTokens
	if out <= 0 {
		out = 512
	}
	return n/4 + out
}
