package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

func (s *Server) openaiBatchRoute(method, path string) func(http.ResponseWriter, *http.Request, string) {
	switch {
	case method == http.MethodPost && path == "/v1/files":
		return s.openaiUpload
	case method == http.MethodPost && path == "/v1/batches":
		return s.openaiCreate
	case method == http.MethodGet && path == "/v1/batches":
		return s.openaiList
	case method == http.MethodGet && strings.HasPrefix(path, "/v1/batches/"):
		return s.openaiRetrieve
	case method == http.MethodGet && strings.HasPrefix(path, "/v1/files/") && strings.HasSuffix(path, "/content"):
		return s.openaiContent
	}
	return nil
}

// openaiUpload is POST /v1/files: a multipart form with purpose and file.
func (s *Server) openaiUpload(w http.ResponseWriter, r *http.Request, _ string) {
	d := s.dialect
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		badRequest(w, d, "files: not a multipart form: %v", err)
		return
	}
	if p := r.FormValue("purpose"); p != "batch" {
		badRequest(w, d, "files: purpose %q, this server takes batch", p)
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		badRequest(w, d, "files: no file: %v", err)
		return
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, OpenAIBatchMaxBytes+1))
	if err != nil {
		return
	}
	if len(body) > OpenAIBatchMaxBytes {
		badRequest(w, d, "files: a batch file is at most 200 MB")
		return
	}
	s.batches.mu.Lock()
	id := s.batches.nextID("file-")
	s.batches.files[id] = body
	s.batches.mu.Unlock()
	writeJSON(w, http.StatusOK, mustJSON(map[string]any{"id": id, "object": "file", "bytes": len(body),
		"created_at": time.Now().Unix(), "filename": hdr.Filename, "purpose": "batch"}))
}

