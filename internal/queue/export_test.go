package queue

import (
	"context"
	"runtime"
	"sync"

	"github.com/vulnbench/vulnbench/internal/store"
)

// GroupCommit puts as, attempts of run, through one committer (with no jobs to complete), every
// put waiting before the committer starts, so that they go in one group; it returns each put's
// error.
func GroupCommit(st *store.Store, run string, as []store.Attempt) []error {
	c := newCommitter(st, nil, len(as))
	errs := make([]error, len(as))
	var wg sync.WaitGroup
	for i, a := range as {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.put(run, 0, a) }()
	}
	for len(c.in) < len(as) {
		runtime.Gosched()
	}
	done := make(chan struct{})
	go func() { c.run(context.Background()); close(done) }()
	wg.Wait()
	c.close()
	<-done
	return errs
}
