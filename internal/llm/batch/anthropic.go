package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
)

// anthropicBatch is Anthropic's message_batch object, as far as it is read.
type anthropicBatch struct {
	ID               string    `json:"id"`
	ProcessingStatus string    `json:"processing_status"`
	CreatedAt        time.Time `json:"created_at"`
	ResultsURL       *string   `json:"results_url"`
	RequestCounts    struct {
		Processing, Succeeded, Errored, Canceled, Expired int
	} `json:"request_counts"`
}

func (b anthropicBatch) state() State {
	n := b.RequestCounts
	return State{Ended: b.ProcessingStatus == "ended", Status: b.ProcessingStatus,
		Total: n.Processing + n.Succeeded + n.Errored + n.Canceled + n.Expired, Succeeded: n.Succeeded, Failed: n.Errored + n.Canceled + n.Expired}
}

func (c *Client) anthropicSubmit(ctx context.Context, lines []line, intent func() error) (Ref, error) {
	var body bytes.Buffer
	ref := Ref{Provider: "anthropic"}
	body.WriteString(`{"requests":[`)
	for i, l := range lines {
		if i > 0 {
			body.WriteByte(',')
		}
		body.Write(l.data)
		ref.IDs = append(ref.IDs, l.id)
	}
	body.WriteString("]}")
	if err := intent(); err != nil {
		return ref, err
	}
	var b anthropicBatch
	if _, err := c.do(ctx, "POST", c.base+"/v1/messages/batches", "application/json", &body, &b); err != nil {
		return ref, err
	}
	ref.ID = b.ID
	return ref, nil
}

// anthropicFind lists the batches newest first back to ch.At-Skew; each with as many requests
// as ch, not skipped, is polled to its end and is the one when its results' custom ids are ch's.
func (c *Client) anthropicFind(ctx context.Context, ch Chunk, o FindOptions) (Ref, bool, error) {
	since := ch.At.Add(-Skew)
	var candidates []string
	after := ""
	for done := false; !done; {
		q := url.Values{"limit": {"1000"}}
		if after != "" {
			q.Set("after_id", after)
		}
		var page struct {
			Data    []anthropicBatch `json:"data"`
			HasMore bool             `json:"has_more"`
			LastID  string           `json:"last_id"`
		}
		if _, err := c.do(ctx, "GET", c.base+"/v1/messages/batches?"+q.Encode(), "", nil, &page); err != nil {
			return Ref{}, false, err
		}
		for _, b := range page.Data {
			if b.CreatedAt.Before(since) {
				done = true
				break
			}
			if b.state().Total != len(ch.IDs) {
				continue
			}
			skip, err := skipped(o, b.ID)
			if err != nil {
				return Ref{}, false, err
			}
			if !skip {
				candidates = append(candidates, b.ID)
			}
		}
		done = done || !page.HasMore || page.LastID == ""
		after = page.LastID
	}
	want := make(map[string]bool, len(ch.IDs))
	for _, id := range ch.IDs {
		want[id] = true
	}
	for _, id := range candidates {
		ok, err := c.anthropicHolds(ctx, id, want, o.pollEvery())
		if err != nil || ok {
			return Ref{ID: id}, ok, err
		}
	}
	return Ref{}, false, nil
}

// anthropicHolds polls batch id to its end and tells whether its results are want's custom ids.
func (c *Client) anthropicHolds(ctx context.Context, id string, want map[string]bool, poll time.Duration) (bool, error) {
	for {
		b, err := c.anthropicBatch(ctx, id)
		if err != nil {
			return false, err
		}
		if b.state().Ended {
			break
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(poll):
		}
	}
	got, err := c.anthropicResults(ctx, Ref{ID: id})
	if err != nil {
		return false, err
	}
	if len(got) != len(want) {
		return false, nil
	}
	for cid := range got {
		if !want[cid] {
			return false, nil
		}
	}
	return true, nil
}

func (c *Client) anthropicBatch(ctx context.Context, id string) (anthropicBatch, error) {
	var b anthropicBatch
	_, err := c.do(ctx, "GET", c.base+"/v1/messages/batches/"+id, "", nil, &b)
	return b, err
}

func (c *Client) anthropicResults(ctx context.Context, ref Ref) (map[string]Result, error) {
	b, err := c.anthropicBatch(ctx, ref.ID)
	if err != nil {
		return nil, err
	}
	if b.ProcessingStatus != "ended" || b.ResultsURL == nil {
		return nil, fmt.Errorf("anthropic batch %s is %s: its results are not ready", ref.ID, b.ProcessingStatus)
	}
	body, err := c.do(ctx, "GET", *b.ResultsURL, "", nil, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]Result{}
	err = eachLine(body, func(l []byte) error {
		var v struct {
			CustomID string `json:"custom_id"`
			Result   struct {
				Type    string          `json:"type"`
				Message json.RawMessage `json:"message"`
				Error   json.RawMessage `json:"error"`
			} `json:"result"`
		}
		if err := json.Unmarshal(l, &v); err != nil || v.CustomID == "" {
			return fmt.Errorf("unreadable result line %.80q", l)
		}
		r := Result{ID: v.CustomID}
		switch v.Result.Type {
		case "succeeded":
			r.Resp, r.Err = llm.ReadMessage(v.Result.Message)
		case "errored":
			r.Err = &llm.APIError{Provider: "anthropic", Message: errorMessage(v.Result.Error)}
		case "expired":
			r.Err = ErrExpired
		case "canceled":
			r.Err = ErrCanceled
		default:
			r.Err = fmt.Errorf("result type %q", v.Result.Type)
		}
		out[r.ID] = r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("anthropic batch %s: %w", ref.ID, err)
	}
	return out, nil
}
