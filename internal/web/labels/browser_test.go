package labels_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/label"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/web"
	"github.com/vulnbench/vulnbench/internal/web/labels"
)

const chromium = "/usr/bin/chromium"

// fixture is a project of five unlabelled vex cases of one repository built here, three
// annotators and an adjudicator, served as serve --labels serves it.
type fixture struct {
	st    *store.Store
	srv   *httptest.Server
	links map[string]string // annotator -> personal link
	repo  string
	suite string // the suite's path
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	repos := filepath.Join(dir, "repos")
	repo := filepath.Join(repos, "github.com", "acme", "app")
	commit := gittest.Repo(t, repo, map[string]string{
		"go.mod":  "module github.com/acme/app\n\ngo 1.22\n\nrequire example.com/parser v1.2.0\n",
		"main.go": "package main\n\nimport \"example.com/parser\"\n\nfunc main() {\n\tparser.Parse(input())\n}\n",
	})
	var b bytes.Buffer
	w := suite.NewWriter(&b)
	for i := 1; i <= 5; i++ {
		w.Write(&suite.Case{ID: fmt.Sprintf("acme-app-%07d-CVE-2024-900%d", i, i), Kind: suite.KindVEX, CVE: fmt.Sprintf("CVE-2024-900%d", i),
			Project: "acme/app", Repo: &suite.Repo{URL: "https://github.com/acme/app", Commit: commit},
			VEX: &suite.VEX{Package: "example.com/parser", Ecosystem: "Go", Advisory: "GO-2024-9001"},
			Meta: map[string]any{"mined": map[string]any{"fix_commit": commit, "package": "example.com/parser", "old_version": "1.2.0", "new_version": "1.3.0",
				"manifests": []map[string]any{{"path": "go.mod", "old_line": 5, "old": "require example.com/parser v1.2.0", "new_line": 5, "new": "require example.com/parser v1.3.0"}}},
				"hints": map[string]any{"sca": map[string]any{"answer": "vulnerable", "why": "version matching: example.com/parser 1.2.0 (go.mod:5) is in an affected range of GO-2024-9001"}}}})
	}
	w.Flush()
	path := filepath.Join(dir, "mined.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "vb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	adb, err := advisory.Open(filepath.Join("..", "..", "label", "testdata", "advisories"))
	if err != nil {
		t.Fatal(err)
	}
	defer adb.Close()
	links, problems, err := label.Init(context.Background(), st, label.Spec{ID: "deps", SuitePath: path, Annotators: []string{"ana", "ben", "cy"},
		Adjudicators: []string{"dee"}, Overlap: 2, Calibration: 2, Seed: 3, Advisories: adb, Repos: repos})
	if err != nil || problems != nil {
		t.Fatal(err, problems)
	}
	cache, err := snapshot.NewCache(filepath.Join(dir, "cache"), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/label/", labels.New(st, labels.Options{Snapshots: cache}))
	f := &fixture{st: st, links: map[string]string{}, repo: repo, suite: path}
	f.srv = httptest.NewServer(web.Guard(mux, nil))
	t.Cleanup(f.srv.Close)
	for _, l := range links {
		f.links[l.Annotator] = f.srv.URL + "/label/deps/login?token=" + l.Token
	}
	return f
}

// browser starts a headless Chromium; each annotator gets a browser context of their own (their
// own cookies), as separate people on separate machines.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is missing (apt-get install -y chromium, or make test, installs it): %v", chromium, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("disable-component-update", true), chromedp.WindowSize(1280, 1024))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { cancelT(); cancel(); cancelA() })
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("start %s: %v", chromium, err)
	}
	return ctx
}

// person is one annotator's browser context.
type person struct {
	t    *testing.T
	name string
	ctx  context.Context
}

func (f *fixture) signIn(t *testing.T, parent context.Context, name string) *person {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	p := &person{t: t, name: name, ctx: ctx}
	if err := chromedp.Do(ctx); err != nil { // the tab, on the person's own context (a timeout's would close it)
		t.Fatal(err)
	}
	p.do("sign in", chromedp.Navigate(f.links[name]), chromedp.WaitVisible(chromedp.CSS(`#who`)))
	if who := p.text(`#who`); who != name {
		t.Fatalf("signed in as %q, want %s", who, name)
	}
	return p
}

func (p *person) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		body, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		p.t.Fatalf("%s: %s: %v; the page:\n%s", p.name, what, err, body)
	}
}

func (p *person) text(sel string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.t.Fatalf("%s: text of %s: %v", p.name, sel, err)
	}
	return strings.TrimSpace(s)
}

func (p *person) eval(js string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		p.t.Fatalf("%s: %s: %v", p.name, js, err)
	}
	return s
}

