//go:build unix

package snapshot

import (
	"context"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on name (created if needed), waiting for another process
// to release it; ctx ends the wait. held reports a real lock (always, here).
func lockFile(ctx context.Context, name string) (unlock func(), held bool, err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", name, err)
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
			return nil, false, fmt.Errorf("lock %s: %w", name, err)
		}
		return func() { f.Close() }, true, nil // closing the file releases the lock
	case <-ctx.Done():
		go func() { // the lock may still come: release it then
			<-got
			f.Close()
		}()
		return nil, false, ctx.Err()
	}
}
