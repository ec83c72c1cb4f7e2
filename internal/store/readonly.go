package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrSchema is returned by OpenReadOnly for a store whose schema is not this binary's.
var ErrSchema = errors.New("schema version")

// OpenReadOnly opens an existing store for reading only, as score, report, export, serve and
// runs do: no migration and no write of any kind, so an archived result (a read-only file in a
// directory nobody may write) opens as well as a live store. SQLite is opened with mode=ro, and
// as immutable (no lock, no -shm or -wal file: nothing is created beside it) when it is
// archived: the file or its directory is not writable, and no -wal file holds writes not yet in
// it. Postgres sessions are read-only (default_transaction_read_only). A schema older than this
// binary's is refused with what to do: the read commands never migrate.
func OpenReadOnly(ctx context.Context, dsn string) (*Store, error) {
	var s *Store
	var err error
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		s, err = openPostgresReadOnly(dsn)
	} else {
		s, err = openSQLiteReadOnly(dsn)
	}
	if err != nil {
		return nil, err
	}
	if err := s.checkSchema(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open store %s: %w", s.dsn, err)
	}
	return s, nil
}

func openSQLiteReadOnly(dsn string) (*Store, error) {
	path := strings.TrimPrefix(dsn, "sqlite://")
	if path == "" {
		return nil, errors.New("open store: empty database path")
	}
	q := "?mode=ro&_pragma=busy_timeout(20000)&_pragma=query_only(1)"
	if archived(path) {
		q += "&immutable=1"
	}
	db, err := sql.Open("sqlite", "file:"+path+q)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return &Store{db: db, dialect: sqliteDialect, dsn: path}, nil
}

// archived reports whether a SQLite store cannot be written here (the file or its directory has
// no write permission, for anyone, or for this user) and has no -wal file: nothing writes it.
func archived(path string) bool {
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return false
	}
	dir := filepath.Dir(path)
	for _, p := range []string{path, dir} {
		fi, err := os.Stat(p)
		if err != nil {
			return false
		}
		if fi.Mode().Perm()&0o222 == 0 || syscall.Access(p, 0x2) != nil /* W_OK */ {
			return true
		}
	}
	return false
}

func openPostgresReadOnly(dsn string) (*Store, error) {
	shown, err := redact(dsn)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", shown, err)
	}
	q := u.Query()
	q.Set("default_transaction_read_only", "on")
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", shown, err)
	}
	db.SetMaxOpenConns(4)
	return &Store{db: db, dialect: postgresDialect, dsn: shown}, nil
}

// SchemaVersion returns the store's schema version and the one this binary's migrations reach.
func (s *Store) SchemaVersion(ctx context.Context) (have, want int64, err error) {
	if want, err = latestMigration(migrationsFS(s.dialect)); err != nil {
		return 0, 0, err
	}
	var v sql.NullInt64
	err = s.db.QueryRowContext(ctx, `SELECT MAX(version_id) FROM goose_db_version WHERE is_applied`).Scan(&v)
	if err != nil {
		if pingErr := s.db.PingContext(ctx); pingErr != nil {
			return 0, want, pingErr
		}
		return 0, want, fmt.Errorf("not a vulnbench store (no schema version: %v)", err)
	}
	return v.Int64, want, nil
}

// checkSchema refuses a store whose schema is not this binary's, saying what to do.
func (s *Store) checkSchema(ctx context.Context) error {
	have, want, err := s.SchemaVersion(ctx)
	switch {
	case err != nil:
		return err
	case have < want:
		return fmt.Errorf("%w: schema v%d, this binary expects v%d: migrate it once with vulnbench migrate --db %s "+
			"(read commands never write), or read it with the vulnbench that wrote it", ErrSchema, have, want, shellQuote(s.dsn))
	case have > want:
		return fmt.Errorf("%w: schema v%d is newer than this binary's v%d: use a newer vulnbench", ErrSchema, have, want)
	}
	return nil
}

// latestMigration is the highest version among the migration files of fsys (NNNNN_name.sql).
func latestMigration(fsys fs.FS) (int64, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return 0, err
	}
	var latest int64
	for _, n := range names {
		v, err := strconv.ParseInt(strings.SplitN(n, "_", 2)[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("migration %s: %w", n, err)
		}
		latest = max(latest, v)
	}
	return latest, nil
}

// HasPassword reports whether a store's address carries a Postgres password:
// postgres://USER:PASS@..., or password=... in its parameters or a key=value string.
func HasPassword(dsn string) bool {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return strings.Contains(dsn, "password")
		}
		if _, ok := u.User.Password(); ok {
			return true
		}
		return u.Query().Has("password")
	}
	for _, kv := range strings.Fields(dsn) {
		if strings.HasPrefix(kv, "password=") {
			return true
		}
	}
	return false
}
