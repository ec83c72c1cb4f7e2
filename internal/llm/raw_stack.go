package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// The raw side of each layer New stacks: the same behaviour as Complete, on raw requests.

// CompleteRaw implements RawModel: answers are cached by RawCacheKey; only 2xx answers are
// stored, as soon as they arrive.
func (c *Cache) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	next, err := nextRaw(c.next)
	if err != nil {
		return RawResponse{}, err
	}
	info := c.next.Info()
	key, err := RawCacheKey(c.opts.Namespace, info, req)
	if err != nil {
		return RawResponse{}, err
	}
	if c.opts.Refresh {
		// --no-cache: asked again; the answer below replaces the stored one.
	} else if b, ok, err := c.store.GetResponse(ctx, key); err != nil {
		return RawResponse{}, fmt.Errorf("response cache: %w", err)
	} else if ok {
		var r RawResponse
		if err := json.Unmarshal(b, &r); err == nil && r.Status/100 == 2 {
			c.hits.Add(1)
			r.Cached = true
			return r, nil
		}
	}
	c.misses.Add(1)
	resp, err := next.CompleteRaw(ctx, req)
	if err != nil {
		return resp, err
	}
	b, err := json.Marshal(resp)
	if err == nil {
		err = c.store.PutResponse(context.WithoutCancel(ctx), key, info.Provider, info.Model, b)
	}
	if err != nil {
		c.putErrors.Add(1)
	}
	return resp, nil
}

// volatile are the top-level fields of a raw body that name a session or a client, not the
// question: left out of the cache key (they are still sent), so that a rerun of the same
// conversation finds its answers. Claude Code sends metadata.user_id (with a session id),
// Codex client_metadata and prompt_cache_key (its thread id) and ids of its input items.
var volatile = []string{"metadata", "client_metadata", "prompt_cache_key", "user", "safety_identifier"}

// RawCacheKey hashes what can change a raw answer: provider, model, where it is served, the
// API, the body (its volatile fields left out, input items without their client-made ids), the
// protocol headers, the repeat index and the namespace (--cache-tag; "" hashes as before
// namespaces). Never the key.
func RawCacheKey(namespace string, info Info, req RawRequest) (string, error) {
	var body map[string]json.RawMessage
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return "", fmt.Errorf("raw cache key: the body is not a JSON object: %w", err)
	}
	for _, k := range volatile {
		delete(body, k)
	}
	if in, ok := body["input"]; ok {
		var items []map[string]json.RawMessage
		if json.Unmarshal(in, &items) == nil {
			for _, it := range items {
				delete(it, "id")
			}
			b, err := json.Marshal(items)
			if err != nil {
				return "", fmt.Errorf("raw cache key: %w", err)
			}
			body["input"] = b
		}
	}
	headers := http.Header{}
	for _, k := range forwarded {
		if v := req.Header.Values(k); len(v) > 0 {
			headers[k] = v
		}
	}
	b, err := json.Marshal(struct {
		V       int                        `json:"v"`
		Info    Info                       `json:"info"`
		API     API                        `json:"api"`
		Body    map[string]json.RawMessage `json:"body"`
		Headers http.Header                `json:"headers"`
		Repeat  int                        `json:"repeat"`
		NS      string                     `json:"ns,omitempty"`
		Stream  bool                       `json:"stream,omitempty"` // Gemini's, in its path
	}{1, info, req.API, body, headers, req.Repeat, namespace, req.API == GeminiGenerate && req.Stream})
	if err != nil {
		return "", fmt.Errorf("raw cache key: %w", err)
	}
	sum := sha256.Sum256(append([]byte("raw\x00"), b...))
	return hex.EncodeToString(sum[:]), nil
}

// CompleteRaw implements RawModel: see Complete.
func (f *firstCall) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	next, err := nextRaw(f.next)
	if err != nil {
		return RawResponse{}, err
	}
	resp, err := next.CompleteRaw(ctx, req)
	if err == nil {
		f.ok.Store(true)
		return resp, nil
	}
	var ae *APIError
	if !f.ok.Load() && errors.As(err, &ae) {
		ae.FirstCall = true
	}
	return resp, err
}

// CompleteRaw implements RawModel: see Complete. A streamed answer is retried whole when its
// stream carried an error event or broke off.
func (r *retrying) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	next, err := nextRaw(r.next)
	if err != nil {
		return RawResponse{}, err
	}
	return retry(ctx, r, func() (RawResponse, error) { return next.CompleteRaw(ctx, req) },
		func(resp *RawResponse) (*int, *int, *time.Duration) { return &resp.Calls, &resp.Retries, &resp.Waited })
}

// CompleteRaw implements RawModel: see Complete.
func (t *timeout) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	next, err := nextRaw(t.next)
	if err != nil {
		return RawResponse{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	resp, err := next.CompleteRaw(cctx, req)
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		err = &APIError{Provider: t.next.Info().Provider, Message: fmt.Sprintf("no answer within %s (raise --call-timeout)", t.d), Cause: err}
	}
	return resp, err
}

// CompleteRaw implements RawModel: see Complete; the token-rate estimate is the body's length
// and its answer budget.
func (m *limited) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	next, err := nextRaw(m.next)
	if err != nil {
		return RawResponse{}, err
	}
	f, err := req.readFields()
	if err != nil {
		return RawResponse{}, err
	}
	start := time.Now()
	epoch, err := m.acquire(ctx)
	if err != nil {
		return RawResponse{Waited: time.Since(start)}, err
	}
	if err := m.pace(ctx, f.estimate(req.Body)); err != nil {
		m.release(epoch, nil, err)
		return RawResponse{Waited: time.Since(start)}, err
	}
	waited := time.Since(start)
	resp, err := next.CompleteRaw(ctx, req)
	resp.Waited += waited
	rl := resp.RateLimit
	var ae *APIError
	if errors.As(err, &ae) && ae.RateLimit != nil {
		rl = ae.RateLimit
	}
	m.release(epoch, rl, err)
	return resp, err
}

// CompleteRaw sends a raw request down the stack (a Stack is a RawModel, as its layers are).
func (s *Stack) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	r, err := nextRaw(s.Model)
	if err != nil {
		return RawResponse{}, err
	}
	return r.CompleteRaw(ctx, req)
}
