package store

import (
	"context"
	"sync"
)

// grouped gathers the reads of single rows that wait at the same moment, so that one statement
// reads them all: a River worker reads each unit's case and cached answer, its units many at
// once, and a read costs a round trip and a statement in Postgres whether it fetches one row or
// twenty. A read that finds no other pays nothing more than a goroutine's start; one that
// arrives while a batch is being read waits for it and goes in the next.
type grouped[K comparable, V any] struct {
	mu      sync.Mutex
	reading bool
	waiting []*groupRead[K, V]
}

type groupRead[K comparable, V any] struct {
	key   K
	v     V
	found bool
	err   error
	done  chan struct{}
}

// maxGroupRead bounds the rows read in one statement.
const maxGroupRead = 100

// get returns the value of key, found false when read did not return it. read reads the keys
// of a batch (each once) and returns the values found; its context is not the caller's, which
// may give up while the others of its batch still want theirs.
func (g *grouped[K, V]) get(ctx context.Context, key K, read func(context.Context, []K) (map[K]V, error)) (v V, found bool, err error) {
	if err := ctx.Err(); err != nil {
		return v, false, err
	}
	r := &groupRead[K, V]{key: key, done: make(chan struct{})}
	g.mu.Lock()
	g.waiting = append(g.waiting, r)
	if !g.reading {
		g.reading = true
		go g.drain(context.WithoutCancel(ctx), read)
	}
	g.mu.Unlock()
	select {
	case <-r.done:
		return r.v, r.found, r.err
	case <-ctx.Done():
		return v, false, ctx.Err()
	}
}

// drain reads what waits, a batch at a time, until nothing does.
func (g *grouped[K, V]) drain(ctx context.Context, read func(context.Context, []K) (map[K]V, error)) {
	for {
		g.mu.Lock()
		batch := g.waiting
		if len(batch) > maxGroupRead {
			batch = batch[:maxGroupRead:maxGroupRead]
		}
		g.waiting = g.waiting[len(batch):]
		if len(batch) == 0 {
			g.waiting = nil
			g.reading = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		keys := make([]K, 0, len(batch))
		seen := make(map[K]bool, len(batch))
		for _, r := range batch {
			if !seen[r.key] {
				seen[r.key] = true
				keys = append(keys, r.key)
			}
		}
		found, err := read(ctx, keys)
		for _, r := range batch {
			r.v, r.found = found[r.key]
			r.err = err
			close(r.done)
		}
	}
}

// placeholders is n placeholders, "?, ?, ...".
func placeholders(n int) string {
	b := make([]byte, 0, 3*n)
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '?')
	}
	return string(b)
}
