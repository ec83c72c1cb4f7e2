package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/snapshot/snapgraph"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// repos gives units their case's snapshot: the repository found under --repos by its URL,
// materialised once per commit in the snapshot cache, and its code graph built once.
type repos struct {
	dir      string           // --repos
	cacheDir string           // "" : snapshot.DefaultDir()
	sb       *sandbox.Sandbox // git runs in it (nil: on the host)

	once   sync.Once
	cache  *snapshot.Cache
	err    error
	graphs *snapgraph.Graphs

	// sized, when set, records a case's repository size in lines (its snapshot's, counted
	// once as it was extracted) where the case has none: meta.repo_size, once per case.
	sized func(ctx context.Context, c *suite.Case, lines int64)
	seen  sync.Map // case ids whose size was recorded
}

func newRepos(dir, cacheDir string, sb *sandbox.Sandbox) *repos {
	return &repos{dir: dir, cacheDir: cacheDir, sb: sb, graphs: snapgraph.New(codegraph.Options{}, snapgraph.DefaultKeep)}
}

// recordSizes has the repository size of each case with a snapshot stored in the case's meta
// (meta.repo_size) of run runID in st, where the case has none: what `score --by repo-size` and
// the breakdown figures group by. A size that cannot be stored is left out; the unit goes on.
func (r *repos) recordSizes(st interface {
	SetCaseMeta(ctx context.Context, runID, caseID, key string, value any) error
}, runID string) *repos {
	r.sized = func(ctx context.Context, c *suite.Case, lines int64) {
		_ = st.SetCaseMeta(ctx, runID, c.ID, "repo_size", lines)
	}
	return r
}

func (r *repos) open() (*snapshot.Cache, error) {
	r.once.Do(func() {
		dir := r.cacheDir
		if dir == "" {
			if dir, r.err = snapshot.DefaultDir(); r.err != nil {
				return
			}
		}
		r.cache, r.err = snapshot.NewCache(dir, snapshot.Options{Sandbox: r.sb})
	})
	return r.cache, r.err
}

// snapshotOf returns how to open c's snapshot, or nil when c has no repository.
func (r *repos) snapshotOf(c *suite.Case) func(context.Context) (*snapshot.Snapshot, error) {
	if c.Repo == nil || c.Repo.URL == "" {
		return nil
	}
	return func(ctx context.Context) (*snapshot.Snapshot, error) {
		if c.Repo.Commit == "" {
			return nil, fmt.Errorf("case %s: its repository %s names no commit", c.ID, c.Repo.URL)
		}
		if r.dir == "" {
			return nil, fmt.Errorf("case %s needs its repository %s: say where clones are with --repos DIR (looked up as DIR/HOST/OWNER/NAME, DIR/OWNER/NAME, DIR/OWNER+NAME or DIR/NAME)", c.ID, c.Repo.URL)
		}
		dir, err := snapshot.Locate(r.dir, c.Repo.URL)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		cache, err := r.open()
		if err != nil {
			return nil, fmt.Errorf("snapshot cache: %w", err)
		}
		s, err := cache.Get(ctx, dir, c.Repo.Commit)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		if n := s.Info().Lines; n != nil && r.sized != nil && c.Meta["repo_size"] == nil {
			if _, done := r.seen.LoadOrStore(c.ID, true); !done {
				r.sized(ctx, c, *n)
			}
		}
		return s, nil
	}
}

func (r *repos) graph(ctx context.Context, s *snapshot.Snapshot) (query.Graph, error) {
	if s == nil {
		return nil, errors.New("no snapshot")
	}
	ix, err := r.graphs.Get(ctx, s)
	if err != nil {
		return nil, err // not a nil *Index in a non-nil interface
	}
	return ix, nil
}
