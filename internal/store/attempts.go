package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Attempt is one try at a unit: its verdict (CaseID, Repeat and Attempt name the unit and the
// try), the trace events it recorded, and when it started and finished.
type Attempt struct {
	Verdict           verdict.Verdict
	Events            []trace.Event
	Started, Finished time.Time
}

// UnitState sums up the stored attempts of one unit.
type UnitState struct {
	CaseID string
	Repeat int
	// Attempts is one past the highest stored attempt number: the number of the next attempt
	// (and the count of attempts, which are numbered 0, 1, ...).
	Attempts int
	// Scored: at least one attempt is not an error, so the unit has a scored verdict.
	Scored bool
	// LastStatus is the status of the latest attempt.
	LastStatus verdict.Status
}

var attemptColumns = []string{"run_id", "case_id", "repeat_idx", "attempt", "status", "label", "score", "score_source", "confidence",
	"cwe", "category", "explanation", "reason", "raw", "findings", "vex", "appsec",
	"input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens", "cost_usd",
	"wall_ms", "tool_calls", "calls", "retries", "cache_hits", "wait_ms", "started_at", "finished_at"}

var eventColumns = []string{"run_id", "case_id", "repeat_idx", "attempt", "seq", "time", "kind", "name", "call_id", "args", "content",
	"input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens", "cost_usd", "latency_ms", "cached"}

// PutAttempts stores attempts of a run and their trace events in one transaction: all of them or
// none; the response cache's waiting rows go in the same transaction. An attempt whose (case, repeat, attempt) is already stored is refused with an error
// wrapping ErrExists: nothing is ever overwritten.
func (s *Store) PutAttempts(ctx context.Context, runID string, as []Attempt) error {
	if len(as) == 0 {
		return nil
	}
	// A try that failed (and is tried again) puts its cache rows back first, for the next try to
	// write: each try takes what waits.
	var cacheDone func(committed bool)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if cacheDone != nil {
			cacheDone(false)
			cacheDone = nil
		}
		var err error
		if cacheDone, err = s.writeCache(ctx, tx); err != nil {
			return err
		}
		return s.putAttempts(ctx, tx, runID, as)
	})
	if cacheDone != nil {
		cacheDone(err == nil)
	}
	if err != nil {
		return fmt.Errorf("store attempts of run %s: %w", runID, err)
	}
	return nil
}

func (s *Store) putAttempts(ctx context.Context, tx *sql.Tx, runID string, as []Attempt) error {
	var attempts, events, cwes [][]any
	now := time.Now()
	for i := range as {
		a := &as[i]
		v := &a.Verdict
		if v.CaseID == "" {
			return fmt.Errorf("attempt %d of the batch has no case id", i)
		}
		findings, err := jsonText(v.Findings, len(v.Findings) == 0)
		if err != nil {
			return fmt.Errorf("case %s: %w", v.CaseID, err)
		}
		vex, err := jsonText(v.VEX, v.VEX == nil)
		if err != nil {
			return fmt.Errorf("case %s: %w", v.CaseID, err)
		}
		appsec, err := jsonText(v.AppSec, v.AppSec == nil)
		if err != nil {
			return fmt.Errorf("case %s: %w", v.CaseID, err)
		}
		caseID := clean(v.CaseID)
		u := &v.Usage
		attempts = append(attempts, []any{runID, caseID, v.Repeat, v.Attempt, string(v.Status), text(string(v.Label)), v.Score,
			text(string(v.ScoreSource)), v.Confidence, text(strings.Join(v.CWE, ",")), text(v.Category), text(s.scrub(v.Explanation)),
			text(s.scrub(v.Reason)), text(s.scrub(v.Raw)), findings, vex, appsec,
			u.InputTokens, u.CachedInputTokens, u.CacheWriteTokens, u.OutputTokens, u.ReasoningTokens, u.CostUSD,
			u.WallMS, u.ToolCalls, u.Calls, u.Retries, u.CacheHits, u.WaitMS, dbTime(a.Started), dbTime(a.Finished)})
		for _, cwe := range distinct(v.CWE) {
			cwes = append(cwes, []any{runID, caseID, v.Repeat, v.Attempt, clean(cwe)})
		}
		for j := range a.Events {
			e := &a.Events[j]
			t := e.Time // a time is required: else the attempt's end, else now
			if t.IsZero() {
				t = a.Finished
			}
			if t.IsZero() {
				t = now
			}
			events = append(events, []any{runID, caseID, v.Repeat, v.Attempt, e.Seq, dbTime(t), string(e.Kind),
				text(e.Name), text(e.CallID), text(s.scrub(e.Args)), text(s.scrub(e.Content)), e.Usage.InputTokens, e.Usage.CachedInputTokens,
				e.Usage.CacheWriteTokens, e.Usage.OutputTokens, e.Usage.ReasoningTokens, e.CostUSD, e.LatencyMS, e.Cached})
		}
	}
	if err := s.insertAttemptRows(ctx, tx, as, attempts); err != nil {
		return err
	}
	if err := s.insertMany(ctx, tx, "attempt_cwes", []string{"run_id", "case_id", "repeat_idx", "attempt", "cwe"}, cwes); err != nil {
		return fmt.Errorf("CWEs of the attempts: %w", err)
	}
	if err := s.insertMany(ctx, tx, "trace_events", eventColumns, events); err != nil {
		return fmt.Errorf("trace events: %w", err)
	}
	return nil
}

