package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/store"
)

// writeBatches lists a run's provider batches under its line of vulnbench runs.
func writeBatches(ctx context.Context, w io.Writer, st *store.Store, runID string) error {
	bs, err := st.Batches(ctx, runID)
	if err != nil {
		return err
	}
	for _, b := range bs {
		in := "polling"
		if b.Collected {
			in = "results in"
		}
		fmt.Fprintf(w, "  batch %s\t%s\t%s\t%d units\t\t%s\tupdated %s\t\n", b.ID, b.Provider, b.State, len(b.CustomIDs), in, ago(b.UpdatedAt))
	}
	return nil
}
