package appsec

import (
	"slices"
	"strings"
	"testing"
)

// TestGeneratorsSecureTwinChangesMarkedLines checks that every marked vulnerable line is gone
// from the secure twin: the marker points at what the fix changed.
func TestGeneratorsSecureTwinChangesMarkedLines(t *testing.T) {
	v := Vars{Entity: "invoice", Verb: "find", Param: "status", Field: "title", Prefix: "/api", Host: "billing.example.com"}
	for _, g := range mustGenerators(t) {
		out, err := g.render(v)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out.vulnerable, "\n")
		secure := strings.Split(out.secure, "\n")
		for _, l := range out.lines {
			if slices.Contains(secure, lines[l-1]) {
				t.Errorf("%s: marked line %d %q is unchanged in the secure code", g.Name(), l, lines[l-1])
			}
		}
		if n := strings.Count(out.vulnerable, "\n"); n < 10 || n > 40 {
			t.Errorf("%s: %d lines, want a realistic 10-40", g.Name(), n)
		}
	}
}

func mustGenerators(t *testing.T) []Generator {
	t.Helper()
	gs, err := Generators()
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

func TestStripMarkers(t *testing.T) {
	code, lines := stripMarkers("a\nb " + VulnMarker + "\nc\nd" + VulnMarker + "\n")
	if code != "a\nb\nc\nd\n" || !slices.Equal(lines, []int{2, 4}) {
		t.Fatalf("stripMarkers = %q %v", code, lines)
	}
}