// insertAttemptRows inserts the attempts' rows. On Postgres they go in multi-row statements (a
// round trip each, for a group commit of many units); a refused one is named by Postgres's
// detail (the key that exists). SQLite, in process, takes them one at a time through its kept
// statement, so that a refused attempt is named.
func (s *Store) insertAttemptRows(ctx context.Context, tx *sql.Tx, as []Attempt, rows [][]any) error {
	if s.dialect != sqliteDialect {
		err := s.insertMany(ctx, tx, "attempts", attemptColumns, rows)
		var pe *pgconn.PgError
		switch {
		case err == nil:
			return nil
		case isUniqueViolation(err) && errors.As(err, &pe):
			return fmt.Errorf("attempt %s: %w", strings.TrimSuffix(strings.TrimPrefix(pe.Detail, "Key "), " already exists."), ErrExists)
		case isUniqueViolation(err):
			return fmt.Errorf("an attempt of the batch: %w", ErrExists)
		}
		return fmt.Errorf("attempts: %w", err)
	}
	q := s.q(multiInsert("attempts", attemptColumns, 1))
	for i, args := range rows {
		if _, err := s.execIn(ctx, tx, q, args...); err != nil {
			v := &as[i].Verdict
			if isUniqueViolation(err) {
				return fmt.Errorf("attempt %d of case %s (repeat %d): %w", v.Attempt, v.CaseID, v.Repeat, ErrExists)
			}
			return fmt.Errorf("attempt %d of case %s (repeat %d): %w", v.Attempt, v.CaseID, v.Repeat, err)
		}
	}
	return nil
}

