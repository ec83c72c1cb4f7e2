package llm

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestAdaptiveWindow drives the limiter's window step by step: a 429 halves it once per epoch,
// down to 1; successes widen it by one each, back to the ceiling.
func TestAdaptiveWindow(t *testing.T) {
	rateLimited := &APIError{Provider: "openai", Status: 429}
	type step struct {
		Op       string // "take N": take up to N slots; "ok", "429": release one call of the given epoch
		Epoch    int
		Took     int     // for take: how many slots were free
		Window   float64 // after the step; -1 for +Inf
		Inflight int
	}
	steps := []step{
		{Op: "take 8", Took: 8, Window: -1, Inflight: 8},
		{Op: "429", Epoch: 0, Window: 4, Inflight: 7},
		{Op: "429", Epoch: 0, Window: 4, Inflight: 6}, // same epoch: the same burst, not halved again
		{Op: "take 1", Took: 0, Window: 4, Inflight: 6},
		{Op: "ok", Window: 5, Inflight: 5},
		{Op: "ok", Window: 6, Inflight: 4},
		{Op: "take 8", Took: 2, Window: 6, Inflight: 6},
		{Op: "429", Epoch: 1, Window: 3, Inflight: 5},
		{Op: "429", Epoch: 2, Window: 1, Inflight: 4},
		{Op: "429", Epoch: 3, Window: 1, Inflight: 3}, // never below 1
		{Op: "ok", Window: 2, Inflight: 2},
		{Op: "ok", Window: 3, Inflight: 1},
		{Op: "take 8", Took: 2, Window: 3, Inflight: 3},
		{Op: "ok", Window: 4, Inflight: 2},
		{Op: "ok", Window: 5, Inflight: 1},
		{Op: "ok", Window: 6, Inflight: 0},
		{Op: "take 8", Took: 6, Window: 6, Inflight: 6},
		{Op: "ok", Window: 7, Inflight: 5},
		{Op: "ok", Window: -1, Inflight: 4}, // back at the ceiling (the peak, 8): no limit
		{Op: "take 8", Took: 8, Window: -1, Inflight: 12},
	}
	m := newLimited(nil, Limits{})
	m.probing = false // the first call's answer came back (TestFirstCallGoesAlone)
	for i, s := range steps {
		took := 0
		switch s.Op {
		case "ok":
			m.release(m.epoch, nil, nil)
		case "429":
			m.release(s.Epoch, nil, rateLimited)
		default:
			n, err := strconv.Atoi(strings.TrimPrefix(s.Op, "take "))
			if err != nil {
				t.Fatal(err)
			}
			for range n {
				if _, ok := m.tryAcquire(); ok {
					took++
				}
			}
		}
		w := m.window
		if math.IsInf(w, 1) {
			w = -1
		}
		got := step{Op: s.Op, Epoch: s.Epoch, Took: took, Window: w, Inflight: m.inflight}
		if d := cmp.Diff(s, got); d != "" {
			t.Fatalf("step %d (%s): (-want +got):\n%s", i, s.Op, d)
		}
	}
}

// TestFirstCallGoesAlone: without a configured RPM, no second call starts before the first one's
// answer (whose headers may set the pace); after it, the window is open. With a configured RPM
// calls start at once, paced one at a time.
func TestFirstCallGoesAlone(t *testing.T) {
	m := newLimited(nil, Limits{})
	first, ok := m.tryAcquire()
	if !ok {
		t.Fatal("the first call did not start")
	}
	if _, ok := m.tryAcquire(); ok {
		t.Fatal("a second call started before the first one's answer")
	}
	m.release(first, &RateLimit{At: time.Now(), LimitRequests: 600, RemainingRequests: 599, LimitTokens: -1, RemainingTokens: -1}, nil)
	for i := range 8 {
		if _, ok := m.tryAcquire(); !ok {
			t.Fatalf("call %d did not start after the first answer", i+2)
		}
	}
	if m.req == nil || m.req.Burst() != 1 || math.Abs(float64(m.req.Limit())-10) > 1e-9 {
		t.Errorf("learned pacing %v, want 10 a second, one at a time", m.req)
	}
	c := newLimited(nil, Limits{RPM: 600})
	for i := range 3 {
		if _, ok := c.tryAcquire(); !ok {
			t.Fatalf("configured RPM: call %d did not start", i+1)
		}
	}
	if c.req.Burst() != 1 {
		t.Errorf("configured pacing burst %d, want 1", c.req.Burst())
	}
}

