package store

import (
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
