package batchrun_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/batchrun"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llm/batch"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

type requester struct{}

func (requester) Request(u subject.Unit) (llm.Request, error) {
	return llm.Request{Messages: []llm.Message{{Role: "user", Content: "case " + u.Case.ID}}, MaxTokens: 8}, nil
}

var errKilled = errors.New("killed")

// crashing is a store whose process dies at one point of the batch phase: after the intent
// is stored and before the create is sent (intent), or after the provider created the batch
// and before its id is stored (put).
type crashing struct {
	*store.Store
	at string
}

func (c crashing) PutBatchIntent(ctx context.Context, in store.BatchIntent) error {
	if err := c.Store.PutBatchIntent(ctx, in); err != nil || c.at != "intent" {
		return err
	}
	return errKilled
}

func (c crashing) PutBatch(ctx context.Context, b store.Batch) error {
	if c.at == "put" {
		return errKilled
	}
	return c.Store.PutBatch(ctx, b)
}

// TestPrepareResolvesIntents: the batch phase dies in the window of an intent (its create not
// yet sent, or its batch created and its id not stored), and a second Prepare resolves it: the
// batch found on the provider is stored and polled, one never created is submitted once the
// intent is Settle old; each of the 6 units' custom ids is submitted exactly once, in 2
// batches of 3, every unit is answered, and no intent is left.
func TestPrepareResolvesIntents(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		for _, at := range []string{"intent", "put"} {
			t.Run(provider+"/"+at, func(t *testing.T) {
				ctx := context.Background()
				opts := []llmtest.Option{llmtest.WithBatches(llmtest.BatchOptions{Polls: 1})}
				srv := llmtest.NewOpenAI(llmtest.Fixed("ok"), opts...)
				if provider == "anthropic" {
					srv = llmtest.NewAnthropic(llmtest.Fixed("ok"), opts...)
				}
				defer srv.Close()
				st, err := store.Open(ctx, filepath.Join(t.TempDir(), "v.db"))
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				if err := st.CreateRun(ctx, &store.Run{ID: "r1", CreatedAt: time.Now(), State: store.StateRunning, SuitePath: "s.jsonl",
					SuiteHash: "h", Subject: "llm", Repeats: 1, Units: 6, Manifest: json.RawMessage(`{}`), Queue: store.QueueLocal}); err != nil {
					t.Fatal(err)
				}
				client, err := batch.New(provider+":m", batch.Options{BaseURL: srv.BaseURL(), Key: "k", Caps: llm.DefaultCaps(), Limits: batch.Limits{Requests: 3, Bytes: 1 << 20}})
				if err != nil {
					t.Fatal(err)
				}
				var cases []*suite.Case
				for i := 0; i < 6; i++ {
					cases = append(cases, &suite.Case{ID: fmt.Sprintf("c%d", i)})
				}
				info := llm.Info{Provider: provider, Model: "m"}
				answers := batchrun.NewAnswers(info, "", nil)
				input := func(s batchrun.Store) batchrun.Input {
					return batchrun.Input{Store: s, RunID: "r1", Repeats: 1, Subject: requester{}, Client: client, Answers: answers,
						Poll: time.Millisecond, Settle: 50 * time.Millisecond,
						Cases: func(fn func(*suite.Case) error) error {
							for _, c := range cases {
								if err := fn(c); err != nil {
									return err
								}
							}
							return nil
						}}
				}
				if err := batchrun.Prepare(ctx, input(crashing{st, at})); !errors.Is(err, errKilled) {
					t.Fatalf("the first batch phase: %v, want it killed", err)
				}
				if err := batchrun.Prepare(ctx, input(st)); err != nil {
					t.Fatalf("the resumed batch phase: %v", err)
				}
				want := map[string]int{}
				for _, c := range cases {
					want[batchrun.CustomID(c.ID, 0, 0)] = 1
					resp, err := answers.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: "case " + c.ID}}, MaxTokens: 8})
					if err != nil || resp.Text != "ok" {
						t.Errorf("%s: %q, %v", c.ID, resp.Text, err)
					}
				}
				if d := cmp.Diff(want, srv.BatchSubmissions()); d != "" {
					t.Errorf("submissions (-want +got):\n%s", d)
				}
				if n := srv.BatchesCreated(); n != 2 {
					t.Errorf("%d batches created, want 2", n)
				}
				if bs, err := st.Batches(ctx, "r1"); err != nil || len(bs) != 2 {
					t.Errorf("%d batches stored, %v: want 2", len(bs), err)
				}
				if left, err := st.BatchIntents(ctx, "r1"); err != nil || len(left) != 0 {
					t.Errorf("%d intents left, %v: want none", len(left), err)
				}
			})
		}
	}
}
