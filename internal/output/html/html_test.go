package html_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	stdhtml "html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/output/html"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
)

// fixture writes a suite of 6 pairs over two CWEs and two predictions files: one with scores
// (a real ranking), one with labels only (VD-S degenerate), named with markup.
func fixture(t *testing.T) (suitePath string, preds []string) {
	t.Helper()
	dir := t.TempDir()
	var s, a, b strings.Builder
	for i := range 6 {
		cwe := "CWE-787"
		if i%2 == 1 {
			cwe = "CWE-79"
		}
		for _, l := range []string{"vul", "ben"} {
			id := fmt.Sprintf("c%d-%s", i, l)
			fmt.Fprintf(&s, `{"id":%q,"kind":"function","label":%q,"pair":"p%d","language":"c","cwe":[%q],"code":"int f(){ return 0; } /* <script>alert(1)</script> */"}`+"\n", id, l, i, cwe)
			sc := 0.2 + 0.1*float64(i)
			if l == "ben" {
				sc = 0.5 - 0.05*float64(i)
			}
			lab := "ben"
			if sc >= 0.5 {
				lab = "vul"
			}
			fmt.Fprintf(&a, `{"case_id":%q,"label":%q,"score":%g,"score_source":"logprob"}`+"\n", id, lab, sc)
			if i%3 == 0 {
				lab = "vul"
			}
			fmt.Fprintf(&b, `{"case_id":%q,"label":%q}`+"\n", id, lab)
		}
	}
	suitePath = filepath.Join(dir, "suite.jsonl")
	preds = []string{filepath.Join(dir, "scored.jsonl"), filepath.Join(dir, "<img src=x onerror=alert(1)>.jsonl")}
	for p, text := range map[string]string{suitePath: s.String(), preds[0]: a.String(), preds[1]: b.String()} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return suitePath, preds
}

