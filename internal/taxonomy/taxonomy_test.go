package taxonomy

import (
	"strings"
	"testing"
)

func TestHierarchy(t *testing.T) {
	h, err := LoadHierarchy()
	if err != nil {
		t.Fatal(err)
	}
	// The README's chain: CWE-120 -> CWE-787 -> CWE-119 -> CWE-118 -> CWE-664.
	chain := []string{"CWE-120", "CWE-787", "CWE-119", "CWE-118", "CWE-664"}
	for i := 0; i+1 < len(chain); i++ {
		if got := h.Parent(chain[i]); got != chain[i+1] {
			t.Errorf("Parent(%s) = %q, want %s", chain[i], got, chain[i+1])
		}
	}
	if got := h.Parent("CWE-664"); got != "" {
		t.Errorf("CWE-664 is a root, got parent %q", got)
	}
	for _, tc := range []struct {
		a, b              string
		ancestor, related bool
	}{
		{"CWE-664", "CWE-120", true, true},
		{"CWE-787", "CWE-120", true, true},
		{"CWE-120", "CWE-787", false, true},
		{"CWE-120", "CWE-120", false, false},
		{"CWE-943", "CWE-89", true, true},  // SQL injection's parent
		{"CWE-89", "CWE-79", false, false}, // siblings under injection are not related
		{"CWE-79", "CWE-74", false, true},
		{"CWE-9999", "CWE-89", false, false},
	} {
		if got := h.IsAncestor(tc.a, tc.b); got != tc.ancestor {
			t.Errorf("IsAncestor(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.ancestor)
		}
		if got := h.Related(tc.a, tc.b); got != tc.related {
			t.Errorf("Related(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.related)
		}
	}
}

func TestOWASPMap(t *testing.T) {
	m, err := LoadOWASPMap()
	if err != nil {
		t.Fatal(err)
	}
	if got := m["CWE-89"]; len(got) != 1 || got[0] != "A03:2021" {
		t.Errorf("CWE-89 -> %v, want [A03:2021]", got)
	}
	if got := m["CWE-787"]; got != nil {
		t.Errorf("CWE-787 is unmapped, got %v", got)
	}
}

func TestIsCWE(t *testing.T) {
	for in, want := range map[string]bool{"CWE-89": true, "CWE-1000": true, "CWE-": false, "cwe-89": false,
		"CWE-8a": false, "CWE--1": false, "89": false, "": false} {
		if got := IsCWE(in); got != want {
			t.Errorf("IsCWE(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestReadTSVRefusesBadInput(t *testing.T) {
	for _, tc := range []struct{ name, data, err string }{
		{"header", "kid\tparent\nCWE-1\tCWE-2\n", "line 1: header"},
		{"columns", "child\tparent\nCWE-1\tCWE-2\tCWE-3\n", "line 2: 3 columns"},
		{"not a CWE", "child\tparent\nCWE-1\tCWE-2\nXSS\tCWE-2\n", `line 3: "XSS" is not a CWE id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readTSV([]byte(tc.data), "child", "parent")
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("readTSV: %v, want an error containing %q", err, tc.err)
			}
		})
	}
	rows, err := readTSV([]byte("child\tparent\r\nCWE-1\tCWE-2\r\n"), "child", "parent")
	if err != nil || len(rows) != 1 || rows[0] != [2]string{"CWE-1", "CWE-2"} {
		t.Errorf("CRLF file: %v %v", rows, err)
	}
}
