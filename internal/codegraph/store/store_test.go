package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

func TestEncodeDecode(t *testing.T) {
	ix := &graph.Index{
		Hash:    strings.Repeat("ab", 32),
		Files:   []graph.File{{Path: "a.c", Lang: lang.C, Size: 10, Partial: true}, {Path: "b/c.py", Lang: lang.Python, Size: 20}},
		Funcs:   []graph.Func{{Name: "f", QualName: "f", Kind: graph.Function, Static: true, File: "a.c", Lang: lang.C, StartLine: 1, EndLine: 3, StartByte: 0, EndByte: 9, Signature: "int f (void)"}, {Name: "m", QualName: "K.m", Kind: graph.Method, File: "b/c.py", Lang: lang.Python, StartLine: 2, EndLine: 2, StartByte: 5, EndByte: 20}},
		Calls:   []graph.Call{{Callee: "g", Kind: graph.Direct, File: "a.c", Line: 2, Col: 3, Caller: 0}, {Expr: "p->x", Kind: graph.Unresolved, File: "a.c", Line: 2, Col: 9, Caller: 0}, {Callee: "m", Qualifier: "self", Kind: graph.MethodCall, File: "b/c.py", Line: 5, Col: 1, Caller: -1}},
		Skipped: []graph.Skipped{{Path: "big.c", Reason: "oversized"}},
	}
	ix.Finish()
	b := encodeIndex(ix)
	got, err := decodeIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ix, got, cmp.AllowUnexported(graph.Index{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// Every truncation and a flipped byte are refused, never misread.
	for n := 0; n < len(b); n += 7 {
		if _, err := decodeIndex(b[:n]); err == nil {
			t.Fatalf("a truncation to %d bytes decoded", n)
		}
	}
	bad := bytes.Clone(b)
	bad[len(bad)/2] ^= 0x40
	if _, err := decodeIndex(bad); err == nil {
		t.Error("a corrupted index decoded")
	}
}

// TestEncodeEmpty: a repository with no file to index (an empty directory) saves and reads back
// an empty index; the string table's capacity was one short of its first entry.
func TestEncodeEmpty(t *testing.T) {
	ix := &graph.Index{Hash: strings.Repeat("cd", 32)}
	ix.Finish()
	got, err := decodeIndex(encodeIndex(ix))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ix, got, cmp.AllowUnexported(graph.Index{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestParsedRoundTrip(t *testing.T) {
	ps := []Parsed{
		{Key: Key{Hash: [32]byte{1}, Lang: lang.C}, Result: &graph.FileResult{Lang: lang.C, SyntaxErrors: 2, Partial: true,
			Funcs: []graph.Func{{Name: "f", QualName: "f", Kind: graph.Function, Static: true, Lang: lang.C, StartLine: 1, EndLine: 3, StartByte: 0, EndByte: 9, Signature: "int f (void)"}},
			Calls: []graph.Call{{Callee: "g", Kind: graph.Direct, Line: 2, Col: 3, Caller: 0}, {Callee: "cb", Kind: graph.Reference, Line: 4, Col: 1, Caller: -1}}}},
		{Key: Key{Hash: [32]byte{2}, Lang: lang.Python}, Result: &graph.FileResult{Lang: lang.Python, Skip: "generated file (marker \"@generated\")"}},
		{Key: Key{Hash: [32]byte{3}, Lang: lang.C}, Result: &graph.FileResult{Lang: lang.C, Regions: []uint32{0, 2, 4 | graph.RegionUnsafe, 4, 6 | graph.RegionUnsafe | graph.RegionErrors, 30},
			DroppedRefs: []graph.Call{{Callee: "cb", Kind: graph.Reference, Line: 9, Col: 14, Caller: -1}}}},
		{Key: Key{Hash: [32]byte{4}, Lang: lang.JavaScript}, Result: &graph.FileResult{Lang: lang.JavaScript, Regions: []uint32{}}},
	}
	name := filepath.Join(t.TempDir(), "parsed.bin")
	if err := WriteParsed(name, ps); err != nil {
		t.Fatal(err)
	}
	got, err := ReadParsed(name)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Key]*graph.FileResult{}
	for _, p := range ps {
		want[p.Key] = p.Result
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n += 5 {
		if _, err := decodeParsed(b[:n]); err == nil {
			t.Fatalf("a truncation to %d bytes decoded", n)
		}
	}
}