// jsonText is v as JSON text, or NULL when empty.
func jsonText(v any, empty bool) (any, error) {
	if empty {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// Units calls fn once for every unit of a run that has at least one attempt, ordered by case and
// repeat. The runner skips the units that are Scored and numbers the next attempt of the others.
func (s *Store) Units(ctx context.Context, runID string, fn func(UnitState)) error {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT case_id, repeat_idx, attempt, status FROM attempts
		WHERE run_id = ? ORDER BY case_id, repeat_idx, attempt`), runID)
	if err != nil {
		return fmt.Errorf("read units of run %s: %w", runID, err)
	}
	defer rows.Close()
	var cur UnitState
	have := false
	var caseID string
	var rep, attempt int
	var status []byte
	for rows.Next() {
		if err := rows.Scan(&caseID, &rep, &attempt, &status); err != nil {
			return fmt.Errorf("read units of run %s: %w", runID, err)
		}
		if have && (caseID != cur.CaseID || rep != cur.Repeat) {
			fn(cur)
			have = false
		}
		if !have {
			cur, have = UnitState{CaseID: caseID, Repeat: rep}, true
		}
		st := statusOf(status)
		cur.Attempts = max(cur.Attempts, attempt+1)
		cur.LastStatus = st
		if st != verdict.Error {
			cur.Scored = true
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read units of run %s: %w", runID, err)
	}
	if have {
		fn(cur)
	}
	return nil
}

// statusOf returns the stored status b without allocating for the three known ones.
func statusOf(b []byte) verdict.Status {
	switch string(b) {
	case string(verdict.OK):
		return verdict.OK
	case string(verdict.Failed):
		return verdict.Failed
	case string(verdict.Error):
		return verdict.Error
	}
	return verdict.Status(b)
}

func labelOf(b []byte) suite.Label {
	switch string(b) {
	case "":
		return ""
	case string(suite.Vul):
		return suite.Vul
	case string(suite.Ben):
		return suite.Ben
	}
	return suite.Label(b)
}

func sourceOf(b []byte) verdict.ScoreSource {
	switch string(b) {
	case "":
		return ""
	case string(verdict.FromLogprob):
		return verdict.FromLogprob
	case string(verdict.FromStated):
		return verdict.FromStated
	case string(verdict.FromTool):
		return verdict.FromTool
	}
	return verdict.ScoreSource(b)
}

func float(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return verdict.Float(f.Float64)
}

func splitCWE(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// scanner reads one row into a verdict.
type scanner func(*sql.Rows) (verdict.Verdict, error)

// eachScored calls fn with the scored verdict of each unit among rows ordered by case, repeat and
// attempt: the latest attempt that is not an error, else the latest error.
func eachScored(rows *sql.Rows, scan scanner, fn func(verdict.Verdict) error) error {
	var cur verdict.Verdict
	have := false
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		if have && (v.CaseID != cur.CaseID || v.Repeat != cur.Repeat) {
			if err := fn(cur); err != nil {
				return err
			}
			have = false
		}
		if !have || v.Status != verdict.Error || cur.Status == verdict.Error {
			cur, have = v, true
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if have {
		return fn(cur)
	}
	return nil
}

// errFromFn marks an error that a caller's function returned: it is passed on as is.
type errFromFn struct{ err error }

func (e errFromFn) Error() string { return e.err.Error() }

// each runs query and calls fn with each verdict scan reads, or with only the scored verdict of
// each unit. Errors of fn are returned as they are; the store's own are wrapped with what.
func (s *Store) each(ctx context.Context, what, query string, args []any, scan scanner, scored bool, fn func(verdict.Verdict) error) error {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	wrapped := func(v verdict.Verdict) error {
		if err := fn(v); err != nil {
			return errFromFn{err}
		}
		return nil
	}
	if scored {
		err = eachScored(rows, scan, wrapped)
	} else {
		for rows.Next() {
			var v verdict.Verdict
			if v, err = scan(rows); err != nil {
				break
			}
			if err = wrapped(v); err != nil {
				break
			}
		}
		if err == nil {
			err = rows.Err()
		}
	}
	if fe, ok := err.(errFromFn); ok {
		return fe.err
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// labelColumns is what Labels reads. The small fields travel packed in one text column, "repeat
// attempt tool_calls status label score_source": the SQLite driver pays for every column it
// reads (a locked call for its type, another for its value and an allocation for text), so five
// columns cost much less than ten; the floats stay columns of their own, exact.
const labelColumns = `SELECT case_id,
		CAST(repeat_idx AS TEXT) || ' ' || CAST(attempt AS TEXT) || ' ' || CAST(tool_calls AS TEXT) || ' ' || status || ' ' ||
			COALESCE(label, '') || ' ' || COALESCE(score_source, ''),
		score, confidence, cwe
	FROM attempts WHERE run_id = ? ORDER BY case_id, repeat_idx, attempt`

// labelScanner returns a scanner for labelColumns. Its destinations are allocated once per query,
// not once per row, and CWE lists, which repeat, are read as shared strings.
func labelScanner() scanner {
	var caseID string
	var packed, cwe sql.RawBytes
	var score, confidence sql.NullFloat64
	dest := []any{&caseID, &packed, &score, &confidence, &cwe}
	cwes := map[string]string{}
	return func(rows *sql.Rows) (verdict.Verdict, error) {
		var v verdict.Verdict
		if err := rows.Scan(dest...); err != nil {
			return v, err
		}
		v.CaseID = caseID
		var f [6][]byte
		rest := []byte(packed)
		for i := range f {
			if i == len(f)-1 {
				f[i] = rest
				break
			}
			j := bytes.IndexByte(rest, ' ')
			if j < 0 {
				return v, fmt.Errorf("case %s: bad packed row %q", v.CaseID, packed)
			}
			f[i], rest = rest[:j], rest[j+1:]
		}
		var err1, err2, err3 error
		v.Repeat, err1 = atoi(f[0])
		v.Attempt, err2 = atoi(f[1])
		v.Usage.ToolCalls, err3 = atoi(f[2])
		if err := errors.Join(err1, err2, err3); err != nil {
			return v, fmt.Errorf("case %s: %w", v.CaseID, err)
		}
		v.Status, v.Label, v.ScoreSource = statusOf(f[3]), labelOf(f[4]), sourceOf(f[5])
		v.Score, v.Confidence = float(score), float(confidence)
		if len(cwe) > 0 {
			list, ok := cwes[string(cwe)] // no allocation for the lookup
			if !ok {
				list = string(cwe)
				if len(cwes) < 10000 {
					cwes[list] = list
				}
			}
			v.CWE = strings.Split(list, ",")
		}
		return v, nil
	}
}

// atoi parses a decimal integer without allocating.
func atoi(b []byte) (int, error) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, fmt.Errorf("bad integer %q", b)
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad integer %q", b)
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// Labels calls fn with the scored verdict of every unit of a run (see Verdicts), holding only what
// scoring reads: case, repeat, attempt, status, label, score, score source, confidence, CWE list
// and tool calls. It is much cheaper than Verdicts for big runs.
func (s *Store) Labels(ctx context.Context, runID string, fn func(verdict.Verdict) error) error {
	return s.each(ctx, "read verdicts of run "+runID, labelColumns, []any{runID}, labelScanner(), true, fn)
}

const verdictColumns = `SELECT case_id, repeat_idx, attempt, status, COALESCE(label, ''), score, COALESCE(score_source, ''), confidence,
		COALESCE(cwe, ''), COALESCE(category, ''), COALESCE(explanation, ''), COALESCE(reason, ''), COALESCE(raw, ''),
		COALESCE(findings, ''), COALESCE(vex, ''), COALESCE(appsec, ''),
		input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost_usd,
		wall_ms, tool_calls, calls, retries, cache_hits, wait_ms
	FROM attempts `

func scanVerdict(rows *sql.Rows) (verdict.Verdict, error) {
	var v verdict.Verdict
	var status, label, source, cwe, findings, vex, appsec string
	var score, confidence, cost sql.NullFloat64
	u := &v.Usage
	if err := rows.Scan(&v.CaseID, &v.Repeat, &v.Attempt, &status, &label, &score, &source, &confidence,
		&cwe, &v.Category, &v.Explanation, &v.Reason, &v.Raw, &findings, &vex, &appsec,
		&u.InputTokens, &u.CachedInputTokens, &u.CacheWriteTokens, &u.OutputTokens, &u.ReasoningTokens, &cost,
		&u.WallMS, &u.ToolCalls, &u.Calls, &u.Retries, &u.CacheHits, &u.WaitMS); err != nil {
		return v, err
	}
	v.Status, v.Label, v.ScoreSource = verdict.Status(status), suite.Label(label), verdict.ScoreSource(source)
	v.Score, v.Confidence, u.CostUSD = float(score), float(confidence), float(cost)
	v.CWE = splitCWE(cwe)
	if findings != "" {
		if err := json.Unmarshal([]byte(findings), &v.Findings); err != nil {
			return v, fmt.Errorf("findings of case %s: %w", v.CaseID, err)
		}
	}
	if vex != "" {
		v.VEX = new(verdict.VEX)
		if err := json.Unmarshal([]byte(vex), v.VEX); err != nil {
			return v, fmt.Errorf("vex answer of case %s: %w", v.CaseID, err)
		}
	}
	if appsec != "" {
		v.AppSec = new(verdict.AppSec)
		if err := json.Unmarshal([]byte(appsec), v.AppSec); err != nil {
			return v, fmt.Errorf("appsec answer of case %s: %w", v.CaseID, err)
		}
	}
	return v, nil
}

// Verdicts calls fn with the scored verdict of every unit of a run, whole, ordered by case id
// (byte order) and repeat: the unit's latest attempt that is not an error, or, when all its
// attempts are errors, its latest error. It stops at, and returns, the first error fn returns.
func (s *Store) Verdicts(ctx context.Context, runID string, fn func(verdict.Verdict) error) error {
	return s.each(ctx, "read verdicts of run "+runID, verdictColumns+`WHERE run_id = ? ORDER BY case_id, repeat_idx, attempt`,
		[]any{runID}, scanVerdict, true, fn)
}

// AllAttempts calls fn with every attempt of a run, whole, ordered by case, repeat and attempt.
func (s *Store) AllAttempts(ctx context.Context, runID string, fn func(verdict.Verdict) error) error {
	return s.each(ctx, "read attempts of run "+runID, verdictColumns+`WHERE run_id = ? ORDER BY case_id, repeat_idx, attempt`,
		[]any{runID}, scanVerdict, false, fn)
}

// Attempts returns every attempt at one unit, in order (none: an empty list).
func (s *Store) Attempts(ctx context.Context, runID, caseID string, repeat int) ([]verdict.Verdict, error) {
	var out []verdict.Verdict
	err := s.each(ctx, fmt.Sprintf("read attempts of case %s (repeat %d) of run %s", caseID, repeat, runID),
		verdictColumns+`WHERE run_id = ? AND case_id = ? AND repeat_idx = ? ORDER BY attempt`,
		[]any{runID, caseID, repeat}, scanVerdict, false, func(v verdict.Verdict) error { out = append(out, v); return nil })
	return out, err
}

// TraceEvents returns the trace events of one attempt, in order (none: an empty list).
func (s *Store) TraceEvents(ctx context.Context, runID, caseID string, repeat, attempt int) ([]trace.Event, error) {
	out, err := s.traceEvents(ctx, runID, caseID, repeat, attempt)
	if err != nil {
		return nil, fmt.Errorf("read trace of attempt %d of case %s (repeat %d) of run %s: %w", attempt, caseID, repeat, runID, err)
	}
	return out, nil
}

func (s *Store) traceEvents(ctx context.Context, runID, caseID string, repeat, attempt int) ([]trace.Event, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT seq, time, kind, COALESCE(name, ''), COALESCE(call_id, ''), COALESCE(args, ''),
			COALESCE(content, ''), input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens,
			cost_usd, latency_ms, cached
		FROM trace_events WHERE run_id = ? AND case_id = ? AND repeat_idx = ? AND attempt = ? ORDER BY seq`),
		runID, caseID, repeat, attempt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []trace.Event
	for rows.Next() {
		var e trace.Event
		var t, kind string
		var cost sql.NullFloat64
		if err := rows.Scan(&e.Seq, &t, &kind, &e.Name, &e.CallID, &e.Args, &e.Content, &e.Usage.InputTokens,
			&e.Usage.CachedInputTokens, &e.Usage.CacheWriteTokens, &e.Usage.OutputTokens, &e.Usage.ReasoningTokens,
			&cost, &e.LatencyMS, &e.Cached); err != nil {
			return nil, err
		}
		e.Time, e.Kind, e.CostUSD = parseTime(t), trace.Kind(kind), float(cost)
		out = append(out, e)
	}
	return out, rows.Err()
}