// openaiCreate is POST /v1/batches.
func (s *Server) openaiCreate(w http.ResponseWriter, r *http.Request, _ string) {
	d := s.dialect
	var in struct {
		InputFileID      string            `json:"input_file_id"`
		Endpoint         string            `json:"endpoint"`
		CompletionWindow string            `json:"completion_window"`
		Metadata         map[string]string `json:"metadata"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		badRequest(w, d, "batches: unreadable body: %v", err)
		return
	}
	if len(in.Metadata) > 16 {
		badRequest(w, d, "batches: metadata has %d keys, at most 16", len(in.Metadata))
		return
	}
	for k, v := range in.Metadata {
		if len(k) > 64 || len(v) > 512 {
			badRequest(w, d, "batches: metadata %q: keys are at most 64 characters, values 512", k)
			return
		}
	}
	if in.Endpoint != "/v1/chat/completions" || in.CompletionWindow != "24h" {
		badRequest(w, d, "batches: endpoint %q, completion_window %q: this server takes /v1/chat/completions and 24h", in.Endpoint, in.CompletionWindow)
		return
	}
	s.batches.mu.Lock()
	body, ok := s.batches.files[in.InputFileID]
	s.batches.mu.Unlock()
	if !ok {
		writeError(w, d, &apiError{status: 404, typ: "invalid_request_error", message: "no file " + in.InputFileID}, "batch")
		return
	}
	b := &fakeBatch{created: time.Now(), inputFile: in.InputFileID, metadata: in.Metadata}
	seen := map[string]bool{}
	for i, line := range jsonl(body) {
		var l struct {
			CustomID string          `json:"custom_id"`
			Method   string          `json:"method"`
			URL      string          `json:"url"`
			Body     json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(line, &l); err != nil || l.CustomID == "" || l.Method != "POST" || l.URL != in.Endpoint || seen[l.CustomID] {
			badRequest(w, d, "batches: line %d of %s is not a request of this batch (custom_id unique, method POST, url %s)", i+1, in.InputFileID, in.Endpoint)
			return
		}
		seen[l.CustomID] = true
		b.lines = append(b.lines, batchLine{customID: l.CustomID, body: l.Body})
	}
	if len(b.lines) == 0 || len(b.lines) > OpenAIBatchMaxRequests {
		badRequest(w, d, "batches: %d requests; a batch holds 1 to 50,000", len(b.lines))
		return
	}
	s.batches.mu.Lock()
	b.id = s.batches.nextID("batch_")
	s.batches.add(b)
	out := openaiBatchJSON(b)
	s.batches.mu.Unlock()
	s.created(b.id)
	writeJSON(w, http.StatusOK, out)
}

// openaiList is GET /v1/batches: the organization's batches, newest first (after, limit 1 to
// 100, 20 by default).
func (s *Server) openaiList(w http.ResponseWriter, r *http.Request, _ string) {
	s.list(w, r, "after", "", 20, 100, map[string]any{"object": "list"}, openaiBatchJSON)
}

// openaiRetrieve is GET /v1/batches/{id}: in progress for Polls retrievals, then ended.
func (s *Server) openaiRetrieve(w http.ResponseWriter, _ *http.Request, path string) {
	s.retrieve(w, strings.TrimPrefix(path, "/v1/batches/"), "invalid_request_error", s.openaiEnd, openaiBatchJSON)
}

// openaiEnd ends a batch with its output and error files (a file only when it has lines); the
// batches' mu is held.
func (s *Server) openaiEnd(b *fakeBatch) {
	s.end(b, s.dialect, openaiAnswer)
	if len(b.ok) > 0 {
		b.outFile = s.batches.nextID("file-")
		s.batches.files[b.outFile] = joinLines(b.ok)
	}
	if len(b.failed) > 0 {
		b.errFile = s.batches.nextID("file-")
		s.batches.files[b.errFile] = joinLines(b.failed)
	}
}

func openaiAnswer(b *fakeBatch, l batchLine, body []byte, status int, errBody []byte) {
	line := map[string]any{"id": "batch_req_" + l.customID, "custom_id": l.customID}
	switch {
	case body == nil && errBody == nil: // expired
		line["response"] = nil
		line["error"] = map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}
		b.failed = append(b.failed, mustJSON(line))
	case errBody != nil:
		line["response"] = map[string]any{"status_code": status, "request_id": "req_batch_" + l.customID, "body": json.RawMessage(errBody)}
		line["error"] = nil
		b.failed = append(b.failed, mustJSON(line))
	default:
		line["response"] = map[string]any{"status_code": 200, "request_id": "req_batch_" + l.customID, "body": json.RawMessage(body)}
		line["error"] = nil
		b.ok = append(b.ok, mustJSON(line))
	}
}

func openaiBatchJSON(b *fakeBatch) []byte {
	status := "in_progress"
	var out, errf any
	switch {
	case b.ended && b.expired:
		status = "expired"
	case b.ended:
		status = "completed"
	}
	if b.outFile != "" {
		out = b.outFile
	}
	if b.errFile != "" {
		errf = b.errFile
	}
	done := 0
	if b.ended {
		done = b.succeeded
	}
	var meta any
	if b.metadata != nil {
		meta = b.metadata
	}
	return mustJSON(map[string]any{"id": b.id, "object": "batch", "metadata": meta, "endpoint": "/v1/chat/completions", "input_file_id": b.inputFile,
		"completion_window": "24h", "status": status, "output_file_id": out, "error_file_id": errf,
		"created_at": b.created.Unix(), "expires_at": b.created.Add(24 * time.Hour).Unix(),
		"request_counts": map[string]int{"total": len(b.lines), "completed": done, "failed": b.errored + b.expiredN}})
}

// openaiContent is GET /v1/files/{id}/content.
func (s *Server) openaiContent(w http.ResponseWriter, _ *http.Request, path string) {
	id := strings.TrimSuffix(strings.TrimPrefix(path, "/v1/files/"), "/content")
	s.batches.mu.Lock()
	body, ok := s.batches.files[id]
	s.batches.mu.Unlock()
	if !ok {
		writeError(w, s.dialect, &apiError{status: 404, typ: "invalid_request_error", message: "no file " + id}, "batch")
		return
	}
	writeLines(w, jsonl(body))
}

func joinLines(lines [][]byte) []byte {
	var out []byte
	for _, l := range lines {
		out = append(append(out, l...), '\n')
	}
	return out
}
