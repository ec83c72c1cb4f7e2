package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// dialect is the SQL flavour of a store: the queries are written once, with ? placeholders.
type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

func (d dialect) name() string {
	if d == postgresDialect {
		return "postgres"
	}
	return "sqlite"
}

// rebind turns the ? placeholders of q into Postgres's $1, $2, ... (the queries hold no ? in
// literals).
func (d dialect) rebind(q string) string {
	if d != postgresDialect || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// isUniqueViolation reports whether err is a primary-key or unique constraint refusing a row.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == 1555 || se.Code() == 2067 // SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_UNIQUE
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505" // unique_violation
	}
	return false
}

// timeLayout is RFC 3339 with a fixed nine-digit fraction, so that stored times sort as text.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// dbTime is t as stored: UTC text, or NULL for the zero time.
func dbTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(timeLayout)
}

// parseTime reads a stored time (wave 1 wrote RFC 3339 with a variable fraction; both parse).
func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// clean makes s storable in both dialects: Postgres refuses NUL bytes and invalid UTF-8 in text,
// so both become U+FFFD, on SQLite too, so that the two stores read back the same.
func clean(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// text is s cleaned, or NULL when empty.
func text(s string) any {
	if s == "" {
		return nil
	}
	return clean(s)
}

// maxParams bounds the parameters of one statement (SQLite allows 32,766, Postgres 65,535).
const maxParams = 4000

// insertMany inserts rows into table with multi-row INSERT statements, a few thousand values at a
// time: one round trip per chunk instead of one per row, which is what makes Postgres fast here.
func (s *Store) insertMany(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) error {
	return s.insertRows(ctx, tx, table, cols, rows, "")
}

// insertRows is insertMany with suffix (an ON CONFLICT clause) after each statement's rows.
func (s *Store) insertRows(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any, suffix string) error {
	per := max(1, maxParams/len(cols))
	var full string // the statement for a full chunk, built once
	for len(rows) > 0 {
		n := min(per, len(rows))
		q := full
		if q == "" || n < per {
			q = s.q(multiInsert(table, cols, n) + suffix)
			if n == per {
				full = q
			}
		}
		args := make([]any, 0, n*len(cols))
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		if _, err := s.execIn(ctx, tx, q, args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// multiInsert returns INSERT INTO table (cols) VALUES (?, ...), ... for n rows.
func multiInsert(table string, cols []string, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
	row := "(" + strings.Repeat("?, ", len(cols)-1) + "?)"
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}
