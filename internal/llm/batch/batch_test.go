package batch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llm/batch"
	"github.com/vulnbench/vulnbench/internal/llmtest"
)

// handler answers "answer ID" to the request whose prompt is "case ID", refuses every 50th
// with a 400, and counts what it answered.
func handler(answered *atomic.Int64) llmtest.Handler {
	return func(r llmtest.Request) llmtest.Reply {
		id := strings.TrimPrefix(r.Prompt(), "case ")
		var n int
		fmt.Sscanf(id, "u%d", &n)
		if n%50 == 49 {
			return llmtest.Reply{Status: 400, ErrorMessage: "refused " + id}
		}
		answered.Add(1)
		return llmtest.Reply{Text: "answer " + id, InputTokens: 100, OutputTokens: 10}
	}
}

func items(n int) []batch.Item {
	out := make([]batch.Item, n)
	for i := range out {
		id := fmt.Sprintf("u%04d", i)
		out[i] = batch.Item{ID: id, Req: llm.Request{Messages: []llm.Message{{Role: "user", Content: "case " + id}}, MaxTokens: 64}}
	}
	return out
}

// TestBatches: 2,000 requests through each provider's batch API, chunked at 700 a batch; a
// share refused (per-request errors) and a share expired; the batches polled to their end and
// read; a second client (a restarted process) polls the stored refs and reads the same results
// without creating a batch; the expired requests are sent again alone. Every request is
// submitted once, and once more only when it expired.
func TestBatches(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			var answered atomic.Int64
			var expire atomic.Bool
			expire.Store(true)
			opts := []llmtest.Option{llmtest.WithBatches(llmtest.BatchOptions{Polls: 2, Expire: func(id string) bool {
				return expire.Load() && strings.HasSuffix(id, "7")
			}})}
			var srv *llmtest.Server
			if provider == "openai" {
				srv = llmtest.NewOpenAI(handler(&answered), opts...)
			} else {
				srv = llmtest.NewAnthropic(handler(&answered), opts...)
			}
			defer srv.Close()
			newClient := func() *batch.Client {
				c, err := batch.New(provider+":m", batch.Options{BaseURL: srv.BaseURL(), Key: "k", Caps: llm.DefaultCaps(), Limits: batch.Limits{Requests: 700, Bytes: 1 << 30}})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			ctx := context.Background()
			var stored []batch.Ref
			refs, err := newClient().Submit(ctx, items(2000), func(r batch.Ref) error { stored = append(stored, r); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(refs) != 3 || len(stored) != 3 || len(refs[0].IDs) != 700 || len(refs[2].IDs) != 600 {
				t.Fatalf("%d batches (%d stored): want 3 of 700, 700, 600", len(refs), len(stored))
			}
			read := func(c *batch.Client, refs []batch.Ref) map[string]batch.Result {
				t.Helper()
				out := map[string]batch.Result{}
				for _, ref := range refs {
					ended := false
					for i := 0; i < 10 && !ended; i++ {
						st, err := c.Poll(ctx, ref)
						if err != nil {
							t.Fatal(err)
						}
						ended = st.Ended
					}
					if !ended {
						t.Fatalf("batch %s never ended", ref.ID)
					}
					rs, err := c.Results(ctx, ref)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range rs {
						out[r.ID] = r
					}
				}
				return out
			}
			first := read(newClient(), stored)
			counts := map[string]int{}
			var retry []batch.Item
			for i, it := range items(2000) {
				r := first[it.ID]
				var ae *llm.APIError
				switch {
				case strings.HasSuffix(it.ID, "7"):
					if !errors.Is(r.Err, batch.ErrExpired) {
						t.Errorf("%s: %v, want expired", it.ID, r.Err)
					}
					counts["expired"]++
					retry = append(retry, it)
				case i%50 == 49:
					if !errors.As(r.Err, &ae) || !strings.Contains(ae.Error(), "refused "+it.ID) {
						t.Errorf("%s: %v, want the provider's refusal", it.ID, r.Err)
					}
					counts["errored"]++
				default:
					if r.Err != nil || r.Resp.Text != "answer "+it.ID || r.Resp.Usage.InputTokens != 100 || r.Resp.Usage.OutputTokens != 10 {
						t.Errorf("%s: %+v, %v", it.ID, r.Resp, r.Err)
					}
					counts["ok"]++
				}
			}
			if counts["ok"]+counts["errored"]+counts["expired"] != 2000 || counts["expired"] != 200 {
				t.Errorf("outcomes %v", counts)
			}
			made := srv.BatchesCreated()
			again := read(newClient(), stored) // a restarted process, from the stored refs
			if srv.BatchesCreated() != made || len(again) != len(first) {
				t.Errorf("re-reading created batches (%d -> %d) or lost results (%d of %d)", made, srv.BatchesCreated(), len(again), len(first))
			}
			expire.Store(false)
			refs, err = newClient().Submit(ctx, retry, nil)
			if err != nil {
				t.Fatal(err)
			}
			for id, r := range read(newClient(), refs) {
				if r.Err != nil || r.Resp.Text != "answer "+id {
					t.Errorf("retried %s: %+v, %v", id, r.Resp, r.Err)
				}
			}
			for id, n := range srv.BatchSubmissions() {
				want := 1
				if strings.HasSuffix(id, "7") {
					want = 2
				}
				if n != want {
					t.Errorf("%s submitted %d times, want %d", id, n, want)
				}
			}
			if got, want := answered.Load(), int64(counts["ok"]+counts["expired"]); got != want {
				t.Errorf("the model answered %d requests, want %d", got, want)
			}
		})
	}
}

// TestChunkByBytes: a byte limit splits the batches before the request limit does.
func TestChunkByBytes(t *testing.T) {
	srv := llmtest.NewOpenAI(nil, llmtest.WithBatches(llmtest.BatchOptions{}))
	defer srv.Close()
	c, err := batch.New("openai:m", batch.Options{BaseURL: srv.BaseURL(), Key: "k", Caps: llm.DefaultCaps(), Limits: batch.Limits{Requests: 1000, Bytes: 4000}})
	if err != nil {
		t.Fatal(err)
	}
	refs, err := c.Submit(context.Background(), items(100), nil)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, r := range refs {
		total += len(r.IDs)
	}
	if len(refs) < 3 || total != 100 {
		t.Errorf("%d batches holding %d requests: want several within 4,000 bytes, 100 in all", len(refs), total)
	}
	big := items(1)
	big[0].Req.Messages[0].Content = strings.Repeat("x", 5000)
	if _, err := c.Submit(context.Background(), big, nil); err == nil || !strings.Contains(err.Error(), "over the batch limit") {
		t.Errorf("a request over the limit: %v", err)
	}
}
