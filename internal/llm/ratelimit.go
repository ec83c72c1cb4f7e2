package llm

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RateLimit is what a provider's rate-limit headers said about the budgets left. A negative
// count is one the provider did not send.
type RateLimit struct {
	At                time.Time // when the answer arrived: the resets count from here
	LimitRequests     int64
	RemainingRequests int64
	ResetRequests     time.Duration // until the request budget is back
	LimitTokens       int64
	RemainingTokens   int64
	ResetTokens       time.Duration
}

// parseRateLimit reads OpenAI's x-ratelimit-{limit,remaining,reset}-{requests,tokens} (resets as
// Go-like durations such as "1s", "6m0s", "20ms") and Anthropic's
// anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset} (resets as RFC 3339 times). nil
// when there are none.
func parseRateLimit(h http.Header, now time.Time) *RateLimit {
	rl := &RateLimit{At: now, LimitRequests: -1, RemainingRequests: -1, LimitTokens: -1, RemainingTokens: -1}
	seen := false
	count := func(dst *int64, keys ...string) {
		for _, k := range keys {
			if v := h.Get(k); v != "" {
				if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
					*dst, seen = n, true
					return
				}
			}
		}
	}
	reset := func(dst *time.Duration, oaKey, antKey string) {
		if v := h.Get(oaKey); v != "" {
			if d, ok := parseResetDuration(v); ok {
				*dst, seen = d, true
				return
			}
		}
		if v := h.Get(antKey); v != "" {
			if t, err := time.Parse(time.RFC3339, strings.TrimSpace(v)); err == nil {
				*dst, seen = max(0, t.Sub(now)), true
			}
		}
	}
	count(&rl.LimitRequests, "x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit")
	count(&rl.RemainingRequests, "x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining")
	reset(&rl.ResetRequests, "x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset")
	count(&rl.LimitTokens, "x-ratelimit-limit-tokens", "anthropic-ratelimit-tokens-limit")
	count(&rl.RemainingTokens, "x-ratelimit-remaining-tokens", "anthropic-ratelimit-tokens-remaining")
	reset(&rl.ResetTokens, "x-ratelimit-reset-tokens", "anthropic-ratelimit-tokens-reset")
	if !seen {
		return nil
	}
	return rl
}

// parseResetDuration reads OpenAI's reset durations: "1s", "6m0s", "20ms", "1h2m3.5s", or a bare
// number of seconds.
func parseResetDuration(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, true
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	return 0, false
}

// parseRetryAfter reads retry-after-ms (OpenAI) or Retry-After in seconds or as an HTTP date.
// ok is false when the provider sent neither; 0 with ok means "retry now".
func parseRetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}
