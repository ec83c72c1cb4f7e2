// Package store keeps runs, their cases, every attempt at every unit with its trace events, and
// the LLM response cache in a SQL database: SQLite on one machine (a file path: the default), or
// Postgres for many machines (a DSN starting postgres:// or postgresql://).
//
// A unit is one (case, repeat) of a run; each try at it is an attempt, numbered from 0, and every
// attempt is kept with what it cost and its trace: a retry adds a row, it never overwrites one.
// The scored verdict of a unit is its latest attempt that is not an error; a unit whose attempts
// are all errors reports its latest error (so errors are shown and counted apart). Spend counts
// every attempt. Attempts are written in batches, one transaction per batch with their trace
// events, as they finish, so a crash loses nothing that was stored and a run can resume.
//
// Both dialects go through one code path: database/sql, with modernc.org/sqlite (WAL,
// busy_timeout, immediate transactions) or pgx's database/sql driver (github.com/jackc/pgx/v5/stdlib),
// and queries written once with ? placeholders that are rebound to $n for Postgres. pgx's native
// pool would save little here: the statements are plain inserts and ordered scans, pgx caches
// prepared statements per connection behind database/sql too, and one code path means the two
// backends cannot drift apart: every test runs on both. Schemas are goose migrations, embedded,
// one directory per dialect with the same versions and content (Postgres sorts text COLLATE "C",
// byte order, as SQLite does). Times are stored as UTC RFC 3339 text with a fixed nine-digit
// fraction (so they sort as text and keep nanoseconds on both); JSON parts (findings, vex, appsec,
// cases) as JSON text. Text is stored as valid UTF-8 without NUL bytes, which Postgres refuses:
// such bytes become U+FFFD on both backends.
//
// Concurrency: a Store is safe for concurrent use by many goroutines. A SQLite store may also be
// opened by a second process (a resumed run after a SIGKILL); writers take the database lock at
// the start of each transaction and wait for it (busy_timeout). A Postgres store serves several
// processes; migrations are serialised by an advisory lock.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	redaction "github.com/vulnbench/vulnbench/internal/redact"
)

// Run states.
const (
	StateRunning     = "running"
	StateStopping    = "stopping" // asked to start no new unit and finish those in flight
	StateDone        = "done"
	StateInterrupted = "interrupted"
	StateCancelled   = "cancelled"
)

// finalState reports whether a run in state has finished (it has a finish time).
func finalState(state string) bool {
	return state == StateDone || state == StateInterrupted || state == StateCancelled
}

// ErrNotFound is returned when a run, or a case of a run, does not exist.
var ErrNotFound = errors.New("not found")

// ErrExists is returned when a run or an attempt is already stored: nothing is overwritten.
var ErrExists = errors.New("already stored")

// Run is one (suite, subject, configuration, repeats).
type Run struct {
	ID         string
	CreatedAt  time.Time
	FinishedAt time.Time // zero until the run is done, interrupted or cancelled
	State      string
	SuitePath  string
	SuiteHash  string
	Subject    string
	Repeats    int
	Units      int // cases × repeats
	Manifest   json.RawMessage
	Queue      string    // where its units go: QueueLocal (this process's pool, the default) or QueueRiver
	Owner      string    // host:pid of the process that last drove it on the local pool
	Seen       time.Time // that process's last heartbeat (zero: none stored)
}

// Queues a run's units can go to.
const (
	QueueLocal = "local"
	QueueRiver = "river"
)

// Store is the persistence of runs, cases, attempts, traces and the response cache.
type Store struct {
	db            *sql.DB
	dialect       dialect
	dsn           string        // without any password
	retry         time.Duration // how long operations try through an outage (0: DefaultRetry; < 0: not at all)
	opened        bool          // once open, operations ride out outages; opening does not wait for a server
	cache         pendingCache
	caseReads     grouped[caseKey, []byte] // casereads.go: reads of single cases at once, in one statement
	responseReads grouped[string, []byte]  // cache.go: the same for cached answers (Postgres)
	stmts         stmts

	scrubOnce sync.Once // scrub.go: the secrets scrubber of what is stored
	scrubber  *redaction.Scrubber
}

// Open opens the store at dsn, creating and migrating it when needed: a DSN starting
// postgres:// or postgresql:// opens Postgres, anything else is a SQLite file path (an optional
// sqlite:// prefix is dropped).
func Open(ctx context.Context, dsn string) (*Store, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return openPostgres(ctx, dsn)
	}
	return openSQLite(ctx, dsn)
}

// sqliteIdle is how many SQLite connections stay open between uses: more than a run's pool
// holds at once (its workers' cache reads, the group commit, the case source, the state watch).
const sqliteIdle = 64

func openSQLite(ctx context.Context, dsn string) (*Store, error) {
	path := strings.TrimPrefix(dsn, "sqlite://")
	if path == "" {
		return nil, fmt.Errorf("open store: empty database path")
	}
	q := "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_txlock=immediate"
	db, err := sql.Open("sqlite", "file:"+path+q)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// Keep the connections: a new one runs the DSN's PRAGMAs and parses the schema again, and
	// database/sql keeps only 2 idle by default, which a pool of workers churns through.
	db.SetMaxIdleConns(sqliteIdle)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	s := &Store{db: db, dialect: sqliteDialect, dsn: path}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

func openPostgres(ctx context.Context, dsn string) (*Store, error) {
	shown, err := redact(dsn)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	s := &Store{dialect: postgresDialect, dsn: shown}
	db, err := s.openPgx(dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", shown, err)
	}
	s.db = db
	// Many workers of many processes share the server's connections (100 by default).
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(20)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", shown, err)
	}
	return s, nil
}

