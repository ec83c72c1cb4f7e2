package breakdown_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/breakdown"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func TestGroupsOf(t *testing.T) {
	fn := &suite.Case{ID: "f", Kind: suite.KindFunction, Language: "c", Project: "p", CWE: []string{"CWE-787", "CWE-125", "CWE-787"},
		Date: "2023-04-01T00:00:00Z", Meta: map[string]any{"repo_size": float64(40_000), "category": "memory"}}
	vex := &suite.Case{ID: "v", Kind: suite.KindVEX, VEX: &suite.VEX{Category: "code_not_reachable"}, Meta: map[string]any{"repo_size": "2000000"}}
	app := &suite.Case{ID: "a", Kind: suite.KindAppSec, Meta: map[string]any{"archetype": "sql-injection"}}
	bare := &suite.Case{ID: "b", Kind: suite.KindJIT}
	for _, tc := range []struct {
		dim  string
		c    *suite.Case
		want []string
	}{
		{"language", fn, []string{"c"}},
		{"language", bare, []string{breakdown.None}},
		{"project", fn, []string{"p"}},
		{"cwe", fn, []string{"CWE-125", "CWE-787"}},
		{"cwe", bare, []string{breakdown.None}},
		{"year", fn, []string{"2023"}},
		{"year", bare, []string{breakdown.None}},
		{"repo-size", fn, []string{"10k-100k lines"}},
		{"repo-size", vex, []string{">=1M lines"}},
		{"repo-size", bare, []string{breakdown.None}},
		{"category", fn, []string{"memory"}},
		{"category", vex, []string{"code_not_reachable"}},
		{"category", app, []string{"sql-injection"}},
		{"kind", vex, []string{"vex"}},
	} {
		if d := cmp.Diff(tc.want, breakdown.GroupsOf(tc.dim, tc.c)); d != "" {
			t.Errorf("%s of %s (-want +got):\n%s", tc.dim, tc.c.ID, d)
		}
	}
}

func TestFilter(t *testing.T) {
	c := &suite.Case{ID: "f", Kind: suite.KindFunction, Language: "c", CWE: []string{"CWE-787"}, Date: "2023-01-01"}
	for _, tc := range []struct {
		filter string
		keep   bool
	}{
		{"language=c", true},
		{"language=go|c", true},
		{"language=go", false},
		{"language=c,cwe=CWE-125|CWE-787", true},
		{"language=c,year=2022", false},
	} {
		f, err := breakdown.ParseFilter(tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Keep(c); got != tc.keep {
			t.Errorf("%s: keep %v, want %v", tc.filter, got, tc.keep)
		}
	}
	for _, bad := range []string{"language", "colour=red", "language=", ""} {
		if _, err := breakdown.ParseFilter(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestReadCases(t *testing.T) {
	dir := t.TempDir()
	ids := filepath.Join(dir, "ids.txt")
	os.WriteFile(ids, []byte("# kept\na1\n\n{\"id\":\"b2\",\"kind\":\"function\"}\n"), 0o644)
	got, err := breakdown.ReadCases(ids)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]bool{"a1": true, "b2": true}, got); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("a1\n{\"kind\":\"x\"}\n"), 0o644)
	if _, err := breakdown.ReadCases(bad); err == nil || err.Error() != bad+`:2: a JSON line needs an "id"` {
		t.Errorf("bad line: %v", err)
	}
}
