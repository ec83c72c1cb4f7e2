package llmtest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
)

// createBatches makes n batches of one request each on s, by its batch API, and returns their
// ids as created; OpenAI's carry metadata {"n": i}.
func createBatches(t *testing.T, s *Server, n int) []string {
	t.Helper()
	var ids []string
	for i := 0; i < n; i++ {
		var id string
		if s.dialect.name() == OpenAI {
			c := openaiClient(s)
			f, err := c.Files.New(context.Background(), openai.FileNewParams{Purpose: openai.FilePurposeBatch,
				File: strings.NewReader(`{"custom_id":"c","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"hi"}]}}`)})
			if err != nil {
				t.Fatal(err)
			}
			b, err := c.Batches.New(context.Background(), openai.BatchNewParams{InputFileID: f.ID, Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions,
				CompletionWindow: openai.BatchNewParamsCompletionWindow24h, Metadata: map[string]string{"n": fmt.Sprint(i)}})
			if err != nil {
				t.Fatal(err)
			}
			id = b.ID
		} else {
			ac := anthropicClient(s)
			b, err := ac.Messages.Batches.New(context.Background(), anthropic.MessageBatchNewParams{
				Requests: []anthropic.MessageBatchNewParamsRequest{{CustomID: "c", Params: anthropic.MessageBatchNewParamsRequestParams{
					Model: "m", MaxTokens: 8, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}}}}})
			if err != nil {
				t.Fatal(err)
			}
			id = b.ID
		}
		ids = append(ids, id)
	}
	return ids
}

// TestBatchList: both fakes list their batches newest first, paged as the providers' SDKs page
// them (OpenAI: after and limit; Anthropic: after_id, before_id and limit), OpenAI's with the
// metadata they were created with; Created hears each batch before its create is answered.
func TestBatchList(t *testing.T) {
	for _, provider := range []string{OpenAI, Anthropic} {
		t.Run(provider, func(t *testing.T) {
			var heard []string
			opts := []Option{WithBatches(BatchOptions{Created: func(id string) { heard = append(heard, id) }})}
			s := NewOpenAI(nil, opts...)
			if provider == Anthropic {
				s = NewAnthropic(nil, opts...)
			}
			defer s.Close()
			ids := createBatches(t, s, 5)
			if d := cmp.Diff(ids, heard); d != "" {
				t.Errorf("Created heard (-made +heard):\n%s", d)
			}
			newest := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}
			var got []string
			if provider == OpenAI {
				oc := openaiClient(s)
				it := oc.Batches.ListAutoPaging(context.Background(), openai.BatchListParams{Limit: openai.Int(2)})
				for it.Next() {
					b := it.Current()
					if want := fmt.Sprint(len(ids) - 1 - len(got)); b.Metadata["n"] != want {
						t.Errorf("batch %s: metadata %v, want n=%s", b.ID, b.Metadata, want)
					}
					got = append(got, b.ID)
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
			} else {
				ac := anthropicClient(s)
				it := ac.Messages.Batches.ListAutoPaging(context.Background(), anthropic.MessageBatchListParams{Limit: anthropic.Int(2)})
				for it.Next() {
					got = append(got, it.Current().ID)
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
				page, err := ac.Messages.Batches.List(context.Background(), anthropic.MessageBatchListParams{BeforeID: anthropic.String(ids[1]), Limit: anthropic.Int(2)})
				if err != nil {
					t.Fatal(err)
				}
				var before []string
				for _, b := range page.Data {
					before = append(before, b.ID)
				}
				if d := cmp.Diff([]string{ids[3], ids[2]}, before); d != "" || !page.HasMore || page.FirstID != ids[3] || page.LastID != ids[2] {
					t.Errorf("the page before %s (-want +got):\n%s has_more %v, first %s, last %s", ids[1], d, page.HasMore, page.FirstID, page.LastID)
				}
			}
			if d := cmp.Diff(newest, got); d != "" {
				t.Errorf("listed (-want +got):\n%s", d)
			}
			path := "/v1/batches?limit=101"
			if provider == Anthropic {
				path = "/v1/messages/batches?limit=1001"
			}
			req, _ := http.NewRequest("GET", s.URL+path, nil)
			req.Header.Set("Authorization", "Bearer k")
			req.Header.Set("x-api-key", "k")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("GET %s: HTTP %d, want 400", path, resp.StatusCode)
			}
		})
	}
}
