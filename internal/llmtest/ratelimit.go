package llmtest

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// RateLimit is a request budget the server enforces, as providers do: over
// it, a request is answered 429 with Retry-After (and retry-after-ms for
// OpenAI) saying when a request will be accepted again, and every chat
// answer carries the provider's rate-limit headers: OpenAI's
// x-ratelimit-{limit,remaining,reset}-requests (resets like "6m0s", "20ms"),
// Anthropic's anthropic-ratelimit-requests-{limit,remaining,reset} (RFC 3339).
type RateLimit struct {
	Requests int           // accepted per Window
	Window   time.Duration // one minute when 0
	// Fixed counts in fixed windows from the server's start (the budget comes
	// back whole at each window's end); otherwise a sliding window: a request
	// is accepted when fewer than Requests were accepted in the Window before.
	Fixed bool
}

// WithRateLimit makes the server enforce rl on chat requests that pass its
// other checks (key, model, shape). [Server.RateCounts] reports what it
// counted.
func WithRateLimit(rl RateLimit) Option {
	return func(c *config) {
		if rl.Window <= 0 {
			rl.Window = time.Minute
		}
		c.rateLimit = &rl
	}
}

// SecondCount is what the rate limit counted in one second of the server's
// life: requests accepted, and requests refused with a 429.
type SecondCount struct {
	Second   int // since the server started
	Accepted int
	Refused  int
}

// limiter enforces a RateLimit and counts per second.
type limiter struct {
	rl    RateLimit
	start time.Time

	mu       sync.Mutex
	accepted []time.Time // sliding: accept times within the window, oldest first
	winStart time.Time   // fixed: the current window's start
	winCount int
	counts   []SecondCount
}

func newLimiter(rl RateLimit, start time.Time) *limiter {
	return &limiter{rl: rl, start: start, winStart: start}
}

// take decides a request arriving at now: whether it is accepted, how many
// requests are left after it, and when the budget next grows (retry: when a
// refused request would be accepted; reset: when the budget is whole again).
func (l *limiter) take(now time.Time) (ok bool, remaining int, retry, reset time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, w := l.rl.Requests, l.rl.Window
	if l.rl.Fixed {
		for !now.Before(l.winStart.Add(w)) {
			l.winStart = l.winStart.Add(w)
			l.winCount = 0
		}
		ok = l.winCount < n
		if ok {
			l.winCount++
		}
		end := l.winStart.Add(w).Sub(now)
		remaining, retry, reset = n-l.winCount, end, end
	} else {
		i := 0
		for i < len(l.accepted) && !now.Before(l.accepted[i].Add(w)) {
			i++
		}
		l.accepted = l.accepted[i:]
		ok = len(l.accepted) < n
		if ok {
			l.accepted = append(l.accepted, now)
		}
		remaining = n - len(l.accepted)
		if len(l.accepted) > 0 {
			retry = l.accepted[0].Add(w).Sub(now)
			reset = l.accepted[len(l.accepted)-1].Add(w).Sub(now)
		}
		if remaining > 0 {
			retry = 0
		}
	}
	sec := int(now.Sub(l.start) / time.Second)
	for len(l.counts) <= sec {
		l.counts = append(l.counts, SecondCount{Second: len(l.counts)})
	}
	if ok {
		l.counts[sec].Accepted++
	} else {
		l.counts[sec].Refused++
	}
	return ok, remaining, retry, reset
}

func (l *limiter) snapshot() []SecondCount {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]SecondCount(nil), l.counts...)
}

// RateCounts returns, for each second since the server started up to the
// last request counted, the requests its rate limit accepted and refused; nil
// without [WithRateLimit].
func (s *Server) RateCounts() []SecondCount {
	if s.limiter == nil {
		return nil
	}
	return s.limiter.snapshot()
}

// rateHeaders are the provider's rate-limit headers for a request budget.
func rateHeaders(provider string, limit, remaining int, reset time.Duration, now time.Time) http.Header {
	reset = reset.Round(time.Millisecond)
	if provider == Anthropic {
		return http.Header{
			"Anthropic-Ratelimit-Requests-Limit":     {strconv.Itoa(limit)},
			"Anthropic-Ratelimit-Requests-Remaining": {strconv.Itoa(remaining)},
			"Anthropic-Ratelimit-Requests-Reset":     {now.Add(reset).UTC().Format(time.RFC3339)},
		}
	}
	return http.Header{
		"X-Ratelimit-Limit-Requests":     {strconv.Itoa(limit)},
		"X-Ratelimit-Remaining-Requests": {strconv.Itoa(remaining)},
		"X-Ratelimit-Reset-Requests":     {reset.String()},
	}
}

// rateLimited is the provider's 429 for a spent request budget.
func rateLimited(d dialect, limit int, retry time.Duration) *apiError {
	e := d.statusError(429, "")
	if d.name() == OpenAI {
		e.message = fmt.Sprintf("Rate limit reached for requests per min (RPM): Limit %d, Used %d, Requested 1. Please try again in %s.",
			limit, limit, retry.Round(time.Millisecond))
	}
	e.retryAfter = max(retry, time.Millisecond)
	return e
}

// Fault is a reply given to a share P of requests, for [Faults].
type Fault struct {
	P     float64
	Reply Reply
}

// Faults answers a share of requests with each fault, and the others as h
// does: one draw per request picks the first fault whose cumulative share it
// falls under. Which requests is pseudo-random but reproducible: it depends
// on seed, the request's provider, model and prompt, and how many times that
// same request was seen before, not on the order of arrival. So a concurrent
// run faults the same requests every time, and a retried request gets a
// fresh draw.
func Faults(seed int64, h Handler, faults ...Fault) Handler {
	var mu sync.Mutex
	seen := make(map[uint64]uint64)
	return func(r Request) Reply {
		k := fnv.New64a()
		k.Write([]byte(r.Provider))
		k.Write([]byte{0})
		k.Write([]byte(r.Model))
		k.Write([]byte{0})
		k.Write([]byte(r.Prompt()))
		key := k.Sum64()
		mu.Lock()
		occurrence := seen[key]
		seen[key]++
		mu.Unlock()

		var buf [24]byte
		binary.LittleEndian.PutUint64(buf[0:], uint64(seed))
		binary.LittleEndian.PutUint64(buf[8:], key)
		binary.LittleEndian.PutUint64(buf[16:], occurrence)
		d := fnv.New64a()
		d.Write(buf[:])
		u := float64(mix(d.Sum64())>>11) / (1 << 53)
		acc := 0.0
		for _, f := range faults {
			acc += f.P
			if u < acc {
				return f.Reply
			}
		}
		return h(r)
	}
}

// mix is splitmix64's finaliser: it spreads FNV's poorly mixed high bits.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
