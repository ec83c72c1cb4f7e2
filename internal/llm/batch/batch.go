// Package batch sends model requests through the providers' batch APIs, at their batch prices:
// OpenAI's Batch API (a JSONL file uploaded, a batch created on it, polled, its output and error
// files read) and Anthropic's Message Batches (the requests posted, the batch polled, its results
// read as JSONL). Requests are written as the provider's JSONL, with the body the online adapter
// sends, and chunked within the provider's limits; each result is mapped back to its request's
// custom id, with a per-request error for a request that errored, expired or was canceled, so
// that a resume can retry exactly those. A Ref names a submitted batch: store it with the run
// as soon as Submit reports it, and a restarted process polls the same batch instead of
// submitting its requests again. Before each batch is created Submit reports its Chunk (a
// fresh nonce, the custom ids, the time): store that too, and a process killed between the
// provider creating the batch and its Ref being stored finds the batch again with Find.
package batch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
)

// Item is one request and the custom id its result comes back under (a unit's key).
type Item struct {
	ID  string
	Req llm.Request
}

// Ref is a submitted batch: what a run stores to poll it again after a restart.
type Ref struct {
	Provider string   `json:"provider"`
	ID       string   `json:"id"`
	IDs      []string `json:"custom_ids"`      // the custom ids it holds, in order
	Nonce    string   `json:"nonce,omitempty"` // the Chunk it was created for
}

// Chunk is a batch about to be created: its nonce (fresh, in OpenAI's batch metadata with the
// run), its custom ids in order, and the time just before the create request is sent.
type Chunk struct {
	Nonce string
	IDs   []string
	At    time.Time
}

// Hooks are what Submit tells its caller.
type Hooks struct {
	Run string // the run the batches are for (in OpenAI's batch metadata)
	// OnChunk hears each batch before its create request is sent (record it then); an error
	// stops Submit before the create.
	OnChunk func(Chunk) error
	// OnRef hears each batch as soon as it exists (store it then).
	OnRef func(Ref) error
}

// State is a batch's progress.
type State struct {
	Ended  bool   // no request is processing: results can be read
	Status string // the provider's word: in_progress, completed, expired, ended...
	// Counts of requests, as the provider reports them.
	Total, Succeeded, Failed int
}

// Result is one request's outcome: Resp, or Err (an *llm.APIError for a request the provider
// refused, ErrExpired, ErrCanceled, ErrMissing).
type Result struct {
	ID   string
	Resp llm.Response
	Err  error
}

var (
	// ErrExpired: the batch ended before the request was processed (it may be sent again).
	ErrExpired = errors.New("the batch expired before this request was processed")
	// ErrCanceled: the batch was canceled before the request was processed.
	ErrCanceled = errors.New("the batch was canceled before this request was processed")
	// ErrMissing: the ended batch returned nothing for the request.
	ErrMissing = errors.New("the ended batch has no result for this request")
)

// Limits bound one batch.
type Limits struct {
	Requests int
	Bytes    int // of the JSONL file (OpenAI) or the request body (Anthropic)
}

// The providers' documented limits of one batch.
var (
	OpenAILimits    = Limits{Requests: 50_000, Bytes: 200 << 20}
	AnthropicLimits = Limits{Requests: 100_000, Bytes: 256 << 20}
)

// Options configure a Client.
type Options struct {
	BaseURL string // "" the provider's API (OpenAI's ends in /v1, as for the online adapter)
	Key     string
	HTTP    *http.Client // nil: http.DefaultClient
	Caps    llm.Caps     // the model's request capabilities (OpenAI)
	Limits  Limits       // zero: the provider's
}

// Client talks to one provider's batch API for one model.
type Client struct {
	provider string
	base     string
	key      string
	hc       *http.Client
	limits   Limits
	body     func(llm.Request) ([]byte, error)
}

// New is the batch client of spec (PROVIDER:MODEL).
func New(spec string, o Options) (*Client, error) {
	provider, model, err := llm.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	c := &Client{provider: provider, key: o.Key, hc: o.HTTP, limits: o.Limits, base: o.BaseURL}
	if c.hc == nil {
		c.hc = http.DefaultClient
	}
	switch provider {
	case "openai":
		if c.base == "" {
			c.base = "https://api.openai.com/v1"
		}
		if c.limits == (Limits{}) {
			c.limits = OpenAILimits
		}
		c.body = llm.NewOpenAI(model, o.BaseURL, o.Key, o.HTTP).WithCaps(o.Caps).ChatBody
	case "anthropic":
		if c.base == "" {
			c.base = "https://api.anthropic.com"
		}
		if c.limits == (Limits{}) {
			c.limits = AnthropicLimits
		}
		c.body = llm.NewAnthropic(model, o.BaseURL, o.Key, o.HTTP).MessageBody
	}
	if c.limits.Requests < 1 || c.limits.Bytes < 1 {
		return nil, fmt.Errorf("batch limits %+v: both must be positive", c.limits)
	}
	return c, nil
}

