package llmtest

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRateLimitWindows checks the decisions and headers of both windows at chosen instants.
func TestRateLimitWindows(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	type decision struct {
		At           time.Duration // since t0
		OK           bool
		Remaining    int
		Retry, Reset time.Duration
	}
	tests := []struct {
		name   string
		fixed  bool
		want   []decision
		counts []SecondCount
	}{
		{"sliding", false, []decision{
			{At: 0, OK: true, Remaining: 1, Reset: time.Second},
			{At: 400 * time.Millisecond, OK: true, Remaining: 0, Retry: 600 * time.Millisecond, Reset: time.Second},
			// Full: refused until the first leaves the window at 1 s.
			{At: 500 * time.Millisecond, OK: false, Remaining: 0, Retry: 500 * time.Millisecond, Reset: 900 * time.Millisecond},
			{At: 1000 * time.Millisecond, OK: true, Remaining: 0, Retry: 400 * time.Millisecond, Reset: time.Second},
			{At: 1300 * time.Millisecond, OK: false, Remaining: 0, Retry: 100 * time.Millisecond, Reset: 700 * time.Millisecond},
		}, []SecondCount{{0, 2, 1}, {1, 1, 1}}},
		{"fixed", true, []decision{
			{At: 0, OK: true, Remaining: 1, Retry: time.Second, Reset: time.Second},
			{At: 400 * time.Millisecond, OK: true, Remaining: 0, Retry: 600 * time.Millisecond, Reset: 600 * time.Millisecond},
			{At: 900 * time.Millisecond, OK: false, Remaining: 0, Retry: 100 * time.Millisecond, Reset: 100 * time.Millisecond},
			// A new window: the whole budget is back.
			{At: 1000 * time.Millisecond, OK: true, Remaining: 1, Retry: time.Second, Reset: time.Second},
			{At: 1300 * time.Millisecond, OK: true, Remaining: 0, Retry: 700 * time.Millisecond, Reset: 700 * time.Millisecond},
		}, []SecondCount{{0, 2, 1}, {1, 2, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLimiter(RateLimit{Requests: 2, Window: time.Second, Fixed: tt.fixed}, t0)
			var got []decision
			for _, w := range tt.want {
				ok, rem, retry, reset := l.take(t0.Add(w.At))
				got = append(got, decision{At: w.At, OK: ok, Remaining: rem, Retry: retry, Reset: reset})
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.counts, l.snapshot()); d != "" {
				t.Errorf("counts (-want +got):\n%s", d)
			}
		})
	}
}

// TestRateLimitOverTheWire checks the 429, Retry-After and rate-limit headers as each SDK sees them.
func TestRateLimitOverTheWire(t *testing.T) {
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			s := p.start(Fixed("ok"), WithRateLimit(RateLimit{Requests: 2}))
			defer s.Close()
			for i := range 2 {
				if _, err := p.ask(testCtx(t), s, 0, fmt.Sprint("q", i)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := p.ask(testCtx(t), s, 0, "q2")
			status, _, h, ok := p.apiError(err)
			if !ok || status != 429 {
				t.Fatalf("third request: %v, want a 429", err)
			}
			ra, _ := strconv.Atoi(h.Get("Retry-After"))
			if ra < 59 || ra > 60 {
				t.Errorf("Retry-After %q, want about a minute", h.Get("Retry-After"))
			}
			limit, remaining := "X-Ratelimit-Limit-Requests", "X-Ratelimit-Remaining-Requests"
			if p.name == Anthropic {
				limit, remaining = "Anthropic-Ratelimit-Requests-Limit", "Anthropic-Ratelimit-Requests-Remaining"
				if _, err := time.Parse(time.RFC3339, h.Get("Anthropic-Ratelimit-Requests-Reset")); err != nil {
					t.Errorf("reset %q: %v", h.Get("Anthropic-Ratelimit-Requests-Reset"), err)
				}
			} else if d, err := time.ParseDuration(h.Get("X-Ratelimit-Reset-Requests")); err != nil || d <= 0 || d > time.Minute {
				t.Errorf("reset %q: %v", h.Get("X-Ratelimit-Reset-Requests"), err)
			}
			if h.Get(limit) != "2" || h.Get(remaining) != "0" {
				t.Errorf("headers %v", h)
			}
			var acc, ref int
			for _, c := range s.RateCounts() {
				acc, ref = acc+c.Accepted, ref+c.Refused
			}
			if acc != 2 || ref != 1 {
				t.Errorf("counted %d accepted, %d refused; want 2, 1", acc, ref)
			}
		})
	}
}

