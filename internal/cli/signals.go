package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// onSignals runs first on the first SIGINT or SIGTERM and second (when not nil) on the next one,
// until the returned release is called (defer it): run's and worker's soft stop, then hard stop.
func onSignals(first, second func()) (release func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for _, f := range []func(){first, second} {
			select {
			case <-sigs:
				if f != nil {
					f()
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
