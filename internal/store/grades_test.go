package store_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Grades are stored once per attempt, part and version: a second result for the same key is
// ignored, another version is kept beside it, and a grade of an attempt not stored is refused.
func TestGrades(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		newRun(t, st, "r1")
		if err := st.PutAttempts(ctx, "r1", []store.Attempt{attempt("a", 0, 0, verdict.OK, 0), attempt("a", 1, 0, verdict.OK, 0), attempt("b", 0, 0, verdict.OK, 0)}); err != nil {
			t.Fatal(err)
		}
		g := func(c string, repeat int, version, res string) store.Grade {
			return store.Grade{CaseID: c, Repeat: repeat, Part: "fix_check", Version: version, Result: json.RawMessage(res)}
		}
		if err := st.PutGrades(ctx, "r1", []store.Grade{g("b", 0, "1", `{"syntax":"ok"}`), g("a", 1, "1", `{"syntax":"error"}`), g("a", 0, "2", `{"syntax":"ok"}`)}); err != nil {
			t.Fatal(err)
		}
		if err := st.PutGrades(ctx, "r1", []store.Grade{g("b", 0, "1", `{"syntax":"changed"}`), g("a", 0, "1", `{"syntax":"unchecked"}`)}); err != nil {
			t.Fatal(err)
		}
		read := func(version string) []string {
			var out []string
			if err := st.Grades(ctx, "r1", "fix_check", version, func(g store.Grade) error {
				out = append(out, g.CaseID+"/"+string(rune('0'+g.Repeat))+" "+string(g.Result))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		if d := cmp.Diff([]string{`a/0 {"syntax":"unchecked"}`, `a/1 {"syntax":"error"}`, `b/0 {"syntax":"ok"}`}, read("1")); d != "" {
			t.Errorf("version 1 (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]string{`a/0 {"syntax":"ok"}`}, read("2")); d != "" {
			t.Errorf("version 2 (-want +got):\n%s", d)
		}
		if err := st.PutGrades(ctx, "r1", []store.Grade{g("nope", 0, "1", `{}`)}); err == nil {
			t.Error("a grade of an attempt that is not stored was accepted")
		}
		if err := st.PutGrades(ctx, "r1", []store.Grade{g("a", 0, "3", `not json`)}); err == nil {
			t.Error("a result that is not JSON was accepted")
		}
	})
}
