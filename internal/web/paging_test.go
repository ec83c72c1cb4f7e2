package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/cli"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/web"
)

// TestLongCaseIsPaged: a case of 2.5 MB of code (40,000 lines, one of them 300 KB) judged by a
// model whose request holds it all: the case page shows CodePage lines at a time and cuts the
// long line and the request's text, staying a small page; the pages link each other and every
// line is on one of them; the whole code and the whole request are a link away as plain text.
// It was written whole (a 7.3 MB function made a 99.8 MB page).
func TestLongCaseIsPaged(t *testing.T) {
	dir := t.TempDir()
	var code strings.Builder
	const lines = 40000
	for i := 1; i <= lines; i++ {
		if i == 7 {
			fmt.Fprintf(&code, "  char table[] = \"%s\";\n", strings.Repeat("A", 300<<10))
			continue
		}
		fmt.Fprintf(&code, "  x[%d] = y[%d] + %d; /* line %d */\n", i, i, i, i)
	}
	c, _ := json.Marshal(code.String())
	suite := filepath.Join(dir, "s.jsonl")
	os.WriteFile(suite, []byte(`{"id":"big","kind":"function","label":"vul","language":"c","code":`+string(c)+"}\n"), 0o644)
	srv := llmtest.NewOpenAI(llmtest.Fixed(`{"vulnerable": true, "cwe": "CWE-787"}`))
	defer srv.Close()
	db := filepath.Join(dir, "v.db")
	t.Setenv("OPENAI_API_KEY", "k")
	var out, errb strings.Builder
	if code := cli.Run(context.Background(), []string{"run", "--db", db, "--suite", suite, "--subject", "llm", "--model", "openai:gpt-4o-mini",
		"--base-url", srv.BaseURL(), "--run-id", "r", "--no-score", "--max-retries", "0"}, nil, &out, &errb); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errb.String())
	}
	view := serve(t, &fixture{db: db})
	caseURL := "/runs/r/case?" + url.Values{"id": {"big"}}.Encode()
	status, page := get(t, view, caseURL)
	if status != 200 {
		t.Fatalf("GET %s: %d\n%.2000s", caseURL, status, page)
	}
	if len(page) > 1<<20 {
		t.Errorf("the case page is %d bytes for %d bytes of code: want under 1 MiB", len(page), code.Len())
	}
	if !strings.Contains(page, "1–2000 of 40000 (page 1 of 20)") || !strings.Contains(page, "more bytes of this line") {
		t.Errorf("page 1 does not say which lines it shows or does not cut the long line:\n%.3000s", page)
	}
	seen := map[int]bool{}
	lineRe := regexp.MustCompile(`/\* line (\d+) \*/`)
	next := caseURL
	for n := 0; next != "" && n < 25; n++ {
		status, page := get(t, view, next)
		if status != 200 {
			t.Fatalf("GET %s: %d", next, status)
		}
		for _, m := range lineRe.FindAllStringSubmatch(page, -1) {
			var k int
			fmt.Sscan(m[1], &k)
			seen[k] = true
		}
		next = ""
		if m := regexp.MustCompile(`<a rel="next" href="([^"]+)"`).FindStringSubmatch(page); m != nil {
			next = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	if len(seen) != lines-1 {
		t.Errorf("following the next links showed %d of the %d numbered lines", len(seen), lines-1)
	}
	// The whole code and the whole request, as plain text.
	if status, whole := get(t, view, "/runs/r/case/code?id=big"); status != 200 || whole != code.String() {
		t.Errorf("the whole code: %d, %d bytes, want %d", status, len(whole), code.Len())
	}
	m := regexp.MustCompile(`href="(/runs/r/case/event\?[^"]+)">the whole event`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the model request is not cut with a link to it whole")
	}
	if status, ev := get(t, view, strings.ReplaceAll(m[1], "&amp;", "&")); status != 200 || len(ev) <= web.CutAt || !strings.Contains(ev, "/* line 6 */") {
		t.Errorf("the whole event: %d, %d bytes, want the request as stored, longer than the page shows", status, len(ev))
	}
	if status, _ := get(t, view, "/runs/r/case/event?id=big&repeat=0&attempt=0&seq=x"); status != 400 {
		t.Errorf("a bad seq: %d, want 400", status)
	}
}

// The pager's arithmetic: pages clamp, the first and last have no link beyond them.
func TestPageOf(t *testing.T) {
	link := func(p int) string { return fmt.Sprint("p", p) }
	for _, tc := range []struct {
		page, total, size int
		want              web.Pager
		lo, hi            int
	}{
		{1, 0, 10, web.Pager{Page: 1, Pages: 1, First: 1, Last: 0, Total: 0}, 0, 0},
		{1, 25, 10, web.Pager{Page: 1, Pages: 3, First: 1, Last: 10, Total: 25, Next: "p2", LastURL: "p3"}, 0, 10},
		{3, 25, 10, web.Pager{Page: 3, Pages: 3, First: 21, Last: 25, Total: 25, Prev: "p2", FirstURL: "p1"}, 20, 25},
		{9, 25, 10, web.Pager{Page: 3, Pages: 3, First: 21, Last: 25, Total: 25, Prev: "p2", FirstURL: "p1"}, 20, 25},
		{2, 25, 10, web.Pager{Page: 2, Pages: 3, First: 11, Last: 20, Total: 25, Prev: "p1", FirstURL: "p1", Next: "p3", LastURL: "p3"}, 10, 20},
	} {
		got, lo, hi := web.PageOf(tc.page, tc.total, tc.size, link)
		if d := cmp.Diff(tc.want, got); d != "" || lo != tc.lo || hi != tc.hi {
			t.Errorf("PageOf(%d, %d, %d): %d..%d (want %d..%d) %s", tc.page, tc.total, tc.size, lo, hi, tc.lo, tc.hi, d)
		}
	}
}
