package cli_test

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/formats"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/web"
)

// A run whose provider echoes the key, a DSN password and an Authorization header in its error
// bodies and replies stores and prints none of them: not in the SQLite file or its WAL, the
// commands' output, any export, the HTML report or the viewer's pages (issue 25, finding 2).
func TestSecretsNeverLeaveTheProcess(t *testing.T) {
	const key, dsnPass = "planted-key-Zq81xV0", "dsnpass77Kq"
	echo := "your key " + key + " (Authorization: Bearer " + key + ") cannot reach postgres://vb:" + dsnPass + "@db.internal/vb"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	suitePath := writeLLMSuite(t, dir, 4)
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.Prompt(), "c0001") || strings.Contains(r.Prompt(), "c0003") {
			return llmtest.Reply{Status: 400, ErrorMessage: echo}
		}
		return llmtest.Reply{Text: `{"vulnerable": true, "cwe": ["CWE-787"], "explanation": "` + echo + `"}`}
	})
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", key)
	db := filepath.Join(dir, "v.db")
	var printed strings.Builder
	do := func(args ...string) int {
		code, out, errOut := run(t, dir, args...)
		printed.WriteString(out + errOut)
		if code != 0 {
			t.Logf("%s: exit %d: %s", args[0], code, errOut)
		}
		return code
	}
	do(llmArgs(suitePath, db, srv.BaseURL(), "r1", "--no-score")...)
	do("runs", "--db", db)
	do("score", "--run", "r1", "--db", db)
	for _, f := range formats.All().For(output.Export{}) {
		if code := do("export", "--run", "r1", "--db", db, "--format", f, "--out", filepath.Join(dir, "export."+f)); code != 0 && f != "openvex" { // openvex: VEX runs only
			t.Errorf("export --format %s: exit %d", f, code)
		}
	}
	if code := do("report", "--run", "r1", "--db", db, "--html", filepath.Join(dir, "html")); code != 0 {
		t.Errorf("report --html: exit %d", code)
	}
	if !strings.Contains(printed.String(), "[redacted]") && !strings.Contains(printed.String(), "r1") {
		t.Fatalf("the commands printed nothing of the run:\n%s", printed.String())
	}
	// The viewer's pages.
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	h := web.Guard(web.New(st, web.Options{}), nil)
	var pages strings.Builder
	for _, p := range []string{"/", "/runs/r1", "/runs/r1/cases", "/runs/r1/case?id=c0001", "/runs/r1/case?id=c0002", "/runs/r1/case?id=c0003"} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", p, nil)
		r.Host = "127.0.0.1:8080"
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Errorf("GET %s: %d", p, w.Code)
		}
		pages.WriteString(w.Body.String())
	}
	st.Close()
	if !strings.Contains(pages.String(), "[redacted]") {
		t.Errorf("the case pages show no scrubbed reason: was the echo stored at all?")
	}
	found := map[string][]string{}
	check := func(where, text string) {
		for _, s := range []string{key, dsnPass} {
			if strings.Contains(text, s) {
				found[s] = append(found[s], where)
			}
		}
	}
	check("the commands' output", printed.String())
	check("the viewer's pages", pages.String())
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "prices.yaml") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			t.Error(err)
			return nil
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		check(strings.TrimPrefix(p, dir+"/"), string(b))
		return nil
	})
	for s, where := range found {
		t.Errorf("%q found in %s", s, strings.Join(where, ", "))
	}
}