// submit clicks a form's submit button and waits for the page the post answers with (the old
// page is marked first, so that its elements cannot pass for the new one's).
func (p *person) submit(button string) []chromedp.Action[chromedp.Void] {
	mark := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`document.body.dataset.old = "1"; true`)(ctx, t)
		return err
	})
	return []chromedp.Action[chromedp.Void]{mark, chromedp.Click(chromedp.CSS(button)), chromedp.WaitReady(chromedp.CSS(`body:not([data-old])`))}
}

// label fills and posts the form of a case page through the page's own controls.
func (p *person) label(srv, id, category, evidence string) {
	p.t.Helper()
	status := "not_exploitable"
	if category == "vulnerable" {
		status = "exploitable"
	}
	steps := []chromedp.Action[chromedp.Void]{chromedp.Navigate(srv + "/label/deps/case?id=" + id), chromedp.WaitVisible(chromedp.CSS(`#label`)),
		chromedp.Click(chromedp.CSS(`#s-` + status)), chromedp.SetValue(chromedp.CSS(`#category`), category)}
	if evidence != "" {
		steps = append(steps, chromedp.SendKeys(chromedp.CSS(`#evidence`), evidence))
	}
	steps = append(steps, chromedp.Click(chromedp.CSS(`#c-4`)))
	steps = append(steps, p.submit(`#submit`)...)
	p.do("label "+id, steps...)
	if e := p.eval(`document.querySelector("#errors") ? document.querySelector("#errors").textContent : ""`); e != "" {
		p.t.Fatalf("%s labelling %s: the page says %s", p.name, id, e)
	}
}

