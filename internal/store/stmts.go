package store

import (
	"context"
	"database/sql"
	"sync"
)

// stmts keeps the hot path's statements prepared, on SQLite: modernc parses a statement's text
// every time it is not prepared (for a plain-LLM run, the parse of the cache read, the attempt
// insert and the multi-row inserts was about a seventh of the process's CPU). database/sql
// prepares a kept statement once per connection, and connections are kept. Postgres is left as
// is: pgx caches its prepared statements per connection by itself.
type stmts struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// maxStmts bounds the statements kept (multi-row inserts have one text per row count).
const maxStmts = 256

// stmt returns query (in the store's dialect) prepared, or nil where statements are not kept
// (Postgres, or when maxStmts are kept already): the caller then sends the text.
func (s *Store) stmt(ctx context.Context, query string) *sql.Stmt {
	if s.dialect != sqliteDialect {
		return nil
	}
	c := &s.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st
	}
	if len(c.m) >= maxStmts {
		return nil
	}
	st, err := s.db.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil // the text is sent instead, and its error reported there
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = st
	return st
}

// execIn runs query (in the store's dialect) in tx, prepared when the store keeps it.
func (s *Store) execIn(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := s.stmt(ctx, query); st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// closeStmts closes the kept statements.
func (s *Store) closeStmts() {
	c := &s.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