// TestPacedCallsWaitForTheGate: calls already waiting for their turn when a budget runs out
// (remaining 0 with Retry-After) are not sent before the gate opens.
func TestPacedCallsWaitForTheGate(t *testing.T) {
	m := newLimited(nil, Limits{RPM: 6000}) // a turn every 10 ms
	var mu sync.Mutex
	var sent []time.Time
	m.next = modelFunc(func(ctx context.Context, req Request) (Response, error) {
		mu.Lock()
		sent = append(sent, time.Now())
		mu.Unlock()
		return Response{}, nil
	})
	// The budget is spent: nothing before 300 ms from now.
	start := time.Now()
	e, _ := m.tryAcquire()
	m.release(e, &RateLimit{At: start, LimitRequests: -1, RemainingRequests: 0, LimitTokens: -1, RemainingTokens: -1},
		&APIError{Status: 429, RetryAfter: 300 * time.Millisecond, HasRetryAfter: true})
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.pace(context.Background(), Request{}); err != nil {
				t.Error(err)
				return
			}
			if _, err := m.next.Complete(context.Background(), Request{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, at := range sent {
		if el := at.Sub(start); el < 290*time.Millisecond {
			t.Errorf("call %d sent %v after the budget ran out, before its 300 ms Retry-After", i, el)
		}
	}
	if len(sent) != 5 {
		t.Errorf("%d calls sent, want 5", len(sent))
	}
}

// TestGateHoldsNewCallsUntilReset checks that a spent budget (remaining 0) holds new calls until
// its reset, and that a requests-per-minute limit is learned from the headers.
func TestGateHoldsNewCallsUntilReset(t *testing.T) {
	m := newLimited(nil, Limits{})
	now := time.Now()
	// 4 a minute, none left, whole again in 600 ms: one more in 150 ms.
	m.release(0, &RateLimit{At: now, LimitRequests: 4, RemainingRequests: 0, ResetRequests: 600 * time.Millisecond, RemainingTokens: -1, LimitTokens: -1}, nil)
	if _, ok := m.tryAcquire(); ok {
		t.Fatal("a call started while the provider said no request was left")
	}
	if m.req == nil || math.Abs(float64(m.req.Limit())-4.0/60) > 1e-9 {
		t.Errorf("learned pacing %v, want 4 requests a minute", m.req)
	}
	m.req = nil // not to wait on it below
	start := time.Now()
	if _, err := m.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 100*time.Millisecond {
		t.Errorf("started after %v, want after the 150 ms reset", el)
	}
	// A 429 that says the budget is spent holds new calls for its Retry-After; one that does
	// not (a fault, or no headers) holds nobody.
	for _, tt := range []struct {
		rl   *RateLimit
		held bool
	}{
		{&RateLimit{At: time.Now(), LimitRequests: -1, RemainingRequests: 0, LimitTokens: -1, RemainingTokens: -1}, true},
		{&RateLimit{At: time.Now(), LimitRequests: -1, RemainingRequests: 7, LimitTokens: -1, RemainingTokens: -1}, false},
		{nil, false},
	} {
		g := newLimited(nil, Limits{})
		e, _ := g.tryAcquire()
		g.release(e, tt.rl, &APIError{Status: 429, RetryAfter: time.Hour, HasRetryAfter: true})
		if _, ok := g.tryAcquire(); ok == tt.held {
			t.Errorf("429 with %+v: held %v, want %v", tt.rl, !ok, tt.held)
		}
	}
	// A configured limit is not replaced by a learned one.
	c := newLimited(nil, Limits{RPM: 60})
	c.release(0, &RateLimit{At: now, LimitRequests: 6000, RemainingRequests: 5, RemainingTokens: -1, LimitTokens: -1}, nil)
	if c.req.Limit() != 1 {
		t.Errorf("configured 60/min became %v a second", c.req.Limit())
	}
}

func TestParseRateLimitHeaders(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		h    http.Header
		want *RateLimit
	}{
		{"none", http.Header{}, nil},
		{"openai", http.Header{
			"X-Ratelimit-Limit-Requests":     {"600"},
			"X-Ratelimit-Remaining-Requests": {"0"},
			"X-Ratelimit-Reset-Requests":     {"6m0s"},
			"X-Ratelimit-Limit-Tokens":       {"150000"},
			"X-Ratelimit-Remaining-Tokens":   {"149000"},
			"X-Ratelimit-Reset-Tokens":       {"20ms"},
		}, &RateLimit{At: now, LimitRequests: 600, RemainingRequests: 0, ResetRequests: 6 * time.Minute,
			LimitTokens: 150000, RemainingTokens: 149000, ResetTokens: 20 * time.Millisecond}},
		{"openai, requests only, reset 1s", http.Header{"X-Ratelimit-Remaining-Requests": {"3"}, "X-Ratelimit-Reset-Requests": {"1s"}},
			&RateLimit{At: now, LimitRequests: -1, RemainingRequests: 3, ResetRequests: time.Second, LimitTokens: -1, RemainingTokens: -1}},
		{"anthropic", http.Header{
			"Anthropic-Ratelimit-Requests-Limit":     {"50"},
			"Anthropic-Ratelimit-Requests-Remaining": {"0"},
			"Anthropic-Ratelimit-Requests-Reset":     {"2026-05-01T12:00:03Z"},
			"Anthropic-Ratelimit-Tokens-Limit":       {"40000"},
			"Anthropic-Ratelimit-Tokens-Remaining":   {"39000"},
			"Anthropic-Ratelimit-Tokens-Reset":       {"2026-05-01T12:00:00.5Z"},
		}, &RateLimit{At: now, LimitRequests: 50, RemainingRequests: 0, ResetRequests: 3 * time.Second,
			LimitTokens: 40000, RemainingTokens: 39000, ResetTokens: 500 * time.Millisecond}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, parseRateLimit(tt.h, now)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	type out struct {
		D  time.Duration
		OK bool
	}
	tests := []struct {
		h    http.Header
		want out
	}{
		{http.Header{}, out{0, false}},
		{http.Header{"Retry-After": {"0"}}, out{0, true}},
		{http.Header{"Retry-After": {"2"}}, out{2 * time.Second, true}},
		{http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"0"}}, out{0, true}},
		{http.Header{"Retry-After-Ms": {"250"}}, out{250 * time.Millisecond, true}},
		{http.Header{"Retry-After": {"Fri, 01 May 2026 12:00:05 GMT"}}, out{5 * time.Second, true}},
		{http.Header{"Retry-After": {"soon"}}, out{0, false}},
	}
	for _, tt := range tests {
		d, ok := parseRetryAfter(tt.h, now)
		if diff := cmp.Diff(tt.want, out{d, ok}); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.h, diff)
		}
	}
}

// modelFunc is a Model made of its Complete.
type modelFunc func(ctx context.Context, req Request) (Response, error)

func (f modelFunc) Info() Info { return Info{} }
func (f modelFunc) Complete(ctx context.Context, req Request) (Response, error) {
	return f(ctx, req)
}
