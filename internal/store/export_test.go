package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// SetCacheDelay sets how long an answer with no attempt after it waits to be written.
func SetCacheDelay(s *Store, d time.Duration) {
	s.cache.mu.Lock()
	s.cache.delay = d
	s.cache.mu.Unlock()
}

// backends are the stores every test runs on: a name and a function returning a fresh DSN.
var backends = []struct {
	name string
	dsn  func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "v.db") }},
	{"postgres", pgtest.DSN},
}

// ForEachBackend runs fn as a subtest on each backend with the DSN of a fresh store.
func ForEachBackend(t *testing.T, fn func(t *testing.T, dsn string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b.dsn(t)) })
	}
}

// ForEachBackendB is ForEachBackend for benchmarks.
func ForEachBackendB(b *testing.B, fn func(b *testing.B, dsn string)) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) { fn(b, be.dsn(b)) })
	}
}

// OpenT opens dsn and closes the store when t ends.
func OpenT(t *testing.T, dsn string) *Store {
	t.Helper()
	st, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Exec runs a statement written with ? placeholders on st's database, for tests that look under
// the API (the CWE tables are for SQL users).
func (s *Store) Exec(ctx context.Context, query string, args ...any) error {
	_, err := s.db.ExecContext(ctx, s.q(query), args...)
	return err
}

// QueryStrings runs a query of one text column.
func (s *Store) QueryStrings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
