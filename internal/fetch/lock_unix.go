//go:build unix

package fetch

import (
	"context"
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive flock on name (created if needed), waiting for another process to
// release it; ctx ends the wait.
func lock(ctx context.Context, name string) (unlock func(), err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	got := make(chan error, 1)
	go func() {
		for {
			err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
			if err != syscall.EINTR {
				got <- err
				return
			}
		}
	}()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		return func() { f.Close() }, nil // closing the file releases the lock
	case <-ctx.Done():
		go func() { // the lock may still come: release it then
			<-got
			f.Close()
		}()
		return nil, ctx.Err()
	}
}
