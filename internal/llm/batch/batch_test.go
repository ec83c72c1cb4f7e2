package batch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
			refs, err := newClient().Submit(ctx, items(2000), batch.Hooks{OnRef: func(r batch.Ref) error { stored = append(stored, r); return nil }})
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
			refs, err = newClient().Submit(ctx, retry, batch.Hooks{})
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
	refs, err := c.Submit(context.Background(), items(100), batch.Hooks{})
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
	if _, err := c.Submit(context.Background(), big, batch.Hooks{}); err == nil || !strings.Contains(err.Error(), "over the batch limit") {
		t.Errorf("a request over the limit: %v", err)
	}
}

// TestFind: a process killed after the provider created a chunk's batch and before it stored
// the Ref (OnRef fails) finds that batch from the chunk it recorded: by the run and nonce in
// OpenAI's metadata, and on Anthropic by request count and time, confirmed by the custom ids
// once it ended; a batch of another run with as many requests, and one the caller skips
// (stored already) with the same custom ids, are not it; a chunk never created is not found.
func TestFind(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			var made []string
			opts := []llmtest.Option{llmtest.WithBatches(llmtest.BatchOptions{Polls: 2, Created: func(id string) { made = append(made, id) }})}
			srv := llmtest.NewOpenAI(llmtest.Fixed("ok"), opts...)
			if provider == "anthropic" {
				srv = llmtest.NewAnthropic(llmtest.Fixed("ok"), opts...)
			}
			defer srv.Close()
			c, err := batch.New(provider+":m", batch.Options{BaseURL: srv.BaseURL(), Key: "k", Caps: llm.DefaultCaps(), Limits: batch.Limits{Requests: 3, Bytes: 1 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			all := items(9)
			other := make([]batch.Item, 3)
			for i := range other {
				other[i] = batch.Item{ID: fmt.Sprintf("x%d", i), Req: all[i].Req}
			}
			if _, err := c.Submit(ctx, other, batch.Hooks{Run: "r0"}); err != nil {
				t.Fatal(err)
			}
			known, err := c.Submit(ctx, all[3:6], batch.Hooks{Run: "r1"})
			if err != nil {
				t.Fatal(err)
			}
			var chunks []batch.Chunk
			crash := errors.New("killed")
			_, err = c.Submit(ctx, all, batch.Hooks{Run: "r1",
				OnChunk: func(ch batch.Chunk) error { chunks = append(chunks, ch); return nil },
				OnRef: func(r batch.Ref) error {
					if len(chunks) == 2 {
						return crash
					}
					return nil
				}})
			if !errors.Is(err, crash) || len(chunks) != 2 || len(made) != 4 {
				t.Fatalf("Submit: %v after %d chunks, %d batches made: want the crash after 2 chunks, 4 batches", err, len(chunks), len(made))
			}
			o := batch.FindOptions{Poll: time.Millisecond, Skip: func(id string) (bool, error) { return id == known[0].ID, nil }}
			ref, ok, err := c.Find(ctx, "r1", chunks[1], o)
			want := batch.Ref{Provider: provider, ID: made[3], IDs: []string{"u0003", "u0004", "u0005"}, Nonce: chunks[1].Nonce}
			if err != nil || !ok {
				t.Fatalf("Find: %v, %v", ok, err)
			}
			if d := cmp.Diff(want, ref); d != "" {
				t.Errorf("Find (-want +got):\n%s", d)
			}
			never := batch.Chunk{Nonce: "n-never", IDs: []string{"u0006", "u0007", "u0008"}, At: time.Now()}
			if _, ok, err := c.Find(ctx, "r1", never, o); ok || err != nil {
				t.Errorf("a chunk never created: found %v, %v", ok, err)
			}
			if n := srv.BatchesCreated(); n != 4 {
				t.Errorf("%d batches created, want 4 (Find creates none)", n)
			}
		})
	}
}
