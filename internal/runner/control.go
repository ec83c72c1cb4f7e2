package runner

import (
	"context"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/store"
)

// Lister is what listing runs needs from the store.
type Lister interface {
	Runs(ctx context.Context) ([]store.Run, error)
	Units(ctx context.Context, runID string, fn func(store.UnitState)) error
}

// Status is a run with how far it got.
type Status struct {
	store.Run
	Done   int // units with a scored verdict
	Errors int // units whose every attempt is an error
	Tries  int // attempts stored, retries included
}

// List returns every run of the store, oldest first, with its progress.
func List(ctx context.Context, st Lister) ([]Status, error) {
	runs, err := st.Runs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Status, len(runs))
	for i, r := range runs {
		s := Status{Run: r}
		if err := st.Units(ctx, r.ID, func(u store.UnitState) {
			s.Tries += u.Attempts
			if u.Scored {
				s.Done++
			} else {
				s.Errors++
			}
		}); err != nil {
			return nil, fmt.Errorf("run %s: %w", r.ID, err)
		}
		out[i] = s
	}
	return out, nil
}
