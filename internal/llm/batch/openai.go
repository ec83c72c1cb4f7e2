package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/url"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
)

const chatEndpoint = "/v1/chat/completions"

func (c *Client) encode(id string, body []byte) ([]byte, error) {
	var v any
	if c.provider == "openai" {
		v = struct {
			CustomID string          `json:"custom_id"`
			Method   string          `json:"method"`
			URL      string          `json:"url"`
			Body     json.RawMessage `json:"body"`
		}{id, "POST", chatEndpoint, body}
	} else {
		v = struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		}{id, body}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("batch: request %s: %w", id, err)
	}
	return b, nil
}

// openaiBatch is OpenAI's batch object, as far as it is read.
type openaiBatch struct {
	ID            string            `json:"id"`
	Status        string            `json:"status"`
	CreatedAt     int64             `json:"created_at"`
	Metadata      map[string]string `json:"metadata"`
	OutputFileID  *string           `json:"output_file_id"`
	ErrorFileID   *string           `json:"error_file_id"`
	RequestCounts struct {
		Total, Completed, Failed int
	} `json:"request_counts"`
}

func (b openaiBatch) state() State {
	ended := false
	switch b.Status {
	case "completed", "failed", "expired", "cancelled":
		ended = true
	}
	return State{Ended: ended, Status: b.Status, Total: b.RequestCounts.Total, Succeeded: b.RequestCounts.Completed, Failed: b.RequestCounts.Failed}
}

func (c *Client) openaiSubmit(ctx context.Context, lines []line, meta map[string]string, intent func() error) (Ref, error) {
	var file bytes.Buffer
	ref := Ref{Provider: "openai"}
	for _, l := range lines {
		file.Write(l.data)
		file.WriteByte('\n')
		ref.IDs = append(ref.IDs, l.id)
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	_ = mw.WriteField("purpose", "batch")
	fw, err := mw.CreateFormFile("file", "vulnbench-batch.jsonl")
	if err != nil {
		return ref, fmt.Errorf("batch: %w", err)
	}
	fw.Write(file.Bytes())
	mw.Close()
	var up struct {
		ID string `json:"id"`
	}
	if _, err := c.do(ctx, "POST", c.base+"/files", mw.FormDataContentType(), &form, &up); err != nil {
		return ref, err
	}
	body, _ := json.Marshal(map[string]any{"input_file_id": up.ID, "endpoint": chatEndpoint, "completion_window": "24h", "metadata": meta})
	if err := intent(); err != nil {
		return ref, err
	}
	var b openaiBatch
	if _, err := c.do(ctx, "POST", c.base+"/batches", "application/json", bytes.NewReader(body), &b); err != nil {
		return ref, err
	}
	ref.ID = b.ID
	return ref, nil
}

func (c *Client) openaiBatch(ctx context.Context, id string) (openaiBatch, error) {
	var b openaiBatch
	_, err := c.do(ctx, "GET", c.base+"/batches/"+id, "", nil, &b)
	return b, err
}

// openaiFind lists the batches newest first back to ch.At-Skew for the one whose metadata
// names run and ch's nonce.
func (c *Client) openaiFind(ctx context.Context, run string, ch Chunk, o FindOptions) (Ref, bool, error) {
	since := ch.At.Add(-Skew).Unix()
	after := ""
	for {
		q := url.Values{"limit": {"100"}}
		if after != "" {
			q.Set("after", after)
		}
		var page struct {
			Data    []openaiBatch `json:"data"`
			HasMore bool          `json:"has_more"`
			LastID  string        `json:"last_id"`
		}
		if _, err := c.do(ctx, "GET", c.base+"/batches?"+q.Encode(), "", nil, &page); err != nil {
			return Ref{}, false, err
		}
		for _, b := range page.Data {
			if b.CreatedAt < since {
				return Ref{}, false, nil
			}
			if b.Metadata[metaRun] == run && b.Metadata[metaChunk] == ch.Nonce {
				if skip, err := skipped(o, b.ID); err != nil || skip {
					return Ref{}, false, err
				}
				return Ref{ID: b.ID}, true, nil
			}
		}
		if !page.HasMore || page.LastID == "" {
			return Ref{}, false, nil
		}
		after = page.LastID
	}
}

func skipped(o FindOptions, id string) (bool, error) {
	if o.Skip == nil {
		return false, nil
	}
	return o.Skip(id)
}

// pollEvery is o's time between polls.
func (o FindOptions) pollEvery() time.Duration {
	if o.Poll <= 0 {
		return 30 * time.Second
	}
	return o.Poll
}

// openaiResults reads the output and error files of an ended batch.
func (c *Client) openaiResults(ctx context.Context, ref Ref) (map[string]Result, error) {
	b, err := c.openaiBatch(ctx, ref.ID)
	if err != nil {
		return nil, err
	}
	if !b.state().Ended {
		return nil, fmt.Errorf("openai batch %s is %s: its results are not ready", ref.ID, b.Status)
	}
	out := map[string]Result{}
	for _, f := range []*string{b.OutputFileID, b.ErrorFileID} {
		if f == nil || *f == "" {
			continue
		}
		body, err := c.do(ctx, "GET", c.base+"/files/"+*f+"/content", "", nil, nil)
		if err != nil {
			return nil, err
		}
		err = eachLine(body, func(l []byte) error {
			r, err := openaiResult(l)
			if err == nil {
				out[r.ID] = r
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("openai batch %s: file %s: %w", ref.ID, *f, err)
		}
	}
	return out, nil
}

// openaiResult reads one line of an output or error file.
func openaiResult(l []byte) (Result, error) {
	var v struct {
		CustomID string `json:"custom_id"`
		Response *struct {
			StatusCode int             `json:"status_code"`
			Body       json.RawMessage `json:"body"`
		} `json:"response"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(l, &v); err != nil || v.CustomID == "" {
		return Result{}, fmt.Errorf("unreadable result line %.80q", l)
	}
	r := Result{ID: v.CustomID}
	switch {
	case v.Error != nil && v.Error.Code == "batch_expired":
		r.Err = ErrExpired
	case v.Error != nil:
		r.Err = &llm.APIError{Provider: "openai", Code: v.Error.Code, Message: v.Error.Message}
	case v.Response == nil:
		r.Err = ErrMissing
	case v.Response.StatusCode/100 != 2:
		r.Err = &llm.APIError{Provider: "openai", Status: v.Response.StatusCode, Message: errorMessage(v.Response.Body)}
	default:
		r.Resp, r.Err = llm.ReadChat(v.Response.Body)
	}
	return r, nil
}
