package web_test

import (
	"bytes"
	"context"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/cli"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
	"github.com/vulnbench/vulnbench/internal/web"
)

func serve(t *testing.T, f *fixture) *httptest.Server {
	t.Helper()
	st, err := store.Open(context.Background(), f.db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := httptest.NewServer(web.New(st, web.Options{Resamples: 200}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

var countRe = regexp.MustCompile(`<p id="count">(\d+) cases`)

// count is the number of cases a cases page says match.
func count(t *testing.T, page string) string {
	t.Helper()
	m := countRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no count on the page:\n%s", page)
	}
	return m[1]
}

// Every page, on SQLite and on Postgres.
func TestPages(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			db := ""
			if backend == "postgres" {
				db = pgtest.DSN(t)
			}
			testPages(t, newFixtureIn(t, db))
		})
	}
}

func testPages(t *testing.T, f *fixture) {
	other := otherSuiteRun(t, f)
	srv := serve(t, f)
	caseURL := func(run, id string) string { return "/runs/" + run + "/case?" + url.Values{"id": {id}}.Encode() }
	for _, tc := range []struct {
		path string
		code int
		want []string
	}{
		{"/", 200, []string{f.random, f.vul, f.agent, "react", "openai:gpt-4o-mini",
			" board: ", "<th>rank</th>", "<th>F1</th>", `<a href="/runs/` + f.agent + `">`, "runs whose intervals overlap share a rank"}},
		{"/runs/" + f.agent, 200, []string{"<svg", "ROC agent", "F1 and pAcc", "Tool calls by label", "P-C"}},
		{"/runs/" + f.vul, 200, []string{"degenerate"}},
		{"/runs/nope", 404, []string{"not found"}},
		{"/runs/" + f.agent + "/cases", 200, []string{"page 1 of 2", `id="next"`}},
		{"/runs/" + f.agent + "/cases?page=2", 200, []string{"page 2 of 2", `id="prev"`}},
		{"/runs/" + f.agent + "/cases?outcome=nope", 400, []string{"outcome &#34;nope&#34; is not one of"}},
		{"/runs/" + f.agent + "/cases?sort=code", 400, []string{"cannot sort by"}},
		{caseURL(f.agent, "v1"), 200, []string{"get_callers", "tool_call", "tool_result", "model_response", "(the scored verdict)"}},
		{caseURL(f.agent, "nope"), 404, []string{"not found"}},
		{"/compare?a=" + f.random + "&b=" + f.vul, 200, []string{"McNemar", "only A right", "Flips:"}},
		{"/compare?a=" + f.random, 400, []string{"compare two different runs"}},
		{"/compare?a=" + f.random + "&b=" + other, 400, []string{"judged different suites", "compare runs of one suite"}},
		{"/runs/" + f.agent + "/cases?flip=" + other, 400, []string{"judged different suites"}},
	} {
		code, page := get(t, srv, tc.path)
		if code != tc.code {
			t.Errorf("GET %s: %d, want %d\n%.2000s", tc.path, code, tc.code, page)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("GET %s lacks %q", tc.path, w)
			}
		}
	}
	// The agent read its cases' snapshots: each case's repository size was counted once and
	// stored with the case, so its cases group by size (the baselines read none).
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"score", "--run", f.agent, "--db", f.db, "--by", "repo-size", "--format", "json"}, nil, &out, &errb); code != 0 {
		t.Fatalf("score --by repo-size: exit %d\n%s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"group": "<10k lines"`) || !strings.Contains(out.String(), `"cases": 60`) || strings.Contains(out.String(), `"group": "(none)"`) {
		t.Errorf("score --by repo-size of the agent's run: %.600s", out.String())
	}
	// Only runs of the run's own suite are offered to compare with, or to flip against.
	for _, path := range []string{"/", "/runs/" + f.random, "/runs/" + f.random + "/cases"} {
		_, page := get(t, srv, path)
		if !strings.Contains(page, `<option value="`+f.vul+`"`) || strings.Contains(page, `<option value="`+other+`"`) {
			t.Errorf("GET %s: the runs offered are not those of its suite", path)
		}
	}
	// Filters: counts the fixture fixes. constant:vul answers vul everywhere: its tp are the 30
	// vul cases, its fp the 30 ben ones; flipped against random are the cases random got wrong
	// and constant right or the reverse.
	for _, tc := range []struct {
		run, query, want string
	}{
		{f.vul, "", "60"},
		{f.vul, "label=vul", "30"},
		{f.vul, "outcome=tp", "30"},
		{f.vul, "outcome=fp", "30"},
		{f.vul, "outcome=tn", "0"},
		{f.vul, "status=ok", "60"},
		{f.vul, "cwe=CWE-120", "20"},
		{f.vul, "cwe=CWE-120&label=ben", "10"},
		{f.vul, "lang=c", "60"},
		{f.agent, "outcome=tp", "30"}, // the fake answers right everywhere
		{f.agent, "outcome=tn", "30"},
		{f.agent, "flip=" + f.vul, "30"}, // the agent is right on ben cases, constant:vul wrong
		{f.agent, "flip=" + f.vul + "&label=vul", "0"},
	} {
		code, page := get(t, srv, "/runs/"+tc.run+"/cases?"+tc.query)
		if code != 200 {
			t.Errorf("cases of %s ?%s: %d", tc.run, tc.query, code)
			continue
		}
		if got := count(t, page); got != tc.want {
			t.Errorf("cases of %s ?%s: %s, want %s", tc.run, tc.query, got, tc.want)
		}
	}
	// Sorting: by id descending, v9 comes first (byte order: v9 > v29).
	_, page := get(t, srv, "/runs/"+f.vul+"/cases?sort=id&desc=1")
	if i, j := strings.Index(page, ">v9<"), strings.Index(page, ">v29<"); i < 0 || j < 0 || i > j {
		t.Errorf("sorted by id descending: v9 at %d, v29 at %d", i, j)
	}
}

