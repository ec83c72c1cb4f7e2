package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/suite/appsec"
)

// TestAppSecValidateNamesSyntaxErrors: for each of the twelve languages suite build appsec
// writes, one generated snippet broken on one line (an unterminated string; for Bash, whose
// strings run on over lines to the end of the file, a stray closing brace) is refused by suite
// validate with FILE:LINE of the records file, the record, the twin, the snippet's file_path and
// the broken line, and the parser's message. Vulnerable and secure twins alternate.
func TestAppSecValidateNamesSyntaxErrors(t *testing.T) {
	dir := t.TempDir()
	if code, out, errOut := run(t, dir, "suite", "build", "appsec", "--seed", "42", "--out", "asb"); code != 0 {
		t.Fatalf("suite build: exit %d\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "asb", "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	var langs []string
	var out [][]byte
	type broken struct {
		line                        int // in bad.jsonl
		id, field, twin, file, lang string
		snippetLine                 int
	}
	var want []broken
	for i, l := range lines {
		var rec appsec.Record
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(langs, rec.Language) {
			continue
		}
		langs = append(langs, rec.Language)
		// A clean record before each broken one (the one before it in records.jsonl, of
		// another language): only the broken ones are named.
		if i > 0 {
			out = append(out, lines[i-1])
		}
		field, twin, code := "vulnerable_code", "vulnerable", &rec.VulnerableCode
		if len(langs)%2 == 0 {
			field, twin, code = "secure_code", "secure", &rec.SecureCode
		}
		snippet := strings.SplitAfter(*code, "\n")
		k := min(rec.VulnerableLines[0], len(snippet)) // 1-based
		for strings.TrimSpace(snippet[k-1]) == "" {
			k++
		}
		text := strings.TrimRight(snippet[k-1], "\n")
		if rec.Language == "bash" {
			indent := len(text) - len(strings.TrimLeft(text, " \t"))
			text = text[:indent] + "} " + text[indent:]
		} else {
			text += ` "`
		}
		snippet[k-1] = text + "\n"
		*code = strings.Join(snippet, "")
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
		want = append(want, broken{len(out), rec.BenchmarkID, field, twin, rec.FilePath, rec.Language, k})
	}
	if len(langs) != 12 {
		t.Fatalf("the build has %d languages (%v), want 12", len(langs), langs)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is not on PATH: the Bash snippets cannot be checked")
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.jsonl"), append(bytes.Join(out, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, dir, "suite", "validate", "bad.jsonl")
	if code != 1 || !strings.Contains(stderr, fmt.Sprintf("bad.jsonl: 12 problems in %d records", len(out))) {
		t.Errorf("suite validate: exit %d, want 1 and 12 problems\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range want {
		re := regexp.MustCompile(fmt.Sprintf(`(?m)^bad\.jsonl:%d: %s: %s: %s syntax error in the %s twin at %s:%d(:\d+)?: \S.*$`,
			w.line, w.id, w.field, w.lang, w.twin, regexp.QuoteMeta(w.file), w.snippetLine))
		if m := re.FindString(stdout); m == "" {
			t.Errorf("%s: no line matching %s in\n%s", w.lang, re, stdout)
		} else {
			t.Log(m)
		}
	}
	// Every language is counted: one error each, the rest checked, none unchecked.
	for _, l := range langs {
		re := regexp.MustCompile(`(?m)^  ` + l + ` +[1-9]\d* +0 +1  \(.+\)$`)
		if !re.MatchString(stdout) {
			t.Errorf("%s: no syntax row matching %s in\n%s", l, re, stdout)
		}
	}
}
