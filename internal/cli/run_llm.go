package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/vulnbench/vulnbench/internal/verdict"
)

// printUsage sums up what a run consumed, on stderr; a cost is followed by note, the prices' date.
func printUsage(w io.Writer, u verdict.Usage, elapsed time.Duration, priced bool, note string) {
	if u.Calls == 0 && u.CacheHits == 0 {
		return
	}
	cost := "unpriced"
	if u.CostUSD != nil && priced {
		cost = fmt.Sprintf("$%.4f", *u.CostUSD)
		if note != "" {
			cost += " (" + note + ")"
		}
	}
	fmt.Fprintf(w, "usage: %d model calls, %d cache hits, %d retries, %s waiting; tokens %d in (%d cached), %d out; cost %s; %s\n",
		u.Calls, u.CacheHits, u.Retries, (time.Duration(u.WaitMS) * time.Millisecond).Round(time.Millisecond),
		u.InputTokens, u.CachedInputTokens, u.OutputTokens, cost, elapsed.Round(time.Millisecond))
}