// redact returns a Postgres URL without its password.
func redact(dsn string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("bad Postgres URL (want postgres://USER@HOST/DB or postgres:///DB?host=/SOCKET/DIR): %w", err)
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.User(u.User.Username())
		}
	}
	if q := u.Query(); q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// init checks the connection and brings the schema up to date.
func (s *Store) init(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return err
	}
	var opts []goose.ProviderOption
	gd := goose.DialectSQLite3
	if s.dialect == postgresDialect {
		gd = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return fmt.Errorf("migrations: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(gd, s.db, migrationsFS(s.dialect), opts...)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	pending, err := p.HasPending(ctx)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if !pending {
		s.opened = true
		return nil
	}
	if _, err := p.Up(ctx); err != nil {
		// Two processes creating one SQLite store at once: the loser's migration fails on what
		// the winner created. The schema is then up to date, which is all that matters.
		if again, perr := p.HasPending(ctx); perr == nil && !again {
			s.opened = true
			return nil
		}
		return fmt.Errorf("migrate: %w", err)
	}
	s.opened = true
	return nil
}

// Close writes the response cache's waiting rows and closes the database.
func (s *Store) Close() error {
	err := s.closeCache()
	s.closeStmts()
	return errors.Join(err, s.db.Close())
}

// DSN returns where the store is: the SQLite path, or the Postgres URL without its password.
func (s *Store) DSN() string { return s.dsn }

// q returns query in the store's dialect.
func (s *Store) q(query string) string { return s.dialect.rebind(query) }

// CreateRun stores a new run; an existing id is refused with an error wrapping ErrExists.
func (s *Store) CreateRun(ctx context.Context, r *Run) error {
	return s.createRun(ctx, s.db, r)
}

func (s *Store) createRun(ctx context.Context, db execer, r *Run) error {
	manifest := string(r.Manifest)
	if manifest == "" {
		manifest = "{}"
	}
	queue := r.Queue
	if queue == "" {
		queue = QueueLocal
	}
	_, err := db.ExecContext(ctx, s.q(`INSERT INTO runs (id, created_at, finished_at, state, suite_path, suite_hash, subject, repeats, units, manifest, queue)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		clean(r.ID), dbTime(r.CreatedAt), dbTime(r.FinishedAt), r.State, clean(r.SuitePath), r.SuiteHash, clean(r.Subject), r.Repeats, r.Units, clean(manifest), queue)
	if isUniqueViolation(err) {
		return fmt.Errorf("create run %s: %w", r.ID, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("create run %s: %w", r.ID, err)
	}
	return nil
}

// GetRun returns the run with id, or an error wrapping ErrNotFound that says how to list runs.
func (s *Store) GetRun(ctx context.Context, id string) (*Run, error) {
	rows, err := s.queryRuns(ctx, `WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("run %s: %w in %s (list runs with: vulnbench runs --db %s)", id, ErrNotFound, s.dsn, shellQuote(s.dsn))
	}
	return &rows[0], nil
}

// shellQuote quotes s for a shell command line when it needs it (a Postgres URL's ? and &).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Runs lists every run, oldest first.
func (s *Store) Runs(ctx context.Context) ([]Run, error) {
	return s.queryRuns(ctx, `ORDER BY created_at, id`)
}

func (s *Store) queryRuns(ctx context.Context, where string, args ...any) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, created_at, COALESCE(finished_at, ''), state, suite_path, suite_hash, subject, repeats, units, manifest, queue,
		COALESCE(owner, ''), COALESCE(seen_at, '') FROM runs `+where), args...)
	if err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var created, finished, manifest, seen string
		if err := rows.Scan(&r.ID, &created, &finished, &r.State, &r.SuitePath, &r.SuiteHash, &r.Subject, &r.Repeats, &r.Units, &manifest, &r.Queue,
			&r.Owner, &seen); err != nil {
			return nil, fmt.Errorf("read runs: %w", err)
		}
		r.CreatedAt, r.FinishedAt, r.Seen = parseTime(created), parseTime(finished), parseTime(seen)
		r.Manifest = json.RawMessage(manifest)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	return out, nil
}

// SetState records a run's state. Done, interrupted and cancelled set its finish time; running
// and stopping clear it. An unknown run is an error wrapping ErrNotFound.
func (s *Store) SetState(ctx context.Context, id, state string) error {
	return s.retrying(ctx, func() error { return s.setState(ctx, s.db, id, state) })
}

func (s *Store) setState(ctx context.Context, db execer, id, state string) error {
	switch state {
	case StateRunning, StateStopping, StateDone, StateInterrupted, StateCancelled:
	default:
		return fmt.Errorf("set state of run %s: unknown state %q", id, state)
	}
	var finished any
	if finalState(state) {
		finished = dbTime(time.Now())
	}
	res, err := db.ExecContext(ctx, s.q(`UPDATE runs SET state = ?, finished_at = ? WHERE id = ?`), state, finished, id)
	if err != nil {
		return fmt.Errorf("set state of run %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("set state of run %s: %w", id, ErrNotFound)
	}
	return nil
}
