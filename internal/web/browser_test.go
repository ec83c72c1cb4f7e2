package web_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium is Debian's browser, which make test installs; the browser tests need it.
const chromium = "/usr/bin/chromium"

// browser starts a headless Chromium for the test and returns a tab's context and the list of
// console errors and failed requests seen so far.
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is missing (apt-get install -y chromium, or make test, installs it): %v", chromium, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // as root, Chromium refuses to start with its sandbox
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(1280, 1024),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelT(); cancel(); cancelA() })
	var mu sync.Mutex
	var problems []string
	add := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, a.Description+string(a.Value))
				}
				add("console %s: %s", ev.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			add("exception: %s", ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				add("log %s: %s (%s)", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventLoadingFailed:
			add("request failed: %s %s", ev.ErrorText, ev.BlockedReason)
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 {
				add("HTTP %d: %s", ev.Response.Status, ev.Response.URL)
			}
		}
	}); err != nil {
		t.Fatalf("start %s: %v", chromium, err)
	}
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := problems
		problems = nil
		return out
	}
}

// shoot writes a full-page screenshot of the tab under dir and checks it is not trivial.
func shoot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 20000 {
		t.Errorf("screenshot %s is %d bytes: a blank page?", path, fi.Size())
	}
	t.Logf("%s: %d bytes", path, fi.Size())
}

// artifacts is where the browser tests keep their screenshots, to be looked at after the test:
// $VULNBENCH_ARTIFACTS, else testdata/artifacts (ignored by git). The test prints the path.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("VULNBENCH_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "artifacts")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// svgOverflows lists every text element of the page's SVG plots whose bounding box is not inside
// its SVG's (a cut title, label or tick): "caption: text" each.
const svgOverflows = `[...document.querySelectorAll("svg")].flatMap(svg => {
  const b = svg.getBoundingClientRect();
  const name = (svg.closest("figure")?.querySelector("figcaption")?.textContent || svg.getAttribute("aria-label") || "svg").slice(0, 60);
  return [...svg.querySelectorAll("text")].filter(t => t.textContent.trim() !== "").filter(t => {
    const r = t.getBoundingClientRect();
    return r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5;
  }).map(t => name + ": " + t.textContent.trim());
})`

// checkSVGText fails the test for every text of the page's plots that crosses its SVG's box.
func checkSVGText(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](svgOverflows))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	for _, b := range bad {
		t.Errorf("%s: text outside its plot: %s", page, b)
	}
}