// otherSuiteRun stores a run of another suite (two function cases) beside the fixture's.
func otherSuiteRun(t *testing.T, f *fixture) string {
	t.Helper()
	path := filepath.Join(f.dir, "other.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"o1","kind":"function","label":"vul","code":"int f(void){return 1;}"}
{"id":"o2","kind":"function","label":"ben","code":"int g(void){return 0;}"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"run", "--db", f.db, "--suite", path, "--subject", "constant:vul", "--run-id", "other-suite", "--no-score"}, nil, &out, &errb); code != 0 {
		t.Fatalf("run on another suite: exit %d\n%s", code, errb.String())
	}
	return "other-suite"
}

// A case whose code holds <script> shows it as text; nothing of the case becomes markup.
func TestCaseCodeIsText(t *testing.T) {
	f := newFixture(t)
	srv := serve(t, f)
	code, page := get(t, srv, "/runs/"+f.agent+"/case?id=v0")
	if code != 200 {
		t.Fatalf("%d\n%s", code, page)
	}
	if strings.Contains(page, "<script") {
		t.Errorf("the case page holds a script element")
	}
	if !strings.Contains(page, "&lt;script&gt;document.title=&#34;pwned&#34;&lt;/script&gt;") {
		t.Errorf("the case's code is not shown escaped")
	}
}

// The child scorer (what vulnbench serve uses) gives the run page and the comparison the
// in-process one gives.
func TestChildScorer(t *testing.T) {
	f := newFixture(t)
	bin := filepath.Join(t.TempDir(), "vulnbench")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/vulnbench").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	st, err := store.Open(context.Background(), f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	child := httptest.NewServer(web.New(st, web.Options{Scorer: web.Child{Exe: bin, DB: f.db, Resamples: 200, MemoryLimit: 64}}))
	defer child.Close()
	local := serve(t, f)
	for _, path := range []string{"/runs/" + f.agent, "/compare?a=" + f.agent + "&b=" + f.random} {
		c1, p1 := get(t, child, path)
		c2, p2 := get(t, local, path)
		if c1 != 200 || c2 != 200 {
			t.Errorf("GET %s: %d from the child scorer, %d in process", path, c1, c2)
			continue
		}
		if p1 != p2 {
			t.Errorf("GET %s: the child scorer's page differs from the in-process one", path)
		}
	}
}

// counting counts what it is asked to score.
type counting struct {
	web.InProcess
	bodies, compares int
}

func (c *counting) Body(ctx context.Context, id string) (template.HTML, error) {
	c.bodies++
	return c.InProcess.Body(ctx, id)
}

func (c *counting) Compare(ctx context.Context, a, b string) (*report.Comparison, error) {
	c.compares++
	return c.InProcess.Compare(ctx, a, b)
}

// A run that ended is scored once, and so is a comparison of two.
func TestScoredOnce(t *testing.T) {
	f := newFixture(t)
	st, err := store.Open(context.Background(), f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc := &counting{InProcess: web.InProcess{Store: st, Resamples: 100}}
	srv := httptest.NewServer(web.New(st, web.Options{Scorer: sc}))
	defer srv.Close()
	for range 3 {
		for _, p := range []string{"/runs/" + f.agent, "/compare?a=" + f.agent + "&b=" + f.vul, "/compare?a=" + f.agent + "&b=" + f.random} {
			if code, _ := get(t, srv, p); code != 200 {
				t.Fatalf("GET %s: %d", p, code)
			}
		}
	}
	if sc.bodies != 1 || sc.compares != 2 {
		t.Errorf("scored %d run pages and %d comparisons, want 1 and 2", sc.bodies, sc.compares)
	}
}
