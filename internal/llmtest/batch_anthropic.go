package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

func (s *Server) anthropicBatchRoute(method, path string) func(http.ResponseWriter, *http.Request, string) {
	switch {
	case method == http.MethodPost && path == "/v1/messages/batches":
		return s.anthropicCreate
	case method == http.MethodGet && path == "/v1/messages/batches":
		return s.anthropicList
	case method == http.MethodGet && strings.HasPrefix(path, "/v1/messages/batches/") && strings.HasSuffix(path, "/results"):
		return s.anthropicResults
	case method == http.MethodGet && strings.HasPrefix(path, "/v1/messages/batches/"):
		return s.anthropicRetrieve
	}
	return nil
}

// anthropicCreate is POST /v1/messages/batches.
func (s *Server) anthropicCreate(w http.ResponseWriter, r *http.Request, _ string) {
	d := s.dialect
	body, err := io.ReadAll(io.LimitReader(r.Body, AnthropicBatchMaxBytes+1))
	if err != nil {
		return
	}
	if len(body) > AnthropicBatchMaxBytes {
		writeError(w, d, &apiError{status: 413, typ: "request_too_large", message: "a batch is at most 256 MB"}, "batch")
		return
	}
	var in struct {
		Requests []struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		badRequest(w, d, "message batches: unreadable body: %v", err)
		return
	}
	if len(in.Requests) == 0 || len(in.Requests) > AnthropicBatchMaxRequests {
		badRequest(w, d, "message batches: %d requests; a batch holds 1 to 100,000", len(in.Requests))
		return
	}
	b := &fakeBatch{created: time.Now()}
	seen := map[string]bool{}
	for i, q := range in.Requests {
		if q.CustomID == "" || seen[q.CustomID] || len(q.Params) == 0 {
			badRequest(w, d, "message batches: requests.%d: custom_id must be given and unique, with params", i)
			return
		}
		seen[q.CustomID] = true
		b.lines = append(b.lines, batchLine{customID: q.CustomID, body: q.Params})
	}
	s.batches.mu.Lock()
	b.id = s.batches.nextID("msgbatch_")
	s.batches.add(b)
	out := s.anthropicBatchJSON(b)
	s.batches.mu.Unlock()
	s.created(b.id)
	writeJSON(w, http.StatusOK, out)
}

// anthropicList is GET /v1/messages/batches: the workspace's batches, newest first (after_id,
// before_id, limit 1 to 1,000, 20 by default).
func (s *Server) anthropicList(w http.ResponseWriter, r *http.Request, _ string) {
	s.list(w, r, "after_id", "before_id", 20, 1000, nil, s.anthropicBatchJSON)
}

// anthropicRetrieve is GET /v1/messages/batches/{id}: in progress for Polls retrievals, then
// ended with a results_url.
func (s *Server) anthropicRetrieve(w http.ResponseWriter, _ *http.Request, path string) {
	s.retrieve(w, strings.TrimPrefix(path, "/v1/messages/batches/"), "not_found_error",
		func(b *fakeBatch) { s.end(b, s.dialect, anthropicAnswer) }, s.anthropicBatchJSON)
}

func anthropicAnswer(b *fakeBatch, l batchLine, body []byte, _ int, errBody []byte) {
	var result any
	switch {
	case body == nil && errBody == nil:
		result = map[string]any{"type": "expired"}
	case errBody != nil:
		result = map[string]any{"type": "errored", "error": json.RawMessage(errBody)}
	default:
		result = map[string]any{"type": "succeeded", "message": json.RawMessage(body)}
	}
	b.results = append(b.results, mustJSON(map[string]any{"custom_id": l.customID, "result": result}))
}

func (s *Server) anthropicBatchJSON(b *fakeBatch) []byte {
	status := "in_progress"
	var results, ended any
	counts := map[string]int{"processing": len(b.lines), "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
	if b.ended {
		status, ended = "ended", time.Now().UTC().Format(time.RFC3339)
		results = s.URL + "/v1/messages/batches/" + b.id + "/results"
		counts = map[string]int{"processing": 0, "succeeded": b.succeeded, "errored": b.errored, "canceled": 0, "expired": b.expiredN}
	}
	return mustJSON(map[string]any{"id": b.id, "type": "message_batch", "processing_status": status, "request_counts": counts,
		"created_at": b.created.UTC().Format(time.RFC3339Nano), "expires_at": b.created.Add(24 * time.Hour).UTC().Format(time.RFC3339Nano),
		"ended_at": ended, "results_url": results, "cancel_initiated_at": nil, "archived_at": nil})
}

// anthropicResults is GET /v1/messages/batches/{id}/results, once the batch ended.
func (s *Server) anthropicResults(w http.ResponseWriter, _ *http.Request, path string) {
	id := strings.TrimSuffix(strings.TrimPrefix(path, "/v1/messages/batches/"), "/results")
	s.batches.mu.Lock()
	b, ok := s.batches.byID[id]
	var lines [][]byte
	if ok && b.ended {
		lines = b.results
	}
	s.batches.mu.Unlock()
	if !ok || !b.ended {
		writeError(w, s.dialect, &apiError{status: 404, typ: "not_found_error", message: "no ended batch " + id}, "batch")
		return
	}
	writeLines(w, lines)
}
