package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// A batch of attempts whose first try fails with a transient fault (here a serialization
// failure raised once by a trigger) and is tried again keeps the model answers it carried:
// the second try writes them, on its own and with the store's transactions (Tx) alike.
func TestRetriedCommitKeepsTheCacheRows(t *testing.T) {
	store.ForEachBackend(t, func(t *testing.T, dsn string) {
		if !strings.HasPrefix(dsn, "postgres") {
			t.Skip("the fault is raised by a Postgres trigger")
		}
		ctx := context.Background()
		st := store.OpenT(t, dsn)
		newRun(t, st, "r")
		for _, q := range []string{
			`CREATE SEQUENCE fail_once`,
			`CREATE FUNCTION fail_once() RETURNS trigger AS $$ BEGIN
				IF nextval('fail_once') % 2 = 1 THEN RAISE EXCEPTION 'injected' USING ERRCODE = '40001'; END IF;
				RETURN NEW; END $$ LANGUAGE plpgsql`,
			`CREATE TRIGGER fail_once BEFORE INSERT ON attempts FOR EACH ROW EXECUTE FUNCTION fail_once()`,
		} {
			if _, err := st.DB().ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		put := map[string]func(a store.Attempt) error{
			"store": func(a store.Attempt) error { return st.PutAttempts(ctx, "r", []store.Attempt{a}) },
			"tx": func(a store.Attempt) error {
				return st.InTx(ctx, func(tx *store.Tx) error { return tx.PutAttempts(ctx, "r", []store.Attempt{a}) })
			},
		}
		for name, fn := range put {
			key := "key-" + name
			if err := st.PutResponse(ctx, key, "openai", "m", []byte(`{"answer":"`+name+`"}`)); err != nil {
				t.Fatal(err)
			}
			if err := fn(store.Attempt{Verdict: verdict.Verdict{CaseID: "c-" + name, Status: verdict.OK, Label: "vul"}}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var n int
			if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM llm_cache WHERE key = $1`, key).Scan(&n); err != nil || n != 1 {
				t.Errorf("%s: %d cache rows of %s after the retried commit (%v), want 1", name, n, key, err)
			}
		}
	})
}
