package web_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vulnbench/vulnbench/internal/cli"
)

// figureChecks are what every figure of a page must hold, as Chromium draws it at 1280 px, a
// problem a string: in a figure marked data-y="fraction" every tick label of the y axis is a
// number in [0, 1] (and there are some); in one marked data-x="log" the x axis's tick labels grow
// by one factor per equal step (a logarithmic axis) over at least two decades; every whisker
// (a black path of three strokes, whiskers' own) stands at the centre of one bar of its plot.
const figureChecks = `(() => {
  const out = [];
  const notRotated = t => !t.closest("g[transform*=rotate]");
  const numeric = t => /^-?\d+(\.\d+)?(e[-+]?\d+)?$/.test(t.textContent.trim());
  for (const fig of document.querySelectorAll("figure")) {
    const svg = fig.querySelector("svg");
    if (!svg) continue;
    const name = fig.id;
    const b = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")].filter(notRotated).filter(numeric);
    if (fig.dataset.y === "fraction") {
      const ys = texts.filter(t => { const r = t.getBoundingClientRect(); return r.right < b.left + b.width * 0.3 && r.bottom < b.bottom - 40; });
      if (ys.length < 2) out.push(name + ": " + ys.length + " y tick labels found");
      for (const t of ys) {
        const v = parseFloat(t.textContent);
        if (!(v >= 0 && v <= 1)) out.push(name + ": y tick " + t.textContent + " outside [0, 1]");
      }
    }
    if (fig.dataset.x === "log") {
      const xs = texts.filter(t => { const r = t.getBoundingClientRect(); return r.top > b.top + b.height * 0.6 && r.left > b.left + 40; })
        .map(t => ({v: parseFloat(t.textContent), x: (t.getBoundingClientRect().left + t.getBoundingClientRect().right) / 2}))
        .sort((p, q) => p.x - q.x);
      if (xs.length < 3) out.push(name + ": " + xs.length + " x tick labels on the log axis");
      for (let i = 2; i < xs.length; i++) {
        const r1 = xs[i].v / xs[i-1].v, r0 = xs[i-1].v / xs[i-2].v;
        const d1 = xs[i].x - xs[i-1].x, d0 = xs[i-1].x - xs[i-2].x;
        if (!(r0 > 1.5) || Math.abs(r1 / r0 - 1) > 0.01 || Math.abs(d1 / d0 - 1) > 0.05) {
          out.push(name + ": x ticks " + xs.map(p => p.v).join(", ") + " at " + xs.map(p => p.x.toFixed(1)).join(", ") + " are not a log axis");
          break;
        }
      }
    }
    const paths = [...svg.querySelectorAll("path")];
    const bars = paths.filter(p => /fill:#(?!FFFFFF)[0-9A-F]{6}/i.test(p.getAttribute("style") || "") && (p.getAttribute("d").match(/L/g) || []).length === 3)
      .map(p => p.getBoundingClientRect()).filter(r => r.height > 0.5);
    const ws = paths.filter(p => /stroke:#000000;stroke-width:1.2/.test(p.getAttribute("style") || "") && (p.getAttribute("d").match(/M/g) || []).length === 3);
    for (const w of ws) {
      const r = w.getBoundingClientRect(), cx = (r.left + r.right) / 2;
      const on = bars.filter(q => Math.abs((q.left + q.right) / 2 - cx) < 1);
      if (on.length === 0) out.push(name + ": a whisker at x " + cx.toFixed(1) + " stands on no bar");
    }
    fig.dataset.whiskers = ws.length;
  }
  return out;
})()`

