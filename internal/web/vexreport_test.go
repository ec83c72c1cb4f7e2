package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/vulnbench/vulnbench/internal/output/html"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// The VEX confusion heat map, over all twelve categories with their long names, fits its plot
// in Chromium at 1280 px, as the report of a VEX predictions file shows it.
func TestReportFromFileVEX(t *testing.T) {
	dir := t.TempDir()
	var s, a strings.Builder
	cats := suite.VEXCategories
	for i := range 3 * len(cats) {
		c := cats[i%len(cats)]
		label := "ben"
		if c == suite.VEXVulnerable {
			label = "vul"
		}
		answer := cats[(i+i/len(cats))%len(cats)] // right on the first twelve, shifted after
		al := "ben"
		if answer == suite.VEXVulnerable {
			al = "vul"
		}
		fmt.Fprintf(&s, `{"id":"v%d","kind":"vex","label":%q,"cve":"CVE-2020-1000","language":"go","repo":{"url":"https://github.com/a/b","commit":"%040d"},"vex":{"category":%q}}`+"\n", i, label, i, c)
		fmt.Fprintf(&a, `{"case_id":"v%d","label":%q,"vex":{"category":%q}}`+"\n", i, al, answer)
	}
	suitePath, preds := filepath.Join(dir, "vex.jsonl"), filepath.Join(dir, "vex-answers.jsonl")
	for p, text := range map[string]string{suitePath: s.String(), preds: a.String()} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := report.Build(t.Context(), nil, report.Request{Predictions: []string{preds}, Suite: suitePath, Plots: true})
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "index.html")
	out, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := (html.Page{}).Present(out, rep); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, problems := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatal(err)
	}
	for _, p := range problems() {
		t.Errorf("report: %s", p)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("figure")].filter(e => e.querySelector("svg") && e.querySelector("figcaption").textContent.startsWith("VEX confusion vex-answers.jsonl")).length`))
	if err != nil || n != 1 {
		t.Errorf("report: %d VEX confusion heat maps (%v), want 1", n, err)
	}
	checkSVGText(t, ctx, "VEX report")
	shoot(t, ctx, artifacts(t), "report-vex")
}