func TestFaults(t *testing.T) {
	tooMany, broken := Reply{Status: 429, RetryNow: true}, Reply{Status: 500}
	// faulted sends the same 1000 requests in each round and returns, per round, the status each got.
	faulted := func(h Handler, rounds int) [][]int {
		out := make([][]int, rounds)
		for round := range rounds {
			for i := range 1000 {
				r := Request{Provider: OpenAI, Model: "m", Messages: []Message{{Role: "user", Content: fmt.Sprint("case ", i)}}}
				out[round] = append(out[round], h(r).Status)
			}
		}
		return out
	}
	share := func(statuses []int, status int) int {
		n := 0
		for _, s := range statuses {
			if s == status {
				n++
			}
		}
		return n
	}
	tests := []struct {
		name       string
		p429, p500 float64
		min, max   int // of each fault per round of 1000
	}{
		{"none", 0, 0, 0, 0},
		{"5% and 5%", 0.05, 0.05, 30, 70},
		{"all 429", 1, 0, 1000, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := func() Handler {
				return Faults(42, Fixed("ok"), Fault{P: tt.p429, Reply: tooMany}, Fault{P: tt.p500, Reply: broken})
			}
			first := faulted(h(), 2)
			for round, f := range first {
				for _, st := range []struct {
					status int
					p      float64
				}{{429, tt.p429}, {500, tt.p500}} {
					if n := share(f, st.status); st.p > 0 && st.p < 1 && (n < tt.min || n > tt.max) || st.p == 0 && n != 0 {
						t.Errorf("round %d: %d answered %d", round, n, st.status)
					}
				}
			}
			if d := cmp.Diff(first, faulted(h(), 2)); d != "" {
				t.Errorf("same seed, different faults (-first +again):\n%s", d)
			}
		})
	}
	seed1 := faulted(Faults(1, Fixed("ok"), Fault{P: 0.5, Reply: tooMany}), 2)
	if cmp.Equal(seed1[0], seed1[1]) {
		t.Error("retried requests fault exactly as the first time")
	}
	if seed2 := faulted(Faults(2, Fixed("ok"), Fault{P: 0.5, Reply: tooMany}), 1); cmp.Equal(seed1[0], seed2[0]) {
		t.Error("seeds 1 and 2 fault the same requests")
	}
}

// TestScriptedErrorBody checks RetryNow and the error body overrides on the wire.
func TestScriptedErrorBody(t *testing.T) {
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			s := p.start(Sequence(Reply{Status: 429, RetryNow: true}))
			defer s.Close()
			_, err := p.ask(testCtx(t), s, 0, "a")
			_, _, h, _ := p.apiError(err)
			want := http.Header{"Retry-After": {"0"}}
			if p.name == OpenAI {
				want.Set("Retry-After-Ms", "0")
			}
			got := http.Header{"Retry-After": h.Values("Retry-After")}
			if v := h.Get("Retry-After-Ms"); v != "" {
				got.Set("Retry-After-Ms", v)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Retry-After (-want +got):\n%s", d)
			}
		})
	}
	s := NewOpenAI(func(Request) Reply {
		return Reply{Status: 400, ErrorCode: "context_length_exceeded", ErrorParam: "messages", ErrorMessage: "too long"}
	})
	defer s.Close()
	req, _ := http.NewRequest(http.MethodPost, s.BaseURL()+"/chat/completions",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"x"}]}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	want := `{"error":{"message":"too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`
	if resp.StatusCode != 400 || string(body) != want {
		t.Errorf("got %d %s, want 400 %s", resp.StatusCode, body, want)
	}
}
