//go:build unix

package fetch

import (
	"context"
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive flock on name (created if needed), waiting for another process to
// release it; ctx ends the wait. Its holder may remove name (a failed clone leaves no lock file):
// a lock taken on a file no longer at name is taken again on the new one.
func lock(ctx context.Context, name string) (unlock func(), err error) {
	for {
		unlock, same, err := lockOnce(ctx, name)
		if err != nil || same {
			return unlock, err
		}
		unlock()
	}
}

// lockOnce locks the file at name and says whether it is still the file at name.
func lockOnce(ctx context.Context, name string) (unlock func(), same bool, err error) {
	unlock, f, err := flock(ctx, name)
	if err != nil {
		return nil, false, err
	}
	held, err1 := f.Stat()
	now, err2 := os.Stat(name)
	return unlock, err1 == nil && err2 == nil && os.SameFile(held, now), nil
}

func flock(ctx context.Context, name string) (unlock func(), file *os.File, err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("lock: %w", err)
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
			return nil, nil, fmt.Errorf("lock %s: %w", name, err)
		}
		return func() { f.Close() }, f, nil // closing the file releases the lock
	case <-ctx.Done():
		go func() { // the lock may still come: release it then
			<-got
			f.Close()
		}()
		return nil, nil, ctx.Err()
	}
}