func build(t *testing.T) *report.Report {
	t.Helper()
	suitePath, preds := fixture(t)
	rep, err := report.Build(t.Context(), nil, report.Request{Predictions: preds, Suite: suitePath,
		CI: &score.CIOptions{Resamples: 200, Seed: 1}, Plots: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func render(t *testing.T, rep *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := (html.Page{}).Present(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestReport(t *testing.T) {
	rep := build(t)
	page := render(t, rep)
	for _, want := range []string{
		"<svg", "F1 and pAcc per run", "Pairwise outcomes per run", "ROC scored.jsonl",
		"VD-S: FNR", "degenerate: the scores take at most two values", "F1 95% CI",
		"random guessing on pairs: P-C = P-V = P-B = P-R = 25.0%", "F1 50.0%", // half the cases are vul: F1 = 0.5/(0.5+0.5)
		"<th>F1 scored.jsonl</th>", "CWE-787", "pAcc",
		"VD-S curve scored.jsonl</text>", "tolerated false-positive rate r</text>", "false-negative rate</text>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg"); n != 6 { // headline, pairwise, two ROC curves, two VD-S curves
		t.Errorf("%d plots, want 6", n)
	}
	// Self-contained: no script, no style sheet or image fetched, no URL but SVG's namespaces;
	// the downloads are data: URLs.
	for _, m := range regexp.MustCompile(`\s(src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if u := stdhtml.UnescapeString(m[2]); !strings.HasPrefix(u, "data:image/svg+xml;") && !strings.HasPrefix(u, "data:text/csv;") {
			t.Errorf("the report links to %.80q", u)
		}
	}
	if n := strings.Count(page, ` download="`); n != 12 { // each plot's SVG and data
		t.Errorf("%d downloads, want 12", n)
	}
	for _, bad := range []*regexp.Regexp{regexp.MustCompile(`<script`), regexp.MustCompile(`<link`), regexp.MustCompile(`<[a-z]+[^>]*\ssrc=`),
		regexp.MustCompile(`https?://[^"]*`)} {
		for _, m := range bad.FindAllString(page, -1) {
			if m == "http://www.w3.org/2000/svg" || m == "http://www.w3.org/1999/xlink" {
				continue
			}
			t.Errorf("the report is not self-contained: %q", m)
		}
	}
	if !strings.Contains(page, "&lt;img src=x onerror=alert(1)&gt;.jsonl") {
		t.Errorf("a run named with markup is not shown escaped")
	}
}

// The same report model renders the same bytes, from scratch and again.
func TestReportIsDeterministic(t *testing.T) {
	suitePath, preds := fixture(t)
	var pages []string
	for range 2 {
		rep, err := report.Build(t.Context(), nil, report.Request{Predictions: preds, Suite: suitePath, CI: &score.CIOptions{Resamples: 200, Seed: 1}, Plots: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []float64{0.25, 0} {
			rep.Runs[i].Spend = &store.Spend{Attempts: 40, Priced: 40, Cost: c}
		}
		pages = append(pages, render(t, rep))
	}
	if pages[0] != pages[1] {
		t.Errorf("two renderings of one report differ")
	}
	if !strings.Contains(pages[0], "Cost per case against F1") {
		t.Errorf("costs given, but no cost plot")
	}
	// The fragment is the page's content without the page.
	var frag bytes.Buffer
	if err := (html.Fragment{}).Present(&frag, build(t)); err != nil {
		t.Fatal(err)
	}
	if f := frag.String(); strings.Contains(f, "<html") || !strings.Contains(f, "ROC scored.jsonl") || len(f) < 10000 {
		t.Errorf("the fragment is not the page's content (%d bytes)", len(f))
	}
}

// A report built without Plots has no ROC curve to draw: the page says so and draws none.
func TestReportWithoutPlots(t *testing.T) {
	suitePath, preds := fixture(t)
	rep, err := report.Build(t.Context(), nil, report.Request{Predictions: preds, Suite: suitePath})
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, rep)
	if strings.Contains(page, "VD-S point") || strings.Count(page, "no ROC curve") != 2 {
		t.Errorf("a report without plots drew a ROC curve")
	}
}

// A report of VEX runs plots status F1 and justification macro-F1 per run, on a [0, 1] axis;
// the lenient macro-F1 joins them (and the figure's data) only when some case has alternatives.
func TestVEXPlot(t *testing.T) {
	body := vexReport(t, "")
	for _, want := range []string{"VEX-Bench: status F1, justification macro-F1", "justification macro-F1</text>", ">1.0</text>",
		"VEX confusion p.jsonl</text>", "mitigating_control_protected</text>", "answer</text>", "truth</text>"} {
		if !strings.Contains(body, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(body, "(lenient)</text>") || strings.Contains(body, "strict and lenient") || strings.Contains(csvData(t, body), "lenient") {
		t.Errorf("a suite without alternatives plots a lenient figure")
	}
	body = vexReport(t, `,"alternatives":["code_not_present"]`)
	for _, want := range []string{"justification macro-F1 (strict and lenient)", "justification macro-F1 (lenient)</text>",
		"justification macro-F1</text>", "vex.alternatives", "justification_macro_f1_lenient,justification_macro_f1_lenient_std"} {
		if !strings.Contains(body+csvData(t, body), want) {
			t.Errorf("report of a suite with alternatives lacks %q", want)
		}
	}
}

// vexReport renders the HTML fragment of a run on four vex cases, the first with alt appended
// to its vex object.
func vexReport(t *testing.T, alt string) string {
	t.Helper()
	dir := t.TempDir()
	var s, a strings.Builder
	cats := []string{"vulnerable", "code_not_present", "code_not_reachable", "vulnerable"}
	for i, c := range cats {
		label := "ben"
		if c == "vulnerable" {
			label = "vul"
		}
		more := ""
		if i == 0 {
			more = alt
		}
		fmt.Fprintf(&s, `{"id":"v%d","kind":"vex","label":%q,"cve":"CVE-2020-1000","language":"go","repo":{"url":"https://github.com/a/b","commit":"%040d"},"vex":{"category":%q%s}}`+"\n", i, label, i, c, more)
		fmt.Fprintf(&a, `{"case_id":"v%d","label":%q,"vex":{"category":%q}}`+"\n", i, label, cats[(i+1)%4])
	}
	suitePath, preds := filepath.Join(dir, "vex.jsonl"), filepath.Join(dir, "p.jsonl")
	for p, b := range map[string]string{suitePath: s.String(), preds: a.String()} {
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := report.Build(t.Context(), nil, report.Request{Predictions: []string{preds}, Suite: suitePath})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := (html.Fragment{}).Present(&out, rep); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestPareto(t *testing.T) {
	// cost, F1: run 2 is dominated by run 0 (cheaper and better), run 3 by run 1.
	cost := []float64{0.1, 0.5, 0.3, 0.9, 1.0}
	f1 := []float64{0.6, 0.8, 0.5, 0.7, 0.9}
	if got, want := html.Pareto(cost, f1), []int{0, 1, 4}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Pareto = %v, want %v", got, want)
	}
}

// csvData is the figures' CSV downloads of an HTML page, decoded.
func csvData(t *testing.T, page string) string {
	t.Helper()
	var all strings.Builder
	for _, m := range regexp.MustCompile(`data:text/csv;charset=utf-8;base64,([A-Za-z0-9+/=]+)`).FindAllStringSubmatch(page, -1) {
		b, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}
