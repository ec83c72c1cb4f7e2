package tsv_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/formats"
	"github.com/vulnbench/vulnbench/internal/output/tsv"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// docs/extending.md quotes tsv.go whole: the format a reader copies is the one this package
// compiles, and the registry lists it.
func TestExtendingQuotesTSV(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/extending.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("tsv.go")
	if err != nil {
		t.Fatal(err)
	}
	_, quote, ok := strings.Cut(string(doc), "<!-- quote: internal/output/tsv/tsv.go -->\n```go\n")
	quote, _, ok2 := strings.Cut(quote, "```\n<!-- end quote -->")
	if !ok || !ok2 {
		t.Fatal("docs/extending.md has no quote of internal/output/tsv/tsv.go")
	}
	if d := cmp.Diff(string(src), quote); d != "" {
		t.Errorf("docs/extending.md's quote differs from tsv.go (-file +doc):\n%s", d)
	}
	if _, err := formats.All().Lookup(tsv.Presenter{}.Name()); err != nil {
		t.Error(err)
	}
}

// A document's blocks, tabs and line breaks in its cells made spaces.
func TestBlocks(t *testing.T) {
	st := suite.NewStats()
	c := suite.Case{ID: "1", Kind: suite.KindFunction, Label: suite.Vul, Project: "a\tb\nc"}
	st.Add(&c)
	var b bytes.Buffer
	if err := (tsv.Presenter{}).Present(&b, output.Stats{Stats: st}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# suite\ntotal\tn\ncases\t1\npairs\t0\n", "# project\nproject\tcases\na b c\t1\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}
