package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
)

// DefaultRetry is how long a store operation keeps trying through a database outage (a
// restarted or failed-over Postgres) before it gives up: --store-retry.
const DefaultRetry = 30 * time.Second

// SetRetry sets how long store operations keep trying through an outage (0: they fail at once).
func (s *Store) SetRetry(d time.Duration) {
	if d <= 0 {
		d = -1
	}
	s.retry = d
}

func (s *Store) retryFor() time.Duration {
	switch {
	case !s.opened:
		return 0
	case s.retry == 0:
		return DefaultRetry
	case s.retry < 0:
		return 0
	}
	return s.retry
}

// openPgx opens Postgres through pgx's connector, wrapped so that a new connection waits for a
// server that is away (restarting, failing over) as long as the store's retry time allows.
func (s *Store) openPgx(dsn string) (*sql.DB, error) {
	c, err := stdlib.GetDefaultDriver().(driver.DriverContext).OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(retryConnector{Connector: c, s: s}), nil
}

type retryConnector struct {
	driver.Connector
	s *Store
}

func (c retryConnector) Connect(ctx context.Context) (driver.Conn, error) {
	var conn driver.Conn
	err := c.s.retrying(ctx, func() error {
		var err error
		conn, err = c.Connector.Connect(ctx)
		return err
	})
	return conn, err
}

// transient reports whether err is the database being away (a connection refused, lost or shut
// down by the server, the server starting up) or a transaction the server asks to be retried,
// rather than a statement refused for what it is.
func transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case len(pe.Code) == 5 && pe.Code[:2] == "08": // connection exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // shut down, crashed, starting up
			return true
		case pe.Code == "40001", pe.Code == "40P01": // serialization failure, deadlock
			return true
		}
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()&0xff == 5 || se.Code()&0xff == 6 // SQLITE_BUSY, SQLITE_LOCKED past busy_timeout
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ENOENT) ||
		pgconn.SafeToRetry(err) || isConnClosed(err)
}

// isConnClosed is pgx's "conn closed": a connection the server dropped, found on its next use.
func isConnClosed(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "conn closed" {
			return true
		}
	}
	return false
}

// backoff is the wait before try n (from 0) of a retried operation: 50 ms doubling to 2 s.
func backoff(n int) time.Duration {
	return min(50*time.Millisecond<<min(n, 6), 2*time.Second)
}

// retrying runs op until it succeeds, fails for good, or the store's retry time has passed
// since the first failure.
func (s *Store) retrying(ctx context.Context, op func() error) error {
	var until time.Time
	for n := 0; ; n++ {
		err := op()
		if err == nil || !transient(err) || ctx.Err() != nil || s.retryFor() == 0 {
			return err
		}
		if until.IsZero() {
			until = time.Now().Add(s.retryFor())
		}
		wait := backoff(n)
		if time.Now().Add(wait).After(until) {
			return fmt.Errorf("database unavailable for %s: %w", s.retryFor(), err)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// retryTx runs fn in one transaction, committed when fn returns nil, and runs it again in a
// new transaction when the database went away meanwhile, as long as the store's retry time
// allows. A retried transaction never applies twice: on Postgres each one learns its
// transaction id first, and a commit whose answer was lost is looked up (pg_xact_status) before
// anything is run again; SQLite's commits are local and never in doubt.
func (s *Store) retryTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.retrying(ctx, func() error {
		xid, err := s.tryTx(ctx, fn)
		if err == nil || xid == "" || !transient(err) {
			return err
		}
		// The commit was sent and its answer lost: it may have been applied.
		var applied bool
		if cerr := s.retrying(ctx, func() error {
			var st sql.NullString
			if err := s.db.QueryRowContext(ctx, `SELECT pg_xact_status($1::xid8)`, xid).Scan(&st); err != nil {
				return err
			}
			if st.String == "in progress" {
				return driver.ErrBadConn // the server has not finished it: ask again
			}
			applied = st.String == "committed"
			return nil
		}); cerr != nil {
			return fmt.Errorf("%w (and whether its commit was applied is unknown: %v)", err, cerr)
		}
		if applied {
			return nil
		}
		return err
	})
}

// tryTx runs fn in one transaction. When the commit itself fails it returns the transaction's
// id (Postgres), to find out whether it was applied.
func (s *Store) tryTx(ctx context.Context, fn func(*sql.Tx) error) (xid string, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	if s.dialect == postgresDialect && s.retryFor() > 0 {
		if err := tx.QueryRowContext(ctx, `SELECT pg_current_xact_id()::text`).Scan(&xid); err != nil {
			return "", err
		}
	}
	if err := fn(tx); err != nil {
		return "", err
	}
	if err := tx.Commit(); err != nil {
		return xid, err
	}
	return "", nil
}
