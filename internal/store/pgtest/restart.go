package pgtest

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Restart stops the test binary's cluster (a fast shutdown: every session is cut off, as a
// restarted or failed-over server does), keeps it down for down, and starts it again on the
// same data and socket: what a store sees in a database outage. The cluster must be running.
func Restart(down time.Duration) error {
	mu.Lock()
	defer mu.Unlock()
	c := running
	if c == nil {
		return errors.New("pgtest: restart: no cluster is running")
	}
	c.admin.Close(context.Background())
	c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
		<-c.exited
	}
	time.Sleep(down)
	if err := c.launch(); err != nil {
		return fmt.Errorf("pgtest: restart: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, c.dsn("postgres"))
	if err != nil {
		return fmt.Errorf("pgtest: restart: connect: %w", err)
	}
	c.admin = admin
	return nil
}
