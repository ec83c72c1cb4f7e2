package fetch

import (
	"context"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// Check reports, with no network access and without cloning or fetching, whether each needed
// repository is under opts.Dir (where snapshot.Locate finds it) with every pinned commit whole:
// Present when it is, Failed with Err (errors.Is snapshot.ErrNoRepository) when the repository
// is not there, or with Missing commits (ErrNoCommit, or ErrIncomplete for a partial clone
// lacking a commit's contents). Run's preflight calls it before a run is created.
func Check(ctx context.Context, needs []Need, opts Options) ([]Result, error) {
	g := newGit(opts.Git, opts.Env)
	out := make([]Result, len(needs))
	for i, n := range needs {
		r := Result{URL: n.URL, Action: Failed}
		path, err := snapshot.Locate(opts.Dir, n.URL)
		if err != nil {
			r.Err = err
			out[i] = r
			continue
		}
		r.Path = path
		repo := &repo{git: g, dir: path, url: n.URL}
		missing, err := repo.check(ctx, n.Commits)
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			r.Err = fmt.Errorf("repository %s: %w", path, err)
			out[i] = r
			continue
		}
		r.Partial = repo.partial
		for _, m := range missing {
			e := ErrNoCommit
			if m.present {
				e = ErrIncomplete
			}
			r.Missing = append(r.Missing, Commit{ID: m.id, Err: e})
		}
		r.Commits = len(n.Commits) - len(r.Missing)
		if len(r.Missing) == 0 {
			r.Action = Present
		}
		out[i] = r
	}
	return out, nil
}