// Three annotators label the calibration set and their assigned cases through the real pages;
// the calibration's agreement appears once all have answered; an adjudicator resolves the one
// disagreement with a reason; Fleiss' and Cohen's kappa on the pages equal the figures worked
// out by hand; the labelled suite carries the adjudicated category and its alternative; a
// cross-origin form post and a wrong link are refused.
func TestLabellingInTheBrowser(t *testing.T) {
	f := newFixture(t)
	root := browser(t)
	p, err := label.Load(context.Background(), f.st, "deps")
	if err != nil {
		t.Fatal(err)
	}
	// The calibration cases K1, K2 (all three) and the assigned ones: A (ana, ben), B (cy, ana),
	// C (ben, cy) by the assignment's round robin.
	var cal []string
	pairs := map[string]string{}
	for _, c := range p.Cases {
		if c.Calibration {
			cal = append(cal, c.ID)
		} else {
			pairs[strings.Join(c.Assigned, ",")] = c.ID
		}
	}
	k1, k2, a, b, c := cal[0], cal[1], pairs["ana,ben"], pairs["ana,cy"], pairs["ben,cy"]
	if len(cal) != 2 || a == "" || b == "" || c == "" {
		t.Fatalf("calibration %v, assigned %v", cal, pairs)
	}
	ana, ben, cy := f.signIn(t, root, "ana"), f.signIn(t, root, "ben"), f.signIn(t, root, "cy")

	// The calibration comes first: ana's assigned case is locked.
	ana.do("open A early", chromedp.Navigate(f.srv.URL+"/label/deps/case?id="+a), chromedp.WaitVisible(chromedp.CSS(`#locked`)))
	// The case page shows the snapshot's files, a file's lines, and the advisory.
	ana.do("open K1", chromedp.Navigate(f.srv.URL+"/label/deps/case?id="+k1), chromedp.WaitVisible(chromedp.CSS(`#entries`)))
	if got := ana.text(`#entries`); !strings.Contains(got, "go.mod") || !strings.Contains(got, "main.go") {
		t.Errorf("file tree: %q", got)
	}
	ana.do("open main.go", chromedp.Click(chromedp.CSS(`#entries a[href*="file=main.go"]`)), chromedp.WaitVisible(chromedp.CSS(`#L6`)))
	if got := ana.text(`#L6`); !strings.Contains(got, "parser.Parse(input())") {
		t.Errorf("main.go line 6: %q", got)
	}
	ana.do("search", chromedp.SetValue(chromedp.CSS(`#q`), "parser.Parse"), chromedp.Click(chromedp.CSS(`#search`)), chromedp.WaitVisible(chromedp.CSS(`#matches`)))
	if got := ana.text(`#matches`); !strings.Contains(got, "main.go:6") {
		t.Errorf("search: %q", got)
	}
	if got := ana.text(`.advisory`); !strings.Contains(got, "SEMVER: introduced 0, fixed 1.3.0") || !strings.Contains(got, "example.com/parser.Parse") {
		t.Errorf("advisory: %q", got)
	}

	// Initial labels (V vulnerable, R code_not_reachable, C requires_configuration, P code_not_present):
	//	K1: ana V, ben V, cy V      K2: ana R, ben R, cy C
	//	A: ana P, ben P             B: cy R, ana V             C: ben R, cy R
	ana.label(f.srv.URL, k1, "vulnerable", "main.go:6 parser.Parse(input()) is reached from main")
	ben.label(f.srv.URL, k1, "vulnerable", "main.go:6")
	cy.label(f.srv.URL, k1, "vulnerable", "")
	ana.label(f.srv.URL, k2, "code_not_reachable", "")
	ben.label(f.srv.URL, k2, "code_not_reachable", "")
	ana.do("home", chromedp.Navigate(f.srv.URL+"/label/deps/"), chromedp.WaitVisible(chromedp.CSS(`#calibration`)))
	if got := ana.text(`#calibration`); !strings.Contains(got, "shown once every annotator") {
		t.Errorf("calibration agreement before cy answered: %q", got)
	}
	cy.label(f.srv.URL, k2, "requires_configuration", "")
	// Calibration kappa by hand: P-bar = (1 + 1/3)/2 = 2/3; p = 3/6, 2/6, 1/6: P-bar_e = 14/36;
	// kappa = (24/36 - 14/36)/(22/36) = 5/11 = 0.455.
	ana.do("home", chromedp.Navigate(f.srv.URL+"/label/deps/"), chromedp.WaitVisible(chromedp.CSS(`#cal-kappa`)))
	if got := ana.text(`#cal-kappa`); got != fmt.Sprintf("%.3f", 5.0/11) {
		t.Errorf("calibration kappa on the page %q, want %.3f", got, 5.0/11)
	}
	ana.label(f.srv.URL, a, "code_not_present", "go.mod:5 require example.com/parser v1.2.0")
	ben.label(f.srv.URL, a, "code_not_present", "")
	cy.label(f.srv.URL, b, "code_not_reachable", "")
	ana.label(f.srv.URL, b, "vulnerable", "")
	ben.label(f.srv.URL, c, "code_not_reachable", "")
	cy.label(f.srv.URL, c, "code_not_reachable", "")
	// ana revises B: a new row; the first stays for the initial agreement.
	ana.label(f.srv.URL, b, "code_not_reachable", "")
	ana.do("B again", chromedp.Navigate(f.srv.URL+"/label/deps/case?id="+b), chromedp.WaitVisible(chromedp.CSS(`#history`)))
	if got := ana.text(`#history`); !strings.Contains(got, "revises #") {
		t.Errorf("history of B: %q", got)
	}

	// A cross-origin form post (another origin's page, ana signed in) is refused by the viewer's
	// origin checks, and writes nothing.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form method="post" action="%s/label/deps/case?id=%s"><input name="category" value="vulnerable"><input name="status" value="exploitable"><button id="go">go</button></form>`, f.srv.URL, c)
	}))
	defer evil.Close()
	before := rowCount(t, f.st)
	ana.do("cross-origin post", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(evil.URL), chromedp.WaitVisible(chromedp.CSS(`#go`))}, ana.submit(`#go`)...)...)
	if body := ana.eval(`document.body.textContent`); !strings.Contains(body, "refuses cross-origin requests") {
		t.Errorf("cross-origin post answered %q", body)
	}
	if n := rowCount(t, f.st); n != before {
		t.Errorf("the cross-origin post wrote %d rows", n-before)
	}
	// A wrong link is refused.
	stranger, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	defer cancel()
	if err := chromedp.Do(stranger, chromedp.Navigate(f.srv.URL+"/label/deps/login?token=not-a-secret"), chromedp.WaitVisible(chromedp.CSS(`#message`))); err != nil {
		t.Fatal(err)
	}
	if msg, _ := chromedp.Run(stranger, chromedp.Text(chromedp.CSS(`#message`))); !strings.Contains(msg, "This link is not valid") {
		t.Errorf("wrong link: %q", msg)
	}

	// The adjudicator resolves K2, the one disagreement left, with a reason.
	dee := f.signIn(t, root, "dee")
	dee.do("disagreements", chromedp.Navigate(f.srv.URL+"/label/deps/adjudicate"), chromedp.WaitVisible(chromedp.CSS(`#disagreements`)))
	if got := dee.eval(`[...document.querySelectorAll("#disagreements a")].map(a => a.textContent).join(",")`); got != k2 {
		t.Errorf("disagreements %q, want %s", got, k2)
	}
	dee.do("adjudicate", chromedp.Click(chromedp.CSS(`#disagreements a`)), chromedp.WaitVisible(chromedp.CSS(`#side`)),
		chromedp.SetValue(chromedp.CSS(`#category`), "code_not_reachable"), chromedp.Click(chromedp.CSS(`#alt-requires_configuration`)),
		chromedp.SendKeys(chromedp.CSS(`#reason`), "main never reaches Parse with attacker input; the option cy saw only matters if reached"))
	dee.do("adjudicate", append(dee.submit(`#submit`), chromedp.WaitVisible(chromedp.CSS(`#disagreements`)))...)

	// Agreement by hand on the initial labels (every case; a case counts with its own raters):
	//	P_i: K1 1, K2 (4+1-3)/6 = 1/3, A 1, B 0, C 1: P-bar = 2/3
	//	12 ratings: p_V 4/12, p_R 5/12, p_C 1/12, p_P 2/12: P-bar_e = 46/144
	//	Fleiss = (96/144 - 46/144)/(98/144) = 25/49
	//	Cohen ana/ben on K1 K2 A: all agree: 1; ana/cy on K1 K2 B: p_o 1/3, p_e 1/3: 0;
	//	ben/cy on K1 K2 C: p_o 2/3, p_e 1/3: 1/2.
	dee.do("agreement", chromedp.Navigate(f.srv.URL+"/label/deps/agreement"), chromedp.WaitVisible(chromedp.CSS(`#initial .fleiss`)))
	if got := dee.text(`#initial .fleiss`); got != fmt.Sprintf("%.3f", 25.0/49) {
		t.Errorf("Fleiss' kappa on the page %q, want %.3f", got, 25.0/49)
	}
	cohen := dee.eval(`[...document.querySelectorAll("#initial .cohen tr")].slice(1).map(r => r.cells[0].textContent + " " + r.cells[2].textContent).join("; ")`)
	if cohen != "ana/ben 1.000; ana/cy 0.000; ben/cy 0.500" {
		t.Errorf("Cohen's kappa on the page: %q", cohen)
	}
	rep, err := label.Load(context.Background(), f.st, "deps")
	if err != nil {
		t.Fatal(err)
	}
	r := rep.BuildReport()
	got := []float64{*r.Initial.Fleiss.Value, *r.Initial.Cohen[0].Value, *r.Initial.Cohen[1].Value, *r.Initial.Cohen[2].Value, *r.CalibrationAgreement.Fleiss.Value}
	if diff := cmp.Diff([]float64{25.0 / 49, 1, 0, 0.5, 5.0 / 11}, got, cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) < 1e-12 })); diff != "" {
		t.Errorf("kappas (-hand +computed):\n%s", diff)
	}

	// The export, as the adjudicator downloads it (the viewer's HTTP, their link's session).
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	resp, err := client.Get(f.links["dee"])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = client.Get(f.srv.URL + "/label/deps/export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	exported := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		x, err := suite.DecodeCase([]byte(line))
		if err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		exported[x.ID] = string(x.Label) + " " + x.VEX.Category + " " + strings.Join(x.VEX.Alternatives, ",") + " " + x.Meta["annotation"].(map[string]any)["settled"].(string)
	}
	want := map[string]string{k1: "vul vulnerable  unanimous", k2: "ben code_not_reachable requires_configuration adjudicated",
		a: "ben code_not_present  unanimous", b: "ben code_not_reachable  unanimous", c: "ben code_not_reachable  unanimous"}
	if diff := cmp.Diff(want, exported); resp.StatusCode != 200 || diff != "" {
		t.Errorf("export (status %d) (-want +got):\n%s", resp.StatusCode, diff)
	}
	// An annotator cannot download it.
	jar2, _ := cookiejar.New(nil)
	c2 := &http.Client{Jar: jar2}
	r2, _ := c2.Get(f.links["ana"])
	r2.Body.Close()
	if r2, _ = c2.Get(f.srv.URL + "/label/deps/export.jsonl"); r2.StatusCode != http.StatusForbidden {
		t.Errorf("an annotator's export: %d", r2.StatusCode)
	}
	r2.Body.Close()
}

func rowCount(t *testing.T, st *store.Store) int {
	t.Helper()
	rows, err := st.LabelRows(context.Background(), "deps")
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// cases is which case of the fixture's project is what.
type cases struct {
	cal    []string
	notAna string // an assigned case that is not ana's
}

func projectCases(t *testing.T, f *fixture) cases {
	t.Helper()
	p, err := label.Load(context.Background(), f.st, "deps")
	if err != nil {
		t.Fatal(err)
	}
	var out cases
	for _, c := range p.Cases {
		switch {
		case c.Calibration:
			out.cal = append(out.cal, c.ID)
		case !c.IsAssigned("ana"):
			out.notAna = c.ID
		}
	}
	return out
}
