package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// The response cache is written behind: PutResponse keeps the row in memory and the next
// transaction of attempts (PutAttempts, Tx.PutAttempts) writes it with them, so a plain-LLM run
// costs one transaction per batch of attempts instead of one more per model answer. An attempt
// ends after its answers were put, so an attempt is never stored without its answers; the rows of
// attempts still in flight are written on their own within cacheDelay (or when cacheBatch of
// them wait), and by Close. A kill -9 can lose only answers of attempts that were not stored
// either, which a resume redoes anyway.
const (
	cacheDelay = time.Second // a test may change a store's (pendingCache.delay)
	cacheBatch = 512
)

var cacheColumns = []string{"key", "provider", "model", "response", "created_at"}

const getResponse = `SELECT response FROM llm_cache WHERE key = ?`

const cacheUpsert = ` ON CONFLICT (key) DO UPDATE SET response = excluded.response, created_at = excluded.created_at`

// pendingCache holds the rows PutResponse has not written yet, by key (the latest wins: one
// statement may not upsert a key twice on Postgres).
type pendingCache struct {
	mu     sync.Mutex
	rows   map[string][]any
	timer  *time.Timer
	delay  time.Duration // 0: cacheDelay
	closed bool          // the store is closing: no more timers
}

// after starts the timer that writes the waiting rows; c.mu is held.
func (c *pendingCache) after(s *Store) {
	if c.timer != nil || c.closed {
		return
	}
	d := c.delay
	if d == 0 {
		d = cacheDelay
	}
	c.timer = time.AfterFunc(d, func() { s.flushCache(context.Background()) })
}

// GetResponse returns a cached model response. It reads under a context that is not cancelled
// with ctx: an interrupted read would leave the pooled SQLite connection interrupted.
func (s *Store) GetResponse(ctx context.Context, key string) ([]byte, bool, error) {
	s.cache.mu.Lock()
	row, ok := s.cache.rows[key]
	s.cache.mu.Unlock()
	if ok {
		return []byte(row[3].(string)), true, nil
	}
	ctx = context.WithoutCancel(ctx)
	if s.dialect == postgresDialect { // a round trip a read: those waiting at once go together
		v, found, err := s.responseReads.get(ctx, key, s.readResponses)
		if err != nil {
			return nil, false, fmt.Errorf("read response cache: %w", err)
		}
		return v, found, nil
	}
	var v string
	err := s.retrying(ctx, func() error {
		if st := s.stmt(ctx, s.q(getResponse)); st != nil {
			return st.QueryRowContext(ctx, key).Scan(&v)
		}
		return s.db.QueryRowContext(ctx, s.q(getResponse), key).Scan(&v)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read response cache: %w", err)
	}
	return []byte(v), true, nil
}

// readResponses reads the cached responses of keys, those found.
func (s *Store) readResponses(ctx context.Context, keys []string) (map[string][]byte, error) {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	var found map[string][]byte
	err := s.retrying(ctx, func() error {
		found = make(map[string][]byte, len(keys))
		return s.scanPairs(ctx, `SELECT key, response FROM llm_cache WHERE key IN (`+placeholders(len(keys))+`)`, args,
			func(k string, b []byte) { found[k] = b })
	})
	return found, err
}

// PutResponse stores a model response under key, replacing an older one: with the next batch of
// attempts, or on its own within a second.
func (s *Store) PutResponse(ctx context.Context, key, provider, model string, value []byte) error {
	row := []any{key, provider, model, clean(s.scrub(string(value))), dbTime(time.Now())}
	c := &s.cache
	c.mu.Lock()
	if c.rows == nil {
		c.rows = map[string][]any{}
	}
	c.rows[key] = row
	full := len(c.rows) >= cacheBatch || c.closed
	if !full {
		c.after(s)
	}
	c.mu.Unlock()
	if full {
		return s.flushCache(ctx)
	}
	return nil
}

// flushCache writes the waiting rows in a transaction of their own.
func (s *Store) flushCache(ctx context.Context) error {
	rows := s.takeCache()
	if len(rows) == 0 {
		return nil
	}
	err := s.inTx(context.WithoutCancel(ctx), func(tx *sql.Tx) error { return s.insertRows(ctx, tx, "llm_cache", cacheColumns, rows, cacheUpsert) })
	if err != nil {
		s.returnCache(rows)
		return fmt.Errorf("write response cache: %w", err)
	}
	return nil
}

// takeCache removes and returns the waiting rows.
func (s *Store) takeCache() [][]any {
	c := &s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if len(c.rows) == 0 {
		return nil
	}
	out := make([][]any, 0, len(c.rows))
	for _, r := range c.rows {
		out = append(out, r)
	}
	clear(c.rows)
	// In key order: two transactions upserting the same keys lock them in the same order.
	slices.SortFunc(out, func(a, b []any) int { return strings.Compare(a[0].(string), b[0].(string)) })
	return out
}

// returnCache puts back rows whose transaction failed, unless a newer value of their key waits.
func (s *Store) returnCache(rows [][]any) {
	c := &s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rows == nil {
		c.rows = map[string][]any{}
	}
	for _, r := range rows {
		k := r[0].(string)
		if _, newer := c.rows[k]; !newer {
			c.rows[k] = r
		}
	}
	if len(c.rows) > 0 {
		c.after(s)
	}
}

// writeCache writes the waiting rows in tx, the transaction of a batch of attempts; done puts
// them back when tx did not commit.
// Two writes of one key may land in either order: both are answers to the same request.
func (s *Store) writeCache(ctx context.Context, tx *sql.Tx) (done func(committed bool), err error) {
	rows := s.takeCache()
	finish := func(committed bool) {
		if !committed {
			s.returnCache(rows)
		}
	}
	if len(rows) == 0 {
		return finish, nil
	}
	if err := s.insertRows(ctx, tx, "llm_cache", cacheColumns, rows, cacheUpsert); err != nil {
		finish(false)
		return nil, fmt.Errorf("write response cache: %w", err)
	}
	return finish, nil
}

// closeCache writes the waiting rows, and makes PutResponse write its rows at once from then on.
func (s *Store) closeCache() error {
	s.cache.mu.Lock()
	s.cache.closed = true
	s.cache.mu.Unlock()
	return s.flushCache(context.Background())
}
