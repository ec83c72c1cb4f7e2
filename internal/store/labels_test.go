package store_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/store"
)

// TestLabels: a labelling project is stored whole; label rows are appended in order, each
// naming the row it revises; a row written against a stale previous row is refused and
// nothing of its batch is written; rows can be neither updated nor deleted; a link's secret is
// found by its hash and replaced.
func TestLabels(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		st := store.OpenT(t, dsn)
		p := store.LabelProject{ID: "p1", Mode: "vex", SuitePath: "mined.jsonl", SuiteHash: "abc", Config: json.RawMessage(`{"overlap":2}`)}
		cases := []store.LabelCase{
			{ID: "c1", Ord: 0, Calibration: true, Body: json.RawMessage(`{"id":"c1"}`), Context: json.RawMessage(`{}`)},
			{ID: "c2", Ord: 1, Body: json.RawMessage(`{"id":"c2"}`), Context: json.RawMessage(`{"advisories":[]}`)},
		}
		anns := []store.LabelAnnotator{{Name: "alice", TokenHash: "h-alice"}, {Name: "bob", TokenHash: "h-bob", Adjudicator: true}}
		assigns := []store.LabelAssignment{{Case: "c1", Annotator: "alice"}, {Case: "c1", Annotator: "bob"}, {Case: "c2", Annotator: "bob"}}
		if err := st.CreateLabelProject(ctx, p, cases, anns, assigns); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateLabelProject(ctx, p, cases, anns, assigns); !errors.Is(err, store.ErrExists) {
			t.Errorf("second project p1: %v, want ErrExists", err)
		}
		got, err := st.GetLabelProject(ctx, "p1")
		if err != nil || got.Mode != "vex" || string(got.Config) != `{"overlap":2}` || got.CreatedAt.IsZero() {
			t.Errorf("project: %+v, %v", got, err)
		}
		if _, err := st.GetLabelProject(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("missing project: %v", err)
		}
		cs, err := st.LabelCases(ctx, "p1")
		if err != nil || len(cs) != 2 || !cs[0].Calibration || cs[1].ID != "c2" || string(cs[1].Context) != `{"advisories":[]}` {
			t.Errorf("cases: %+v, %v", cs, err)
		}
		as, err := st.LabelAssignments(ctx, "p1")
		if diff := cmp.Diff(assigns, as); err != nil || diff != "" {
			t.Errorf("assignments %v (-want +got):\n%s", err, diff)
		}
		a, err := st.LabelAnnotatorByToken(ctx, "p1", "h-bob")
		if err != nil || a.Name != "bob" || !a.Adjudicator {
			t.Errorf("by token: %+v, %v", a, err)
		}
		if _, err := st.LabelAnnotatorByToken(ctx, "p1", "h-nobody"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown token: %v", err)
		}
		if err := st.SetLabelToken(ctx, "p1", "bob", "h-bob-2"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.LabelAnnotatorByToken(ctx, "p1", "h-bob"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("old token after a new link: %v", err)
		}

		row := func(c, who, kind, answer string, prev int64) store.LabelRow {
			return store.LabelRow{Case: c, Annotator: who, Kind: kind, Answer: json.RawMessage(answer), Previous: prev, Source: "viewer"}
		}
		r1, err := st.AppendLabels(ctx, "p1", []store.LabelRow{row("c1", "alice", "label", `{"category":"vulnerable"}`, 0)})
		if err != nil {
			t.Fatal(err)
		}
		r2, err := st.AppendLabels(ctx, "p1", []store.LabelRow{row("c1", "alice", "label", `{"category":"code_not_reachable"}`, r1[0].ID),
			row("c1", "bob", "label", `{"category":"code_not_reachable"}`, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if r2[0].Previous != r1[0].ID || r2[1].Previous != 0 || r2[0].ID <= r1[0].ID || r2[0].At.IsZero() {
			t.Errorf("revision %+v of %+v", r2, r1)
		}
		// Stale: alice's form was rendered before her revision. Nothing of the batch is written.
		_, err = st.AppendLabels(ctx, "p1", []store.LabelRow{row("c2", "bob", "label", `{}`, 0), row("c1", "alice", "label", `{}`, r1[0].ID)})
		if !errors.Is(err, store.ErrConflict) {
			t.Errorf("stale previous row: %v, want ErrConflict", err)
		}
		if _, err := st.AppendLabels(ctx, "p1", []store.LabelRow{row("c1", "alice", "adjudication", `{"category":"code_not_reachable"}`, store.AppendAfterLatest)}); err != nil {
			t.Fatal(err)
		}
		rows, err := st.LabelRows(ctx, "p1")
		if err != nil {
			t.Fatal(err)
		}
		var got2 []string
		for _, r := range rows {
			got2 = append(got2, r.Case+" "+r.Annotator+" "+r.Kind+" "+string(r.Answer))
		}
		want := []string{`c1 alice label {"category":"vulnerable"}`, `c1 alice label {"category":"code_not_reachable"}`,
			`c1 bob label {"category":"code_not_reachable"}`, `c1 alice adjudication {"category":"code_not_reachable"}`}
		if diff := cmp.Diff(want, got2); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
		for _, q := range []string{`UPDATE label_rows SET answer = '{}'`, `DELETE FROM label_rows`} {
			err := st.Exec(ctx, q)
			if err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Errorf("%s: %v, want the append-only refusal", q, err)
			}
		}
		if rows, _ := st.LabelRows(ctx, "p1"); len(rows) != 4 {
			t.Errorf("%d rows after the refused update and delete, want 4", len(rows))
		}
	})
}