// TestFiguresInChromium renders reports of a VEX-Bench suite (three runs: one of three repeats,
// one priced, one unpriced; three languages and three repository sizes) and of a function suite
// (three priced runs decades apart in cost) and checks every figure as Chromium draws it:
// no text leaves its plot, fraction axes stay in [0, 1], cost axes are logarithmic, whiskers sit
// on their bars. A screenshot of each figure is kept as a test artifact.
func TestFiguresInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subjects and Chromium")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "v.db")
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vcli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), args, nil, &out, &errb); code != 0 {
			t.Fatalf("vulnbench %v: exit %d\n%s\n%s", args, code, out.String(), errb.String())
		}
		return out.String()
	}
	// A VEX-Bench suite of 30 cases over three languages and three repository sizes.
	cats := []string{"vulnerable", "code_not_reachable", "code_not_present", "requires_configuration", "code_not_reachable", "vulnerable"}
	var suite, a, b, c strings.Builder
	for i := range 30 {
		cat := cats[i%len(cats)]
		label := map[bool]string{true: "vul", false: "ben"}[cat == "vulnerable"]
		fmt.Fprintf(&suite, `{"id":"v%02d","kind":"vex","label":%q,"cve":"CVE-2024-%04d","language":%q,"repo":{"url":"https://github.com/acme/p%d","commit":"%040d"},"vex":{"category":%q},"meta":{"repo_size":%d}}`+"\n",
			i, label, 1000+i, []string{"go", "java", "python"}[i%3], i, i, cat, []int{9_000, 250_000, 2_000_000}[i/10])
		answer := func(k int) (string, string) { // right on most cases, wrong where k divides in
			ans := cat
			if (i+k)%4 == 0 {
				ans = cats[(i+1)%len(cats)]
			}
			return map[bool]string{true: "vul", false: "ben"}[ans == "vulnerable"], ans
		}
		for r := range 3 {
			l, ans := answer(r)
			fmt.Fprintf(&a, `{"case_id":"v%02d","repeat":%d,"status":"ok","label":%q,"vex":{"category":%q},"usage":{"input_tokens":%d,"output_tokens":300,"cost_usd":0.4}}`+"\n", i, r, l, ans, 20000+1000*r)
		}
		l, ans := answer(1)
		fmt.Fprintf(&b, `{"case_id":"v%02d","status":"ok","label":%q,"vex":{"category":%q},"usage":{"input_tokens":8000,"output_tokens":200,"cost_usd":0.03}}`+"\n", i, l, ans)
		l, ans = answer(2)
		fmt.Fprintf(&c, `{"case_id":"v%02d","status":"ok","label":%q,"vex":{"category":%q},"usage":{"input_tokens":50000,"output_tokens":900}}`+"\n", i, l, ans)
	}
	write("vex.jsonl", suite.String())
	write("a.jsonl", a.String())
	write("b.jsonl", b.String())
	write("c.jsonl", c.String())
	vcli("run", "--db", db, "--suite", filepath.Join(dir, "vex.jsonl"), "--subject", "predictions:"+filepath.Join(dir, "a.jsonl"), "--repeats", "3", "--run-id", "vex-three-repeats", "--no-score")
	vcli("run", "--db", db, "--suite", filepath.Join(dir, "vex.jsonl"), "--subject", "predictions:"+filepath.Join(dir, "b.jsonl"), "--run-id", "vex-priced", "--no-score")
	vcli("run", "--db", db, "--suite", filepath.Join(dir, "vex.jsonl"), "--subject", "predictions:"+filepath.Join(dir, "c.jsonl"), "--run-id", "vex-unpriced", "--no-score")

	// A function suite of 20 pairs in two languages; three runs whose cost per case spans decades.
	var fsuite strings.Builder
	preds := make([]strings.Builder, 3)
	for i := range 20 {
		for _, l := range []string{"vul", "ben"} {
			fmt.Fprintf(&fsuite, `{"id":"f%02d-%s","kind":"function","label":%q,"pair":"p%02d","language":%q,"project":"proj%d","cwe":["CWE-787"],"code":"int f%d_%s(void){return 0;}"}`+"\n",
				i, l, l, i, []string{"c", "cpp"}[i%2], i%4, i, l)
			for k := range preds {
				ans := l
				if (i+k)%3 == 0 {
					ans = "vul"
				}
				fmt.Fprintf(&preds[k], `{"case_id":"f%02d-%s","status":"ok","label":%q,"score":%g,"usage":{"input_tokens":900,"output_tokens":20,"cost_usd":%g}}`+"\n",
					i, l, ans, float64((i*7+k)%10)/10, []float64{0.0004, 0.02, 1.5}[k])
			}
		}
	}
	write("fn.jsonl", fsuite.String())
	for k := range preds {
		write(fmt.Sprintf("f%d.jsonl", k), preds[k].String())
		vcli("run", "--db", db, "--suite", filepath.Join(dir, "fn.jsonl"), "--subject", "predictions:"+filepath.Join(dir, fmt.Sprintf("f%d.jsonl", k)),
			"--run-id", fmt.Sprintf("fn-%d", k), "--no-score")
	}

	ctx, problems := browser(t)
	shots := artifacts(t)
	for _, rp := range []struct {
		name string
		runs []string
		want []string // figures the page must have, by id
	}{
		{"vex", []string{"vex-three-repeats", "vex-priced", "vex-unpriced"}, []string{"vex-bench-status-f1-and-justification-macro-f1", "vex-tokens-per-case",
			"cost-per-case-against-status-f1", "status-f1-by-language", "justification-macro-f1-by-repository-size", "vex-confusion-vex-priced"}},
		{"function", []string{"fn-0", "fn-1", "fn-2"}, []string{"f1-and-pacc", "pairwise-outcomes", "cost-per-case-against-f1", "f1-by-language"}},
	} {
		args := []string{"report", "--db", db, "--html", filepath.Join(dir, rp.name)}
		for _, r := range rp.runs {
			args = append(args, "--run", r)
		}
		page := strings.TrimSpace(vcli(args...))
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
			t.Fatal(err)
		}
		for _, p := range problems() {
			t.Errorf("%s report: %s", rp.name, p)
		}
		checkSVGText(t, ctx, rp.name+" report")
		bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](figureChecks))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Errorf("%s report: %s", rp.name, b)
		}
		ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("figure")].filter(f => f.querySelector("svg")).map(f => f.id)`))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range rp.want {
			if !contains(ids, "fig-"+w) {
				t.Errorf("%s report: no figure %s among %v", rp.name, w, ids)
			}
		}
		whiskered, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("figure")].reduce((n, f) => n + Number(f.dataset.whiskers || 0), 0)`))
		if err != nil || whiskered < 6 {
			t.Errorf("%s report: %d whiskers drawn (%v): the check would see none", rp.name, whiskered, err)
		}
		if rp.name == "vex" {
			cost, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#runs tbody tr")].map(r => r.cells[0].textContent + " " + r.cells[6].textContent)`))
			if err != nil || !contains(cost, "vex-unpriced unpriced") || !contains(cost, "vex-priced $0.9000") {
				t.Errorf("the runs table's cost: %q, %v (an unpriced run is never $0)", cost, err)
			}
			note, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#fig-cost-per-case-against-status-f1 figcaption`)))
			if err != nil || !strings.Contains(note, "left off, unpriced (no price for the model): vex-unpriced") {
				t.Errorf("the cost figure does not name the unpriced run it leaves off: %q, %v", note, err)
			}
		}
		for _, id := range ids {
			png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#"+id)))
			if err != nil {
				t.Fatalf("screenshot %s: %v", id, err)
			}
			if err := os.WriteFile(filepath.Join(shots, rp.name+"-"+strings.TrimPrefix(id, "fig-")+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		shoot(t, ctx, shots, "report-"+rp.name)
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
