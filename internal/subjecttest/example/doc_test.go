package example_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docs/extending.md quotes yesno_test.go whole, in the go blocks between its quote markers, so
// the example a reader copies is the one this package compiles and tests; it stays under 80
// lines, its test included.
func TestExtendingQuotesTheExample(t *testing.T) {
	const file = "yesno_test.go"
	doc, err := os.ReadFile("../../../docs/extending.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, quote, ok := strings.Cut(string(doc), "<!-- quote: internal/subjecttest/example/"+file+" -->\n")
	quote, _, ok2 := strings.Cut(quote, "<!-- end quote -->")
	if !ok || !ok2 {
		t.Fatalf("docs/extending.md has no quote of %s between <!-- quote: ... --> and <!-- end quote -->", file)
	}
	var blocks []string
	for rest := quote; ; {
		_, after, found := strings.Cut(rest, "```go\n")
		if !found {
			break
		}
		block, tail, closed := strings.Cut(after, "\n```\n")
		if !closed {
			t.Fatal("an unclosed go block in the quote")
		}
		blocks, rest = append(blocks, block), tail
	}
	if d := cmp.Diff(string(src), strings.Join(blocks, "\n\n")+"\n"); d != "" {
		t.Errorf("docs/extending.md's quote differs from %s (-file +doc):\n%s", file, d)
	}
	if n := strings.Count(string(src), "\n"); n >= 80 {
		t.Errorf("%s has %d lines: the example must stay under 80", file, n)
	}
}
