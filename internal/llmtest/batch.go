package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BatchOptions make a server speak its provider's batch API: OpenAI's Batch API (POST
// /v1/files with purpose batch, POST /v1/batches with metadata, GET /v1/batches/{id}, GET
// /v1/batches listed newest first with after and limit, GET /v1/files/{id}/content with the
// output and error files) or Anthropic's Message Batches (POST /v1/messages/batches, GET
// /v1/messages/batches/{id}, GET /v1/messages/batches listed newest first with after_id,
// before_id and limit, GET .../{id}/results as JSONL). Each
// request of a batch is answered by the server's Handler, as an online call would be; the
// limits are the providers' (OpenAI: 50,000 requests and 200 MB a file; Anthropic: 100,000
// requests and 256 MB a batch).
type BatchOptions struct {
	// Polls is how many retrievals see a batch in progress before it ends (0: the first ends it).
	Polls int
	// Expire, when set, leaves the requests it names (by custom_id) unprocessed: the batch ends
	// expired with them (OpenAI: status expired, batch_expired lines in the error file;
	// Anthropic: results of type expired).
	Expire func(customID string) bool
	// Created, when set, hears each batch created, before the create request is answered (the
	// batch exists, its client has not heard of it): a test blocks in it to kill the client in
	// that window.
	Created func(id string)
}

// WithBatches serves the provider's batch API (see BatchOptions).
func WithBatches(o BatchOptions) Option {
	return func(c *config) { c.batch = &o }
}

// The providers' documented limits.
const (
	OpenAIBatchMaxRequests    = 50_000
	OpenAIBatchMaxBytes       = 200 << 20
	AnthropicBatchMaxRequests = 100_000
	AnthropicBatchMaxBytes    = 256 << 20
)

// batchLine is one request of a batch, provider-neutral.
type batchLine struct {
	customID string
	body     []byte // the request's body (OpenAI's body, Anthropic's params)
}

// fakeBatch is one batch and its state.
type fakeBatch struct {
	id        string
	created   time.Time
	metadata  map[string]string // OpenAI's
	lines     []batchLine
	polls     int
	ended     bool
	expired   bool
	inputFile string
	// results, once ended, by outcome.
	ok, failed         [][]byte // OpenAI output and error file lines
	results            [][]byte // Anthropic results lines
	succeeded, errored int
	expiredN           int
	outFile, errFile   string
}

// batches is a server's batch state.
type batches struct {
	mu        sync.Mutex
	n         int
	files     map[string][]byte
	byID      map[string]*fakeBatch
	order     []*fakeBatch   // as created
	submitted map[string]int // custom_id -> times submitted in a batch
	polls     int            // retrievals of any batch
}

func newBatches() *batches {
	return &batches{files: map[string][]byte{}, byID: map[string]*fakeBatch{}, submitted: map[string]int{}}
}

func (b *batches) nextID(prefix string) string {
	b.n++
	return prefix + strconv.Itoa(b.n)
}

// add keeps fb, its id given, each of its requests counted as submitted; mu is held.
func (b *batches) add(fb *fakeBatch) {
	for _, l := range fb.lines {
		b.submitted[l.customID]++
	}
	b.byID[fb.id] = fb
	b.order = append(b.order, fb)
}

// created tells BatchOptions.Created of a batch made; mu is not held.
func (s *Server) created(id string) {
	if s.cfg.batch.Created != nil {
		s.cfg.batch.Created(id)
	}
}

// list answers a list of the batches, newest first, as both providers page it: after (the
// page just older than that id), before (the page just newer; Anthropic's), limit (def by
// default, 1 to most). render is the batch object; the page is {data, first_id, last_id,
// has_more} with extra fields.
func (s *Server) list(w http.ResponseWriter, r *http.Request, afterKey, beforeKey string, def, most int, extra map[string]any, render func(*fakeBatch) []byte) {
	q := r.URL.Query()
	limit := def
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > most {
			badRequest(w, s.dialect, "limit %q: from 1 to %d", v, most)
			return
		}
		limit = n
	}
	after, before := q.Get(afterKey), ""
	if beforeKey != "" {
		before = q.Get(beforeKey)
	}
	if after != "" && before != "" {
		badRequest(w, s.dialect, "%s and %s cannot both be given", afterKey, beforeKey)
		return
	}
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	newest := make([]*fakeBatch, len(s.batches.order))
	for i, b := range s.batches.order {
		newest[len(newest)-1-i] = b
	}
	at := func(id string) int {
		for i, b := range newest {
			if b.id == id {
				return i
			}
		}
		return -1
	}
	lo, hi := 0, len(newest)
	switch {
	case after != "":
		i := at(after)
		if i < 0 {
			badRequest(w, s.dialect, "%s %q: no such batch", afterKey, after)
			return
		}
		lo = i + 1
		hi = min(lo+limit, len(newest))
	case before != "":
		i := at(before)
		if i < 0 {
			badRequest(w, s.dialect, "%s %q: no such batch", beforeKey, before)
			return
		}
		hi = i
		lo = max(0, hi-limit)
	default:
		hi = min(limit, len(newest))
	}
	more := hi < len(newest)
	if before != "" {
		more = lo > 0
	}
	data := []json.RawMessage{}
	var first, last any
	for _, b := range newest[lo:hi] {
		data = append(data, render(b))
	}
	if hi > lo {
		first, last = newest[lo].id, newest[hi-1].id
	}
	page := map[string]any{"data": data, "first_id": first, "last_id": last, "has_more": more}
	for k, v := range extra {
		page[k] = v
	}
	writeJSON(w, http.StatusOK, mustJSON(page))
}