// Every page type of the viewer loads in Chromium with no console error and no failed request,
// and does what it is for.
func TestBrowser(t *testing.T) {
	f := newFixture(t)
	srv := serve(t, f)
	ctx, problems := browser(t)
	shots := artifacts(t)
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for _, p := range problems() {
			t.Errorf("%s: %s", what, p)
		}
	}
	visit := func(name, path string) {
		t.Helper()
		check(name+" ("+path+")", chromedp.Do(ctx, chromedp.Navigate(srv.URL+path), chromedp.WaitReady(chromedp.CSS("body"))))
	}
	eval := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		check(js, err)
		return n
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		check(sel, err)
		return s
	}

	visit("runs", "/")
	if n := eval(`document.querySelectorAll("#runs tbody tr").length`); n != 3 {
		t.Errorf("runs page: %d runs, want 3", n)
	}
	shoot(t, ctx, shots, "runs")

	visit("run", "/runs/"+f.agent)
	if n := eval(`document.querySelectorAll("figure svg").length`); n < 5 { // F1/pAcc, pairwise, tool calls, cost, ROC
		t.Errorf("run page: %d plots, want at least 5", n)
	}
	for _, want := range []string{"Tokens per case", "Cost per case:", "Cost per case against F1", "Tool calls per label " + f.agent, "VD-S curve " + f.agent} {
		if n := eval(fmt.Sprintf(`[...document.querySelectorAll("figure")].filter(e => e.querySelector("svg") && e.querySelector("figcaption").textContent.startsWith(%q)).length`, want)); n != 1 {
			t.Errorf("run page: %d plots captioned %q, want 1", n, want)
		}
	}
	checkSVGText(t, ctx, "run page")
	shoot(t, ctx, shots, "run")
	visit("run of constant:vul", "/runs/"+f.vul)
	if s := text(`figure.roc figcaption`); !strings.Contains(s, "degenerate") {
		t.Errorf("constant:vul's ROC caption does not say degenerate: %q", s)
	}

	// The agent's case page shows each tool call, and the case's markup as text.
	visit("case", "/runs/"+f.agent+"/case?"+url.Values{"id": {"v0"}}.Encode())
	calls, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".attempt.scored .event.tool_call code.name")].map(e => e.textContent)`))
	check("tool calls", err)
	if len(calls) != f.agentToolCallsOnV0 || calls[0] != "get_callers" {
		t.Errorf("case page: tool calls %q, want %d get_callers", calls, f.agentToolCallsOnV0)
	}
	if n := eval(`document.querySelectorAll(".attempt.scored .event.tool_result").length`); n != f.agentToolCallsOnV0 {
		t.Errorf("case page: %d observations, want %d", n, f.agentToolCallsOnV0)
	}
	if n := eval(`document.querySelectorAll("script").length`); n != 0 {
		t.Errorf("case page: %d script elements", n)
	}
	if s := text(`#code`); !strings.Contains(s, `<script>document.title="pwned"</script>`) {
		t.Errorf("case page: the code shown: %q", s)
	}
	if title, err := chromedp.Run(ctx, chromedp.Title()); err != nil || strings.Contains(title, "pwned") {
		t.Errorf("case page: title %q, %v", title, err)
	}
	shoot(t, ctx, shots, "case")

	// Filters and pagination, driven through the form and the links.
	visit("cases", "/runs/"+f.agent+"/cases")
	if s := text(`#count`); !strings.HasPrefix(s, "60 cases, 1 to 50") {
		t.Errorf("cases page: %q", s)
	}
	shoot(t, ctx, shots, "cases")
	check("next page", chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#next`)), chromedp.WaitVisible(chromedp.CSS(`#prev`))))
	if s, n := text(`#count`), eval(`document.querySelectorAll("#cases tbody tr").length`); !strings.HasPrefix(s, "60 cases, 51 to 60") || n != 10 {
		t.Errorf("page 2: %q, %d rows; want 51 to 60, 10 rows", s, n)
	}
	check("filters", chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`select[name=label]`), "ben"),
		chromedp.SetValue(chromedp.CSS(`select[name=cwe]`), "CWE-120"),
		chromedp.SetValue(chromedp.CSS(`select[name=flip]`), f.vul),
		chromedp.Click(chromedp.CSS(`#apply`)),
		chromedp.WaitReady(chromedp.CSS(`select[name=flip] option[selected]`))))
	if s, n := text(`#count`), eval(`document.querySelectorAll("#cases tbody tr").length`); !strings.HasPrefix(s, "10 cases") || n != 10 {
		t.Errorf("ben, CWE-120, flipped against %s: %q, %d rows; want 10", f.vul, s, n)
	}
	shoot(t, ctx, shots, "cases-filtered")

	visit("compare", "/compare?a="+f.agent+"&b="+f.vul)
	if n := eval(`document.querySelectorAll("#flips tbody tr").length`); n != 30 {
		t.Errorf("compare page: %d flips, want 30", n)
	}
	checkSVGText(t, ctx, "compare page")
	shoot(t, ctx, shots, "compare")
}

// The static report opens from file:// with no request but its own, and no error.
func TestReportFromFile(t *testing.T) {
	f := newFixture(t)
	page := runReport(t, f, filepath.Join(f.dir, "report"))
	ctx, problems := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg").length`))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems() {
		t.Errorf("report: %s", p)
	}
	// F1/pAcc, pairwise, tool calls, cost, three ROC and three VD-S curves, tokens and cost per
	// case, tool calls per label of the agent
	if n < 13 {
		t.Errorf("report: %d plots, want 13", n)
	}
	checkSVGText(t, ctx, "report")
	shoot(t, ctx, artifacts(t), "report")
}
