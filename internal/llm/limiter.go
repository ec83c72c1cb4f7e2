package llm

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits are a model's budgets; 0 means no limit.
type Limits struct {
	RPM int // requests per minute; 0: learned from the provider's rate-limit headers, if it sends them
	TPM int // tokens per minute (estimated before the call from the prompt's length)
}

// limited is the rate-limit middleware of one model. It keeps an adaptive window of calls in
// flight (AIMD: a 429 halves it, down to 1; each success widens it by one, back up to the most
// calls seen in flight at once, the run's concurrency in practice), paces calls to the
// per-minute budgets, configured or learned from the provider's x-ratelimit-limit-requests, and
// holds new calls while the provider says a budget is spent (remaining 0) until one more call
// should pass (see oneMore), or until the Retry-After of a 429 that says the budget is spent.
// Any other 429 pauses nobody else: the call that got it retries after its own Retry-After, in
// WithRetry.
//
// Without a configured requests-per-minute limit, the first call goes alone: the others wait
// for its answer, whose rate-limit headers (if the provider sends them) pace them from the
// start, instead of a whole concurrency's burst spending the budget before any header is read.
// Pacing lets one call through at a time (a token bucket of one), and a call that was paced
// while a budget ran out waits for the gate again before it is sent.
type limited struct {
	next Model
	l    Limits
	tok  *rate.Limiter

	mu       sync.Mutex
	req      *rate.Limiter // configured or learned; nil: no pacing
	learned  int64         // the learned requests-per-minute limit, 0 when none
	window   float64       // calls allowed in flight; +Inf until the first 429
	probing  bool          // no call has come back yet (and no RPM is configured): one in flight
	inflight int
	peak     int           // the most calls seen in flight at once: the window's ceiling
	epoch    int           // bumped by each decrease: 429s of calls started before it do not count again
	gate     time.Time     // no call starts before this: a budget is spent until its reset
	wake     chan struct{} // closed when a slot frees or the window grows
}

// WithLimits wraps next with the adaptive concurrency window, the per-minute pacing and the
// provider's rate-limit headers (see limited).
func WithLimits(next Model, l Limits) Model { return newLimited(next, l) }

func newLimited(next Model, l Limits) *limited {
	m := &limited{next: next, l: l, window: math.Inf(1), probing: l.RPM == 0, wake: make(chan struct{})}
	if l.RPM > 0 {
		// Burst 1: a burst at the start would count against the provider's window with
		// the steady rate after it, and be refused at its end.
		m.req = rate.NewLimiter(rate.Limit(float64(l.RPM)/60), 1)
	}
	if l.TPM > 0 {
		m.tok = rate.NewLimiter(rate.Limit(float64(l.TPM)/60), l.TPM)
	}
	return m
}

func (m *limited) Info() Info { return m.next.Info() }

func (m *limited) Complete(ctx context.Context, req Request) (Response, error) {
	start := time.Now()
	epoch, err := m.acquire(ctx)
	if err != nil {
		return Response{Waited: time.Since(start)}, err
	}
	if err := m.pace(ctx, req); err != nil {
		m.release(epoch, nil, err)
		return Response{Waited: time.Since(start)}, err
	}
	waited := time.Since(start)
	resp, err := m.next.Complete(ctx, req)
	resp.Waited += waited
	rl := resp.RateLimit
	var ae *APIError
	if errors.As(err, &ae) && ae.RateLimit != nil {
		rl = ae.RateLimit
	}
	m.release(epoch, rl, err)
	return resp, err
}