// BatchSubmissions returns how many times each custom_id was submitted in a batch: a request
// submitted twice is paid twice.
func (s *Server) BatchSubmissions() map[string]int {
	if s.batches == nil {
		return nil
	}
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	out := make(map[string]int, len(s.batches.submitted))
	for k, v := range s.batches.submitted {
		out[k] = v
	}
	return out
}

// BatchPolls is how many times a batch was retrieved (polled).
func (s *Server) BatchPolls() int {
	if s.batches == nil {
		return 0
	}
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	return s.batches.polls
}

// BatchesCreated is how many batches were created.
func (s *Server) BatchesCreated() int {
	if s.batches == nil {
		return 0
	}
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	return len(s.batches.byID)
}

// serveBatch answers the batch API's paths; false for any other path.
func (s *Server) serveBatch(w http.ResponseWriter, r *http.Request, reqID string) bool {
	if s.batches == nil {
		return false
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	var h func(http.ResponseWriter, *http.Request, string)
	switch s.dialect.name() {
	case OpenAI:
		h = s.openaiBatchRoute(r.Method, path)
	case Anthropic:
		h = s.anthropicBatchRoute(r.Method, path)
	}
	if h == nil {
		return false
	}
	if s.dialect.apiKey(r.Header) == "" && !s.cfg.keyOptional {
		writeError(w, s.dialect, s.dialect.missingKey(), reqID)
		return true
	}
	h(w, r, path)
	return true
}

// retrieve answers a retrieval (a poll) of batch id: in progress for Polls retrievals, then
// ended by end; render is the batch object, notFound the error type of an unknown id.
func (s *Server) retrieve(w http.ResponseWriter, id, notFound string, end func(*fakeBatch), render func(*fakeBatch) []byte) {
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	b, ok := s.batches.byID[id]
	if !ok {
		writeError(w, s.dialect, &apiError{status: 404, typ: notFound, message: "no batch " + id}, "batch")
		return
	}
	s.batches.polls++
	if !b.ended {
		if b.polls >= s.cfg.batch.Polls {
			end(b)
		}
		b.polls++
	}
	writeJSON(w, http.StatusOK, render(b))
}

// end processes a batch: each request through the handler, as the dialect answers it.
func (s *Server) end(b *fakeBatch, d dialect, answer func(b *fakeBatch, l batchLine, body []byte, status int, errBody []byte)) {
	for _, l := range b.lines {
		if s.cfg.batch.Expire != nil && s.cfg.batch.Expire(l.customID) {
			b.expired = true
			b.expiredN++
			answer(b, l, nil, 0, nil)
			continue
		}
		req, invalid, malformed := d.parse(l.body)
		if e := firstErr(malformed, invalid); e != nil {
			b.errored++
			answer(b, l, nil, e.status, d.errorBody(e, "batch"))
			continue
		}
		req.Provider, req.Raw = d.name(), l.body
		s.mu.Lock()
		if !s.cfg.noLog {
			s.log = append(s.log, req)
		}
		s.mu.Unlock()
		rep := s.handler(req)
		if rep.Status != 0 && rep.Status/100 != 2 {
			b.errored++
			e := d.statusError(rep.Status, rep.ErrorType)
			if rep.ErrorMessage != "" {
				e.message = rep.ErrorMessage
			}
			answer(b, l, nil, rep.Status, d.errorBody(e, "batch"))
			continue
		}
		out, aerr := d.reply(req, rep, int64(len(b.lines)))
		if aerr != nil {
			b.errored++
			answer(b, l, nil, aerr.status, d.errorBody(aerr, "batch"))
			continue
		}
		b.succeeded++
		answer(b, l, out, 200, nil)
	}
	b.ended = true
}

func firstErr(es ...*apiError) *apiError {
	for _, e := range es {
		if e != nil {
			return e
		}
	}
	return nil
}

// jsonl splits a JSONL body into its non-empty lines.
func jsonl(body []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, append([]byte(nil), line...))
		}
	}
	return out
}

func writeLines(w http.ResponseWriter, lines [][]byte) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	for _, l := range lines {
		w.Write(l)
		io.WriteString(w, "\n")
	}
}

func badRequest(w http.ResponseWriter, d dialect, format string, args ...any) {
	writeError(w, d, &apiError{status: 400, typ: "invalid_request_error", message: fmt.Sprintf(format, args...)}, "batch")
}
