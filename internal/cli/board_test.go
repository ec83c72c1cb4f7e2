package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	govex "github.com/openvex/go-vex/pkg/vex"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vulnbench/vulnbench/internal/openvex"
	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/web"
	"github.com/vulnbench/vulnbench/schema"
)

// mixedSuites writes one suite of each kind into dir: fn.jsonl (PrimeVul-like pairs in two
// languages, five projects, two CWEs, five years, three repository sizes), jit.jsonl, vex.jsonl
// and app.jsonl (the Python records of a built AppSecBench suite), and predictions with VEX
// answers and usage for vex.jsonl (vex.preds.jsonl).
func mixedSuites(t *testing.T, dir string) {
	t.Helper()
	var fn, jit, vex, preds, preds3 strings.Builder
	cwes := []string{"CWE-787", "CWE-476"}
	sizes := []int{800, 40_000, 900_000}
	for i := 0; i < 30; i++ {
		lang := []string{"c", "cpp"}[i%2]
		for _, l := range []string{"vul", "ben"} {
			fmt.Fprintf(&fn, `{"id":"f%02d-%s","kind":"function","label":"%s","pair":"p%02d","code":"int f%d_%s(void){return %d;}","language":"%s","project":"proj%d","cwe":["%s"],"date":"%d-03-01T00:00:00Z","meta":{"repo_size":%d}}`+"\n",
				i, l, l, i, i, l, i, lang, i%5, cwes[i%3%2], 2019+i%5, sizes[i%3])
			fmt.Fprintf(&jit, `{"id":"j%02d-%s","kind":"jit","label":"%s","pair":"q%02d","language":"c","project":"jproj%d","cwe":["%s"],"date":"%d-06-01T00:00:00Z","code":"int g%d_%s(void){return 0;}","repo":{"url":"https://github.com/acme/j%d","commit":"%040d"},"target":{"file":"src/g.c","function":"g%d","line":10,"end_line":20}}`+"\n",
				i, l, l, i, i%4, cwes[i%2], 2020+i%3, i, l, i%4, i, i)
		}
	}
	cats := []string{"vulnerable", "code_not_present", "code_not_reachable", "vulnerable", "runtime_protected"}
	answers := []string{"vulnerable", "code_not_present", "vulnerable", "code_not_reachable", "runtime_protected"}
	for i := 0; i < 20; i++ {
		label := "ben"
		if cats[i%5] == "vulnerable" {
			label = "vul"
		}
		fmt.Fprintf(&vex, `{"id":"v%02d","kind":"vex","label":"%s","cve":"CVE-2020-%04d","language":"%s","project":"vproj%d","date":"%d-01-01T00:00:00Z","repo":{"url":"https://github.com/acme/v%d","commit":"%040d"},"vex":{"category":"%s","ecosystem":"Go"}}`+"\n",
			i, label, 1000+i, []string{"go", "java"}[i%2], i%3, 2021+i%2, i, i, cats[i%5])
		ans := answers[(i+i/7)%5]
		al := "ben"
		if ans == "vulnerable" {
			al = "vul"
		}
		fmt.Fprintf(&preds, `{"case_id":"v%02d","status":"ok","label":"%s","vex":{"category":"%s"},"usage":{"input_tokens":100,"output_tokens":20,"cost_usd":0.01}}`+"\n", i, al, ans)
		// Three repeats: the answers above, then the truth, then the truth on even cases and a
		// failed answer on odd ones.
		fmt.Fprintf(&preds3, `{"case_id":"v%02d","repeat":0,"status":"ok","label":"%s","vex":{"category":"%s"}}`+"\n", i, al, ans)
		fmt.Fprintf(&preds3, `{"case_id":"v%02d","repeat":1,"status":"ok","label":"%s","vex":{"category":"%s"}}`+"\n", i, label, cats[i%5])
		if i%2 == 0 {
			fmt.Fprintf(&preds3, `{"case_id":"v%02d","repeat":2,"status":"ok","label":"%s","vex":{"category":"%s"}}`+"\n", i, label, cats[i%5])
		} else {
			fmt.Fprintf(&preds3, `{"case_id":"v%02d","repeat":2,"status":"failed","reason":"unparseable: no category"}`+"\n", i)
		}
	}
	for name, s := range map[string]string{"fn.jsonl": fn.String(), "jit.jsonl": jit.String(), "vex.jsonl": vex.String(), "vex.preds.jsonl": preds.String(), "vex.preds3.jsonl": preds3.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errOut := run(t, dir, "suite", "build", "appsec", "--seed", "42", "--out", "asb"); code != 0 {
		t.Fatalf("suite build: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := run(t, dir, "suite", "select", "--in", "asb/suite.jsonl", "--out", "app.jsonl", "--language", "python"); code != 0 {
		t.Fatalf("suite select: exit %d\n%s\n%s", code, out, errOut)
	}
}

// mixedStore runs subjects on the four suites of mixedSuites into dir/v.db and returns the run
// ids by suite.
func mixedStore(t *testing.T, dir string) (db string, runs map[string][]string) {
	t.Helper()
	mixedSuites(t, dir)
	noPrograms(t) // no scanner: AppSecBench fix checks are "not checked", quickly
	db = filepath.Join(dir, "v.db")
	runs = map[string][]string{}
	for _, r := range []struct {
		suite, id string
		args      []string
	}{
		{"fn.jsonl", "fn-r1", []string{"--subject", "random", "--seed", "1"}},
		{"fn.jsonl", "fn-r2x3", []string{"--subject", "random", "--seed", "2", "--repeats", "3"}},
		{"fn.jsonl", "fn-vul", []string{"--subject", "constant:vul"}},
		{"jit.jsonl", "jit-r1", []string{"--subject", "random", "--seed", "3"}},
		{"jit.jsonl", "jit-ben", []string{"--subject", "constant:ben"}},
		{"vex.jsonl", "vex-p", []string{"--subject", "predictions:vex.preds.jsonl"}},
		{"vex.jsonl", "vex-r2", []string{"--subject", "random", "--seed", "4", "--repeats", "2"}},
		{"vex.jsonl", "vex-p3", []string{"--subject", "predictions:vex.preds3.jsonl", "--repeats", "3"}},
		{"app.jsonl", "app-r1", []string{"--subject", "random", "--seed", "5"}},
		{"app.jsonl", "app-vul", []string{"--subject", "constant:vul"}},
	} {
		args := append([]string{"run", "--suite", r.suite, "--db", db, "--run-id", r.id, "--format", "json"}, r.args...)
		if code, _, errOut := run(t, dir, args...); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", r.id, code, errOut)
		}
		runs[r.suite] = append(runs[r.suite], r.id)
	}
	return db, runs
}

type boardJSON struct {
	Tables []struct {
		Suite, Kind, Sort string
		Columns           []struct{ Key, Metric, Unit, CI string }
		Rows              []struct {
			Run   string
			Rank  int
			Tied  bool
			Cells []struct {
				OK        bool
				Mean, Std float64
				Lo, Hi    *float64
			}
		}
	}
}

// scoreFigure reads the figure at the dotted path of one run's `score --format json` document.
func scoreFigure(t *testing.T, doc map[string]any, path string) (mean, std float64, ok bool) {
	t.Helper()
	var v any = doc
	for _, p := range strings.Split(path, ".") {
		m, isMap := v.(map[string]any)
		if !isMap {
			return 0, 0, false
		}
		if v, isMap = m[p]; !isMap {
			return 0, 0, false
		}
	}
	switch x := v.(type) {
	case float64:
		return x, 0, true
	case map[string]any:
		mean, _ := x["mean"].(float64)
		std, _ := x["std"].(float64)
		return mean, std, true
	}
	return 0, 0, false
}

// TestResultsOnMixedStore checks the board and the breakdowns on one store with runs of all four
// suite kinds.
func TestResultsOnMixedStore(t *testing.T) {
	dir := t.TempDir()
	db, runs := mixedStore(t, dir)
	t.Run("board", func(t *testing.T) { checkBoard(t, dir, db, runs) })
	t.Run("viewer", func(t *testing.T) { checkViewerBoard(t, dir, db) })
	t.Run("compare-vex", func(t *testing.T) { checkVEXCompare(t, dir, db) })
	t.Run("by", func(t *testing.T) { checkBreakdowns(t, dir, db, runs) })
	t.Run("sarif", func(t *testing.T) { checkSARIFExports(t, dir, db) })
	t.Run("openvex", func(t *testing.T) { checkOpenVEXRepeats(t, dir, db) })
}

// checkBoard: each row of the board is the figures `score --run` prints for that run, the ranks
// follow the overlap rule over those figures, and the JSON validates against
// schema/board.schema.json.
func checkBoard(t *testing.T, dir, db string, runs map[string][]string) {
	code, out, errOut := run(t, dir, "board", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("board: exit %d\n%s", code, errOut)
	}
	sch, err := schema.CompileBoard()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(out)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("board JSON fails its schema: %v", err)
	}
	var b boardJSON
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, tb := range b.Tables {
		kinds[filepath.Base(tb.Suite)] = tb.Kind
		var ids []string
		for _, r := range tb.Rows {
			ids = append(ids, r.Run)
		}
		if diff := cmp.Diff(sortedCopy(runs[filepath.Base(tb.Suite)]), sortedCopy(ids)); diff != "" {
			t.Errorf("%s: rows differ from the runs (-want +got):\n%s", tb.Suite, diff)
		}
		sortCol := -1
		for k, c := range tb.Columns {
			if c.Key == tb.Sort {
				sortCol = k
			}
		}
		type iv struct{ lo, hi float64 }
		ivs := map[string]iv{}
		for _, r := range tb.Rows {
			code, sout, serr := run(t, dir, "score", "--run", r.Run, "--db", db, "--format", "json", "--ci")
			if code != 0 {
				t.Fatalf("score %s: exit %d\n%s", r.Run, code, serr)
			}
			var figs map[string]any
			if err := json.Unmarshal([]byte(sout), &figs); err != nil {
				t.Fatal(err)
			}
			for k, c := range tb.Columns {
				cell := r.Cells[k]
				if c.Metric == "" {
					continue
				}
				mean, std, ok := scoreFigure(t, figs, c.Metric) // points too: one scale everywhere
				if c.Metric == "status.stopped" && !ok {
					ok = true // score's JSON leaves the count out when no unit stopped; the board shows 0
				}
				if ok != cell.OK || !near(mean, cell.Mean) || !near(std, cell.Std) {
					t.Errorf("%s %s: board %v %g ± %g, score %v %g ± %g", r.Run, c.Key, cell.OK, cell.Mean, cell.Std, ok, mean, std)
				}
				if c.CI != "" { // every headline figure has its interval, as score --ci gives it
					lo, hi, lok := scoreInterval(figs, c.CI)
					if lok != (cell.Lo != nil) || lok && (!near(*cell.Lo, lo) || !near(*cell.Hi, hi)) {
						t.Errorf("%s %s: board CI %v-%v, score %v [%v, %v]", r.Run, c.Key, cell.Lo, cell.Hi, lok, lo, hi)
					}
					if ok && !lok {
						t.Errorf("%s %s: no interval", r.Run, c.Key)
					}
				}
			}
			c := r.Cells[sortCol]
			if c.Lo != nil {
				ivs[r.Run] = iv{*c.Lo, *c.Hi}
			} else {
				ivs[r.Run] = iv{c.Mean - c.Std, c.Mean + c.Std}
			}
		}
		lower := tb.Columns[sortCol].Key == "vds" || strings.HasSuffix(tb.Sort, "_per_case")
		for _, r := range tb.Rows {
			want := 1
			for _, o := range tb.Rows {
				if (!lower && ivs[o.Run].lo > ivs[r.Run].hi) || (lower && ivs[o.Run].hi < ivs[r.Run].lo) {
					want++
				}
			}
			if r.Rank != want {
				t.Errorf("%s: rank %d, want %d (intervals %v)", r.Run, r.Rank, want, ivs)
			}
			tied := false
			for _, o := range tb.Rows {
				tied = tied || o.Run != r.Run && o.Rank == r.Rank
			}
			if r.Tied != tied {
				t.Errorf("%s: tied %v, want %v", r.Run, r.Tied, tied)
			}
		}
	}
	if diff := cmp.Diff(map[string]string{"fn.jsonl": "primevul", "jit.jsonl": "jitvul", "vex.jsonl": "vex", "app.jsonl": "appsec"}, kinds); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	// The replayed predictions cost 0.01 USD and 120 tokens a case.
	code, out, _ = run(t, dir, "board", "--db", db, "--suite", "vex.jsonl", "--sort", "cost_per_case")
	if code != 0 || !strings.Contains(out, "$0.0100") || !strings.Contains(out, " 120\n") || !strings.Contains(out, "vex board: vex.jsonl") {
		t.Errorf("vex board by cost: exit %d\n%s", code, out)
	}
	code, out, errOut = run(t, dir, "board", "--db", db, "--suite", "app.jsonl", "--sort", "nosuch")
	if code == 0 || !strings.Contains(errOut, `"nosuch" is not a column of the appsec board`) {
		t.Errorf("bad --sort: exit %d\n%s", code, errOut)
	}
	code, out, _ = run(t, dir, "board", "--db", db, "--suite", "app.jsonl")
	if code != 0 || !strings.Contains(out, " of 100") {
		t.Errorf("appsec board: exit %d\n%s", code, out)
	}
}

