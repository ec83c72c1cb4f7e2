// Package snapgraph builds the code graph of a snapshot once per process and shares it between
// the units that need it.
//
// The graph is codegraph.Open on the snapshot's tree (Snapshot.Root), so it is the same index
// `vulnbench code index --repo` builds, with codegraph's own on-disk cache (keyed by the hash
// of the indexed files' contents) and its speed. codegraph's walk does not follow symbolic
// links: linked files are reported skipped, linked directories are not entered, and files are
// opened with O_NOFOLLOW, so nothing outside the snapshot is indexed. What it reads is bounded
// by the snapshot's extraction limits (snapshot.Options: files, bytes, file size) and by
// codegraph.Options.MaxFileSize (2 MiB unless set) for what it parses.
//
// Snapshots of one repository (the vul and ben cases of a JitVul pair: R_intro and R_fix) share
// most of their files, so a graph is built from the index of a sibling snapshot this cache holds
// (codegraph.Options.Base): only the files whose content changed are parsed again. A sibling
// still being built is waited for first, since the second build then costs a fraction of one.
package snapgraph

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// DefaultKeep is how many graphs a Graphs keeps in memory unless told otherwise.
const DefaultKeep = 8

// Graphs is a per-process cache of code graphs, one per snapshot. It is safe for concurrent use.
type Graphs struct {
	opts codegraph.Options
	keep int

	mu    sync.Mutex
	m     map[string]*entry // by snapshot directory
	clock uint64
}

type entry struct {
	repo    string // the repository's git directory (snapshot.Info.Repo)
	done    chan struct{}
	ix      *codegraph.Index
	err     error
	lastUse uint64
}

// New returns a cache that indexes with opts (KeepParsed set, so that each graph can serve as
// the base of a sibling's) and keeps the keep most recently used graphs in
// memory (DefaultKeep when keep <= 0). A graph dropped from memory is loaded again, from
// codegraph's on-disk cache unless opts.NoCache, by the next Get that needs it.
func New(opts codegraph.Options, keep int) *Graphs {
	if keep <= 0 {
		keep = DefaultKeep
	}
	opts.KeepParsed = true
	return &Graphs{opts: opts, keep: keep, m: map[string]*entry{}}
}

// Get returns the code graph of s. Concurrent Gets of one snapshot build it once; later Gets
// return the same *codegraph.Index while it is kept.
func (g *Graphs) Get(ctx context.Context, s *snapshot.Snapshot) (*codegraph.Index, error) {
	key := s.Dir()
	for {
		g.mu.Lock()
		g.clock++
		e, ok := g.m[key]
		var sibling *entry
		if !ok {
			sibling = g.sibling(s.Info().Repo)
			e = &entry{repo: s.Info().Repo, done: make(chan struct{})}
			g.m[key] = e
			g.evict()
		}
		e.lastUse = g.clock
		g.mu.Unlock()
		if !ok {
			opts := g.opts
			if sibling != nil {
				select {
				case <-sibling.done:
					if sibling.err == nil {
						opts.Base = sibling.ix
					}
				case <-ctx.Done(): // Open gives up at once
				}
			}
			e.ix, e.err = codegraph.Open(ctx, s.Root(), opts)
			if e.err != nil {
				e.err = fmt.Errorf("code graph of %s at %s: %w", s.Info().Repo, s.Info().Commit, e.err)
				g.mu.Lock()
				if g.m[key] == e {
					delete(g.m, key)
				}
				g.mu.Unlock()
			}
			close(e.done)
			return e.ix, e.err
		}
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil && (errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) && ctx.Err() == nil {
			continue // the Get that built it gave up; this one has not
		}
		return e.ix, e.err
	}
}

// sibling returns the most recently used graph of another snapshot of repo, built or being
// built, or nil. g.mu is held.
func (g *Graphs) sibling(repo string) *entry {
	var best *entry
	for _, e := range g.m {
		if e.repo == repo && (best == nil || e.lastUse > best.lastUse) {
			best = e
		}
	}
	return best
}

// evict drops the least recently used finished graphs while more than keep are held. g.mu is held.
func (g *Graphs) evict() {
	for len(g.m) > g.keep {
		var oldest string
		var at uint64
		for k, e := range g.m {
			select {
			case <-e.done:
			default:
				continue // being built
			}
			if oldest == "" || e.lastUse < at {
				oldest, at = k, e.lastUse
			}
		}
		if oldest == "" {
			return
		}
		delete(g.m, oldest)
	}
}