// acquire waits for a slot in the window and for the gate; it returns the epoch the call
// started in.
func (m *limited) acquire(ctx context.Context) (int, error) {
	for {
		m.mu.Lock()
		epoch, wait, ok := m.take()
		wake := m.wake
		m.mu.Unlock()
		if ok {
			return epoch, nil
		}
		var t *time.Timer
		var timer <-chan time.Time
		if wait > 0 {
			t = time.NewTimer(wait)
			timer = t.C
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
}

// tryAcquire is acquire without the wait, for tests.
func (m *limited) tryAcquire() (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	epoch, _, ok := m.take()
	return epoch, ok
}

// take takes a slot if the gate is open and one is free, and returns the epoch; refused, wait is
// how long the gate stays shut (0 when only the window is full). m.mu is held.
func (m *limited) take() (epoch int, wait time.Duration, ok bool) {
	if wait = time.Until(m.gate); wait > 0 || float64(m.inflight) >= m.window || (m.probing && m.inflight > 0) {
		return 0, max(wait, 0), false
	}
	m.inflight++
	m.peak = max(m.peak, m.inflight)
	return m.epoch, 0, true
}

// pace waits for the per-minute budgets. A call paced while the gate closed (a budget ran out
// while it waited its turn) waits for the gate, and for its turn again.
func (m *limited) pace(ctx context.Context, req Request) error {
	for {
		m.mu.Lock()
		rl := m.req
		m.mu.Unlock()
		if rl == nil {
			break
		}
		if err := rl.Wait(ctx); err != nil {
			return err
		}
		m.mu.Lock()
		wait := time.Until(m.gate)
		m.mu.Unlock()
		if wait <= 0 {
			break
		}
		if err := sleep(ctx, wait); err != nil {
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

// release frees the call's slot and adapts: a 429 halves the window (once per epoch), a success
// widens it by one; rate-limit headers with a spent budget close the gate until their reset, and
// a requests-per-minute limit is learned when none was configured.
func (m *limited) release(epoch int, rl *RateLimit, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inflight--
	m.probing = false
	var ae *APIError
	switch {
	case errors.As(err, &ae) && ae.Status == 429 && !ae.quota():
		if epoch == m.epoch {
			m.window = max(1, math.Floor(min(m.window, float64(m.inflight+1))/2))
			m.epoch++
		}
	case err == nil && !math.IsInf(m.window, 1):
		m.window++
		if m.window >= float64(m.peak) { // back at the most calls seen in flight: no limit
			m.window = math.Inf(1)
		}
	}
	if rl != nil {
		m.gate = later(m.gate, rl.At.Add(oneMore(rl.LimitRequests, rl.ResetRequests, rl.RemainingRequests)))
		m.gate = later(m.gate, rl.At.Add(oneMore(rl.LimitTokens, rl.ResetTokens, rl.RemainingTokens)))
		spent := rl.RemainingRequests == 0 || rl.RemainingTokens == 0
		if spent && ae != nil && ae.Status == 429 && ae.HasRetryAfter {
			// The provider says the budget is spent and when it is back: no call before.
			m.gate = later(m.gate, rl.At.Add(ae.RetryAfter))
		}
		if m.l.RPM == 0 && rl.LimitRequests > 0 && rl.LimitRequests != m.learned {
			m.learned = rl.LimitRequests
			r := rate.Limit(float64(rl.LimitRequests) / 60)
			if m.req == nil {
				// Burst 1: the calls already made count against the provider's window.
				m.req = rate.NewLimiter(r, 1)
			} else {
				m.req.SetLimit(r)
			}
		}
	}
	close(m.wake)
	m.wake = make(chan struct{})
}

// oneMore is how long after a response with remaining 0 in a budget of limit, whole again after
// reset, one more call should be accepted: reset/limit for a budget that comes back steadily
// (OpenAI's "reset" is the time until the whole budget is back), reset itself when the limit is
// unknown. 0 when the budget is not spent. A budget that comes back all at once (a fixed window)
// answers the early call 429 with its Retry-After, which closes the gate until then.
func oneMore(limit int64, reset time.Duration, remaining int64) time.Duration {
	if remaining != 0 {
		return 0
	}
	if limit > 0 {
		return reset / time.Duration(limit)
	}
	return reset
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
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