// scoreInterval reads the interval at the dotted path (ci.KEY) of a `score --format json` document.
func scoreInterval(doc map[string]any, path string) (lo, hi float64, ok bool) {
	ci, _ := doc["ci"].(map[string]any)
	arr, isArr := ci[strings.TrimPrefix(path, "ci.")].([]any)
	if !isArr || len(arr) != 2 {
		return 0, 0, false
	}
	return arr[0].(float64), arr[1].(float64), true
}

// checkVEXCompare: compare of two VEX runs weighs every repeat of each (paired by case) and
// each category, and its figures are score's means over repeats.
func checkVEXCompare(t *testing.T, dir, db string) {
	code, out, errOut := run(t, dir, "compare", "--run", "vex-p3", "--run", "vex-r2", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errOut)
	}
	var cmpDoc struct {
		VEX struct {
			RepeatsA int `json:"repeats_a"`
			RepeatsB int `json:"repeats_b"`
			StatusF1 struct {
				A, B, Value float64
				CI          [2]float64
			} `json:"status_f1"`
			PerClass map[string]struct{ A, B float64 } `json:"per_class"`
		}
	}
	if err := json.Unmarshal([]byte(out), &cmpDoc); err != nil {
		t.Fatal(err)
	}
	v := cmpDoc.VEX
	if v.RepeatsA != 3 || v.RepeatsB != 2 || len(v.PerClass) < 3 {
		t.Errorf("compare of vex-p3 and vex-r2: %+v", v)
	}
	for id, got := range map[string]float64{"vex-p3": v.StatusF1.A, "vex-r2": v.StatusF1.B} {
		_, sout, _ := run(t, dir, "score", "--run", id, "--db", db, "--format", "json")
		var figs map[string]any
		if err := json.Unmarshal([]byte(sout), &figs); err != nil {
			t.Fatal(err)
		}
		mean, _, ok := scoreFigure(t, figs, "vex.status_f1")
		if !ok || !near(got, mean) {
			t.Errorf("%s: compare's status F1 %v, score's mean over repeats %v", id, got, mean)
		}
	}
	code, out, _ = run(t, dir, "compare", "--run", "vex-p3", "--run", "vex-r2", "--db", db)
	if code != 0 || !strings.Contains(out, "VEX: every repeat (A 3, B 2), paired by case") || !strings.Contains(out, "F1 code_not_reachable") {
		t.Errorf("compare text: exit %d\n%s", code, out)
	}
}