// Submit writes items as the provider's JSONL, in as many batches as its limits need, and
// creates each: h.OnChunk hears it before its create is sent, h.OnRef as soon as it exists (a
// process killed after OnRef polls it on resume; one killed between the two finds it with
// Find). It returns the batches made; on an error, those made before it.
func (c *Client) Submit(ctx context.Context, items []Item, h Hooks) ([]Ref, error) {
	chunks, err := c.chunk(items)
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, lines := range chunks {
		ch := Chunk{}
		for _, l := range lines {
			ch.IDs = append(ch.IDs, l.id)
		}
		if ch.Nonce, err = nonce(); err != nil {
			return refs, err
		}
		intent := func() error {
			ch.At = time.Now()
			if h.OnChunk == nil {
				return nil
			}
			return h.OnChunk(ch)
		}
		var ref Ref
		if c.provider == "openai" {
			ref, err = c.openaiSubmit(ctx, lines, map[string]string{metaRun: h.Run, metaChunk: ch.Nonce}, intent)
		} else {
			ref, err = c.anthropicSubmit(ctx, lines, intent)
		}
		if err != nil {
			return refs, err
		}
		ref.Nonce = ch.Nonce
		refs = append(refs, ref)
		if h.OnRef != nil {
			if err := h.OnRef(ref); err != nil {
				return refs, err
			}
		}
	}
	return refs, nil
}

// The keys of an OpenAI batch's metadata naming its run and chunk.
const (
	metaRun   = "vulnbench_run"
	metaChunk = "vulnbench_chunk"
)

func nonce() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("batch: nonce: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Skew is how much earlier than a Chunk's time Find still looks at batches (the provider's
// clock against this machine's).
const Skew = 10 * time.Minute

// FindOptions tune Find.
type FindOptions struct {
	// Skip tells a batch that cannot be the one sought (stored by some run already).
	Skip func(id string) (bool, error)
	// Poll is the time between polls of an Anthropic batch that must end before its custom
	// ids can be read (0: 30 s).
	Poll time.Duration
}

// Find looks on the provider for the batch created for ch of run, whose Ref was never stored
// (a process killed between the create and OnRef). OpenAI's batches are listed newest first
// back to ch.At-Skew and matched by the run and nonce in their metadata. Anthropic's batches
// have no metadata: those created since ch.At-Skew with as many requests as ch are candidates,
// each polled until it ends and confirmed by the custom ids of its results (the set of ch's).
// false: the provider holds no such batch (sure once the create, if it was sent, has been
// answered or abandoned: the caller waits long enough after ch.At).
func (c *Client) Find(ctx context.Context, run string, ch Chunk, o FindOptions) (Ref, bool, error) {
	var ref Ref
	var ok bool
	var err error
	if c.provider == "openai" {
		ref, ok, err = c.openaiFind(ctx, run, ch, o)
	} else {
		ref, ok, err = c.anthropicFind(ctx, ch, o)
	}
	if err != nil || !ok {
		return Ref{}, false, err
	}
	ref.Provider, ref.IDs, ref.Nonce = c.provider, ch.IDs, ch.Nonce
	return ref, true, nil
}

// Provider is the client's provider (openai or anthropic).
func (c *Client) Provider() string { return c.provider }

// Poll reads ref's state.
func (c *Client) Poll(ctx context.Context, ref Ref) (State, error) {
	if c.provider == "openai" {
		b, err := c.openaiBatch(ctx, ref.ID)
		return b.state(), err
	}
	b, err := c.anthropicBatch(ctx, ref.ID)
	return b.state(), err
}

// Results reads an ended batch's results, one per custom id of ref, in ref's order.
func (c *Client) Results(ctx context.Context, ref Ref) ([]Result, error) {
	var got map[string]Result
	var err error
	if c.provider == "openai" {
		got, err = c.openaiResults(ctx, ref)
	} else {
		got, err = c.anthropicResults(ctx, ref)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(ref.IDs))
	for i, id := range ref.IDs {
		r, ok := got[id]
		if !ok {
			r = Result{ID: id, Err: ErrMissing}
		}
		out[i] = r
	}
	return out, nil
}

// line is one encoded request.
type line struct {
	id   string
	data []byte
}

// chunk encodes items and splits them within the limits.
func (c *Client) chunk(items []Item) ([][]line, error) {
	var chunks [][]line
	var cur []line
	size := 0
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if it.ID == "" || seen[it.ID] {
			return nil, fmt.Errorf("batch: custom id %q is empty or repeated", it.ID)
		}
		seen[it.ID] = true
		body, err := c.body(it.Req)
		if err != nil {
			return nil, err
		}
		data, err := c.encode(it.ID, body)
		if err != nil {
			return nil, err
		}
		n := len(data) + 1 // the newline or comma between lines
		if n+overhead > c.limits.Bytes {
			return nil, fmt.Errorf("batch: request %s is %d bytes, over the batch limit of %d", it.ID, n, c.limits.Bytes)
		}
		if len(cur) > 0 && (len(cur) == c.limits.Requests || size+n+overhead > c.limits.Bytes) {
			chunks, cur, size = append(chunks, cur), nil, 0
		}
		cur = append(cur, line{id: it.ID, data: data})
		size += n
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks, nil
}

// overhead is what a batch adds around its lines (Anthropic's {"requests":[...]}).
const overhead = 16
