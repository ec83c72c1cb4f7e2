package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// CacheStore keeps responses by key; *store.Store is one.
type CacheStore interface {
	GetResponse(ctx context.Context, key string) ([]byte, bool, error)
	PutResponse(ctx context.Context, key, provider, model string, value []byte) error
}

// CacheStats counts what the cache did.
type CacheStats struct {
	Hits, Misses, PutErrors int64
}

// CacheOptions are a run's cache controls.
type CacheOptions struct {
	// Namespace (--cache-tag) keys the answers apart from every other namespace's: a changed
	// local model served under the same name gets a new tag and never the old model's answers.
	// "" is the default namespace, whose keys are those of caches made before namespaces.
	Namespace string
	// Refresh (--no-cache) asks the model again whatever the cache holds, and stores the new
	// answer in place of the old one.
	Refresh bool
}

// Cache answers repeated requests from the store and hands every new answer to the store as soon
// as it arrives, before anything else can fail (*store.Store writes it with the next batch of
// attempts, so that an attempt is never stored without its answers): a paid answer of a stored
// attempt is never paid for twice.
type Cache struct {
	next                    Model
	store                   CacheStore
	opts                    CacheOptions
	hits, misses, putErrors atomic.Int64
}

// WithCache wraps next with a response cache in st.
func WithCache(next Model, st CacheStore, o CacheOptions) *Cache {
	return &Cache{next: next, store: st, opts: o}
}

// Options returns the cache's controls.
func (c *Cache) Options() CacheOptions { return c.opts }

// Info implements Model.
func (c *Cache) Info() Info { return c.next.Info() }

// Stats returns the counts so far.
func (c *Cache) Stats() CacheStats {
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), PutErrors: c.putErrors.Load()}
}

// Complete implements Model.
func (c *Cache) Complete(ctx context.Context, req Request) (Response, error) {
	info := c.next.Info()
	key, err := CacheKey(c.opts.Namespace, info, req)
	if err != nil {
		return Response{}, err
	}
	if c.opts.Refresh {
		// --no-cache: asked again; the answer below replaces the stored one.
	} else if b, ok, err := c.store.GetResponse(ctx, key); err != nil {
		return Response{}, fmt.Errorf("response cache: %w", err)
	} else if ok {
		var r Response
		if err := json.Unmarshal(b, &r); err == nil {
			c.hits.Add(1)
			r.Cached = true
			return r, nil
		}
		// An unreadable entry is treated as absent and overwritten below.
	}
	c.misses.Add(1)
	resp, err := c.next.Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	b, err := json.Marshal(resp)
	if err == nil {
		err = c.store.PutResponse(context.WithoutCancel(ctx), key, info.Provider, info.Model, b)
	}
	if err != nil {
		c.putErrors.Add(1) // the answer is still good; only a rerun would pay for it again
	}
	return resp, nil
}

// CacheKey hashes everything that can change an answer: the namespace (--cache-tag), provider,
// model, where it is served, every parameter, the messages, the tools and the repeat index.
// Never the API key. The default namespace "" hashes as keys did before namespaces existed, so
// caches stored then are still found.
func CacheKey(namespace string, info Info, req Request) (string, error) {
	b, err := json.Marshal(struct {
		V    int     `json:"v"`
		NS   string  `json:"ns,omitempty"`
		Info Info    `json:"info"`
		Req  Request `json:"req"`
	}{1, namespace, info, req})
	if err != nil {
		return "", fmt.Errorf("cache key: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
