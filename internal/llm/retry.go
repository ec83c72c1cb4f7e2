package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how often and how long to try again.
type RetryPolicy struct {
	MaxRetries int           // attempts after the first
	Base       time.Duration // first backoff; doubles each retry
	Max        time.Duration // longest backoff, and longest Retry-After honoured
	// Sleep waits d or until ctx ends; nil means a timer. Tests may count waits through it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetry is eight retries from 100 ms doubling up to 60 s (full jitter: a wait is anywhere
// in [0, step]; at most 25.5 s in all before the case gets an error verdict). A short first step
// matters: a worker waiting out a 5xx judges nothing, and a lone 5xx usually passes at once; the
// doubling steps cover a longer outage. Rate limits are not left to it: Retry-After and the
// limiter decide those waits.
func DefaultRetry() RetryPolicy {
	return RetryPolicy{MaxRetries: 8, Base: 100 * time.Millisecond, Max: time.Minute}
}

type retrying struct {
	next Model
	p    RetryPolicy
}

// WithRetry retries retryable faults with exponential backoff and full jitter, honouring the
// provider's Retry-After exactly (0 is "now"); other faults (400, 401, 403, 404, a filtered
// answer) return at once. A backoff delays only the call that faulted.
func WithRetry(next Model, p RetryPolicy) Model {
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return &retrying{next: next, p: p}
}

func (r *retrying) Info() Info { return r.next.Info() }

func (r *retrying) Complete(ctx context.Context, req Request) (Response, error) {
	return retry(ctx, r, func() (Response, error) { return r.next.Complete(ctx, req) },
		func(resp *Response) (*int, *int, *time.Duration) { return &resp.Calls, &resp.Retries, &resp.Waited })
}

// retry is the loop of Complete and CompleteRaw: call, and again after a backoff while its
// fault is retryable and retries are left; each response carries the attempts, retries and
// waits so far, in the fields counts points at.
func retry[R any](ctx context.Context, r *retrying, call func() (R, error), counts func(*R) (calls, retries *int, waited *time.Duration)) (R, error) {
	var calls, retries int
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		resp, err := call()
		c, rt, w := counts(&resp)
		calls += *c
		waited += *w
		*c, *rt, *w = calls, retries, waited
		if err == nil || !retryable(err) || ctx.Err() != nil {
			return resp, err
		}
		if attempt >= r.p.MaxRetries {
			return resp, fmt.Errorf("gave up after %d attempts: %w", attempt+1, err)
		}
		after, has := retryAfter(err)
		d := r.backoff(attempt, after, has)
		if err := r.p.Sleep(ctx, d); err != nil {
			return resp, err
		}
		waited += d
		retries++
	}
}

// backoff is the provider's Retry-After when it gave one, 0 included (capped at Max), else full
// jitter over an exponential step: a random wait in [0, step].
func (r *retrying) backoff(attempt int, after time.Duration, has bool) time.Duration {
	if has {
		return min(max(after, 0), r.p.Max)
	}
	step := r.p.Base << attempt
	if step <= 0 || step > r.p.Max {
		step = r.p.Max
	}
	return time.Duration(rand.Int64N(int64(step) + 1))
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

type timeout struct {
	next Model
	d    time.Duration
}

// WithTimeout gives each call at most d; a call that runs out is a retryable fault.
func WithTimeout(next Model, d time.Duration) Model {
	if d <= 0 {
		return next
	}
	return &timeout{next: next, d: d}
}

func (t *timeout) Info() Info { return t.next.Info() }

func (t *timeout) Complete(ctx context.Context, req Request) (Response, error) {
	cctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	resp, err := t.next.Complete(cctx, req)
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		err = &APIError{Provider: t.next.Info().Provider, Message: fmt.Sprintf("no answer within %s (raise --call-timeout)", t.d), Cause: err}
	}
	return resp, err
}
