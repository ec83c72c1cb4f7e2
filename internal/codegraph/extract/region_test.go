package extract

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
	"github.com/vulnbench/vulnbench/internal/codegraph/linediff"
)

// TestIndexEditedEqualsWhole: random line edits of the fixture files (deleted, duplicated,
// moved and inserted lines, and edits that break the syntax), indexed from the previous
// content's result, give what a whole parse gives (syntax errors: as a lower bound, zero
// exactly when none); and often enough, by region.
func TestIndexEditedEqualsWhole(t *testing.T) {
	var paths []string
	err := filepath.WalkDir("../testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && lang.Of(p, false) != lang.NoLang {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil || len(paths) < 8 {
		t.Fatalf("fixture files: %v %v", paths, err)
	}
	fi, err := New(nil, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer fi.Close()
	fi.SetRegions(true)
	r := rand.New(rand.NewPCG(26, 11))
	inserts := []string{"\n", "int added_fn (void) { return helper (3); }\n", "  x = call_more (y);\n", "}\n", "{\n", "#ifdef NEW_FLAG\n", "#endif\n", "/* a comment\n", "def added(x):\n", "    return added(x)\n",
		"#if defined(A) && \\\n  defined(B) /* both */\n", "#else /* not both */\n"}
	part, tried := 0, 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		l := lang.Of(p, false)
		for round := range 80 {
			old := src
			if round%2 == 1 { // an edit of an edit: the previous result may itself be a part parse
				old = edit(r, src, inserts)
			}
			prev, err := fi.IndexFileAs(l, p, old)
			if err != nil {
				t.Fatal(err)
			}
			next := edit(r, old, inserts)
			want, err := fi.IndexFileAs(l, p, next)
			if err != nil {
				t.Fatal(err)
			}
			got, rp, err := fi.IndexEdited(l, p, next, old, prev)
			if err != nil {
				t.Fatal(err)
			}
			// In source order, as the repository indexer sorts every file's calls.
			for _, res := range []*graph.FileResult{want, got} {
				slices.SortStableFunc(res.Calls, func(a, b graph.Call) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
			}
			tried++
			if rp.Part {
				part++
			}
			if diff := gocmp.Diff(want, got, cmpopts.IgnoreFields(graph.FileResult{}, "Regions", "DroppedRefs", "SyntaxErrors"), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%s round %d (part %v): IndexEdited differs from IndexFileAs (-whole +edited):\n%s\n--- old:\n%s\n--- new:\n%s", p, round, rp.Part, diff, old, next)
			}
			if (want.SyntaxErrors > 0) != (got.SyntaxErrors > 0) || got.SyntaxErrors > want.SyntaxErrors {
				t.Fatalf("%s round %d (part %v): %d syntax errors, a whole parse %d\n--- old:\n%s\n--- new:\n%s", p, round, rp.Part, got.SyntaxErrors, want.SyntaxErrors, old, next)
			}
		}
	}
	// Most random edits of the fixture leave a bracket unpaired, which is parsed whole.
	if part < tried/20 {
		t.Errorf("parsed in part %d of %d edits; want a twentieth at least", part, tried)
	}
}

// edit changes one to three random line ranges of src.
func edit(r *rand.Rand, src []byte, inserts []string) []byte {
	ls := linediff.Lines(src)
	for range 1 + r.IntN(3) {
		if len(ls) == 0 {
			ls = append(ls, []byte(inserts[r.IntN(len(inserts))]))
			continue
		}
		i := r.IntN(len(ls))
		n := min(1+r.IntN(4), len(ls)-i)
		switch r.IntN(4) {
		case 0: // delete
			ls = append(ls[:i:i], ls[i+n:]...)
		case 1: // duplicate
			dup := append([][]byte(nil), ls[i:i+n]...)
			ls = append(ls[:i+n:i+n], append(dup, ls[i+n:]...)...)
		case 2: // insert
			ls = append(ls[:i:i], append([][]byte{[]byte(inserts[r.IntN(len(inserts))])}, ls[i:]...)...)
		case 3: // change a token
			ls[i] = []byte(strings.Replace(string(ls[i]), "(", "( 1 +", 1))
		}
	}
	return bytes.Join(ls, nil)
}