// checkViewerBoard: the viewer's runs page shows the board `vulnbench board` prints: the same
// tables, ranks, figures and intervals, cell for cell.
func checkViewerBoard(t *testing.T, dir, db string) {
	code, out, errOut := run(t, dir, "board", "--db", db, "--format", "html")
	if code != 0 {
		t.Fatalf("board: exit %d\n%s", code, errOut)
	}
	st, err := store.OpenReadOnly(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := httptest.NewServer(web.New(st, web.Options{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /: %d %v", resp.StatusCode, err)
	}
	cli, viewer := boardCells(out), boardCells(string(page))
	if len(cli) < 10 {
		t.Fatalf("the board has %d rows:\n%s", len(cli), out)
	}
	if d := cmp.Diff(cli, viewer); d != "" {
		t.Errorf("the viewer's board differs from vulnbench board's (-board +viewer):\n%s", d)
	}
}

var (
	boardTableRe = regexp.MustCompile(`(?s)<table class="board">.*?</table>|<table><thead><tr><th>rank</th>.*?</table>`)
	rowRe        = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRe       = regexp.MustCompile(`(?s)<t[dh]>(.*?)</t[dh]>`)
	tagRe        = regexp.MustCompile(`<[^>]*>`)
)

// boardCells are the text of the cells of every board table of an HTML page, a row a line.
func boardCells(page string) []string {
	var rows []string
	for _, tb := range boardTableRe.FindAllString(page, -1) {
		for _, r := range rowRe.FindAllStringSubmatch(tb, -1) {
			var cells []string
			for _, c := range cellRe.FindAllStringSubmatch(r[1], -1) {
				cells = append(cells, tagRe.ReplaceAllString(c[1], ""))
			}
			rows = append(rows, strings.Join(cells, " | "))
		}
	}
	return rows
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func sortedCopy(s []string) []string { return slices.Sorted(slices.Values(s)) }

// checkBreakdowns: for every suite kind and dimension, each group of `score --by DIM` is what
// `score --select DIM=GROUP` prints (JSON, compared whole), and the groups cover the suite.
func checkBreakdowns(t *testing.T, dir, db string, runs map[string][]string) {
	type group struct {
		Group     string
		Cases, Of int
		Scores    map[string]any
	}
	groupsSeen := map[string]int{}
	for suiteName, ids := range runs {
		for _, id := range ids[:min(2, len(ids))] {
			for _, dim := range []string{"language", "project", "cwe", "year", "repo-size", "category"} {
				code, out, errOut := run(t, dir, "score", "--run", id, "--db", db, "--by", dim, "--format", "json")
				if code != 0 {
					t.Fatalf("%s --by %s: exit %d\n%s", id, dim, code, errOut)
				}
				var b struct {
					By     string
					Groups []group
				}
				if err := json.Unmarshal([]byte(out), &b); err != nil {
					t.Fatalf("%s --by %s: %v\n%s", id, dim, err, out)
				}
				covered := 0
				for _, g := range b.Groups {
					covered += g.Cases
					code, out, errOut := run(t, dir, "score", "--run", id, "--db", db, "--select", dim+"="+g.Group, "--format", "json")
					if code != 0 {
						t.Fatalf("%s --select %s=%s: exit %d\n%s", id, dim, g.Group, code, errOut)
					}
					var sub group
					var named struct{ Subset string }
					if err := json.Unmarshal([]byte(out), &sub); err != nil {
						t.Fatal(err)
					}
					json.Unmarshal([]byte(out), &named)
					if named.Subset != dim+"="+g.Group || sub.Cases != g.Cases || sub.Of != g.Of {
						t.Errorf("%s %s=%s: subset %q %d of %d, group %d of %d", id, dim, g.Group, named.Subset, sub.Cases, sub.Of, g.Cases, g.Of)
					}
					if diff := cmp.Diff(sub.Scores, g.Scores); diff != "" {
						t.Errorf("%s %s=%s: --by and --select differ (-select +by):\n%s", id, dim, g.Group, diff)
					}
				}
				if len(b.Groups) > 1 {
					groupsSeen[suiteName+" "+dim] = len(b.Groups)
				}
				if dim != "cwe" && len(b.Groups) > 0 && covered != b.Groups[0].Of {
					t.Errorf("%s --by %s: groups hold %d cases of %d", id, dim, covered, b.Groups[0].Of)
				}
			}
		}
	}
	// Every suite kind was split some way (the test must compare real groups).
	for _, want := range []string{"fn.jsonl language", "fn.jsonl repo-size", "fn.jsonl year", "jit.jsonl project", "vex.jsonl category", "vex.jsonl language", "app.jsonl category"} {
		if groupsSeen[want] < 2 {
			t.Errorf("%s: %d groups, want several (%v)", want, groupsSeen[want], groupsSeen)
		}
	}
	// Text is one compact table, a row per group with its cases and the kind's headline
	// figures; a subset of no case is refused.
	code, out, _ := run(t, dir, "score", "--run", "fn-r1", "--db", db, "--by", "language")
	if code != 0 || !regexp.MustCompile(`(?m)^language +cases +F1 +pAcc +VD-S`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^c +30 of 60 +\d+\.\d% +\d+\.\d%`).MatchString(out) || strings.Count(out, "\n") != 4 {
		t.Errorf("--by language text: exit %d\n%s", code, out)
	}
	code, _, errOut := run(t, dir, "score", "--run", "fn-r1", "--db", db, "--select", "language=rust")
	if code != 1 || !strings.Contains(errOut, "keeps no case") {
		t.Errorf("empty subset: exit %d\n%s", code, errOut)
	}
	os.WriteFile(filepath.Join(dir, "ids.txt"), []byte("# two\nf00-vul\nf00-ben\n"), 0o644)
	code, out, _ = run(t, dir, "score", "--run", "fn-r1", "--db", db, "--cases", "ids.txt")
	if code != 0 || !strings.Contains(out, "subset cases of ids.txt: 2 of 60 cases") {
		t.Errorf("--cases: exit %d\n%s", code, out)
	}
}

// checkSARIFExports: SARIF of function, jit and vex runs validates against OASIS's schema and
// meets GitHub code scanning's upload rules; every result has a location; a function case's is
// the case id as the artifact over its code's lines, with its function as a logical location.
func checkSARIFExports(t *testing.T, dir, db string) {
	sch := compileSARIFSchema(t)
	for _, id := range []string{"fn-vul", "fn-r1", "jit-r1", "vex-p"} {
		code, out, errOut := run(t, dir, "export", "--run", id, "--db", db, "--format", "sarif")
		if code != 0 {
			t.Fatalf("export %s: exit %d\n%s", id, code, errOut)
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: SARIF fails the OASIS schema: %v", id, err)
		}
		if err := sarif.CheckGitHub([]byte(out)); err != nil {
			t.Errorf("%s: SARIF fails GitHub's rules: %v", id, err)
		}
		var log struct {
			Runs []struct {
				Results []struct {
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI string }
							Region           struct{ StartLine, EndLine int }
						}
						LogicalLocations []struct{ Name, Kind string }
					}
					Properties struct {
						CaseID string `json:"case_id"`
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &log); err != nil {
			t.Fatal(err)
		}
		results := log.Runs[0].Results
		if id == "fn-vul" && len(results) != 60 {
			t.Errorf("fn-vul: %d results, want 60 (every case answered vul)", len(results))
		}
		for _, r := range results {
			if len(r.Locations) != 1 {
				t.Fatalf("%s: a result with %d locations", id, len(r.Locations))
			}
			l := r.Locations[0]
			switch id[:2] {
			case "fn":
				c := r.Properties.CaseID // f07-vul: code "int f7_vul(void){...}"
				n, _ := strconv.Atoi(c[1:3])
				want := fmt.Sprintf("f%d_%s", n, c[4:])
				if l.PhysicalLocation.ArtifactLocation.URI != "vulnbench-cases/"+c || l.PhysicalLocation.Region.StartLine != 1 ||
					len(l.LogicalLocations) != 1 || l.LogicalLocations[0].Name != want || l.LogicalLocations[0].Kind != "function" {
					t.Errorf("%s: %s located at %+v, want vulnbench-cases/%s line 1, function %s", id, c, l, c, want)
				}
			case "ji":
				if l.PhysicalLocation.ArtifactLocation.URI != "src/g.c" || l.PhysicalLocation.Region.StartLine != 10 || l.PhysicalLocation.Region.EndLine != 20 {
					t.Errorf("%s: %s located at %+v, want src/g.c lines 10-20", id, r.Properties.CaseID, l)
				}
			}
		}
	}
}

// checkOpenVEXRepeats: OpenVEX of a run with three repeats names the repeat (or the majority),
// states a failed answer as under_investigation with its reason, and validates with go-vex and
// against the OpenVEX JSON schema.
func checkOpenVEXRepeats(t *testing.T, dir, db string) {
	f, err := os.Open(filepath.Join("..", "openvex", "testdata", "openvex_json_schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	sdoc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("openvex.json", sdoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("openvex.json")
	if err != nil {
		t.Fatal(err)
	}
	type stmt struct {
		ID     string `json:"@id"`
		Status string
		Notes  string `json:"status_notes"`
	}
	export := func(repeat string) (string, map[string]stmt) {
		t.Helper()
		code, out, errOut := run(t, dir, "export", "--run", "vex-p3", "--db", db, "--format", "openvex", "--repeat", repeat)
		if code != 0 {
			t.Fatalf("export --repeat %s: exit %d\n%s", repeat, code, errOut)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("--repeat %s: fails the OpenVEX schema: %v", repeat, err)
		}
		doc, err := govex.Parse([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		if err := openvex.Validate(doc); err != nil {
			t.Errorf("--repeat %s: go-vex: %v", repeat, err)
		}
		var d struct {
			Tooling    string
			Statements []stmt
		}
		json.Unmarshal([]byte(out), &d)
		byCase := map[string]stmt{}
		for _, s := range d.Statements {
			byCase[strings.TrimPrefix(s.ID, "urn:vulnbench:case:")] = s
		}
		return d.Tooling, byCase
	}
	tooling, sts := export("2")
	if !strings.Contains(tooling, "statements state repeat 2 of 3") {
		t.Errorf("--repeat 2: tooling %q does not name the repeat", tooling)
	}
	if s := sts["v01"]; s.Status != "under_investigation" || !strings.Contains(s.Notes, "the subject's answer failed: unparseable: no category") || !strings.Contains(s.Notes, "repeat 2 of 3") {
		t.Errorf("--repeat 2: failed answer stated as %+v", s)
	}
	if s := sts["v00"]; s.Status != "affected" {
		t.Errorf("--repeat 2: v00 (vulnerable, answered so) stated as %+v", s)
	}
	tooling, sts = export("majority")
	if !strings.Contains(tooling, "the majority answer of 3 repeats") {
		t.Errorf("majority: tooling %q", tooling)
	}
	// v02: code_not_reachable answered vulnerable, then right twice: the majority is right.
	if s := sts["v02"]; s.Status != "not_affected" || !strings.Contains(s.Notes, "2 of them") {
		t.Errorf("majority: v02 stated as %+v", s)
	}
	if code, _, errOut := run(t, dir, "export", "--run", "vex-p3", "--db", db, "--format", "openvex", "--repeat", "3"); code != 2 || !strings.Contains(errOut, "0 to 2") {
		t.Errorf("--repeat 3 of a run of 3: exit %d\n%s", code, errOut)
	}
}
