// Package taxonomy is the weakness taxonomy AppSecBench and the SARIF matcher grade against:
// MITRE's CWE ChildOf hierarchy (for parent/child partial credit and related-CWE matching) and
// MITRE's CWE -> OWASP Top 10 2021 mapping, both embedded as TSV. It has no other state and
// depends on no other vulnbench package.
package taxonomy

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"strings"
)

// data/cwe_parents.tsv is MITRE's ChildOf relation in the Research Concepts view (CWE-1000),
// CWE 4.19.1, copied from the project's shared data; data/cwe_owasp2021.tsv is MITRE's OWASP Top
// 10 2021 view (categories 1345-1356), one row per (CWE, category).

//go:embed data/cwe_parents.tsv
var cweParentsTSV []byte

//go:embed data/cwe_owasp2021.tsv
var cweOWASPTSV []byte

// Hierarchy is the CWE ChildOf relation: each weakness and its parent.
type Hierarchy struct {
	parent map[string]string
}

// LoadHierarchy parses the embedded parent map.
func LoadHierarchy() (*Hierarchy, error) {
	rows, err := readTSV(cweParentsTSV, "child", "parent")
	if err != nil {
		return nil, fmt.Errorf("cwe parents: %w", err)
	}
	h := &Hierarchy{parent: make(map[string]string, len(rows))}
	for _, r := range rows {
		if prev, ok := h.parent[r[0]]; ok && prev != r[1] {
			return nil, fmt.Errorf("cwe parents: %s has two parents, %s and %s", r[0], prev, r[1])
		}
		h.parent[r[0]] = r[1]
	}
	return h, nil
}

// Parent returns the parent of cwe, or "" at a root or for an unknown id.
func (h *Hierarchy) Parent(cwe string) string { return h.parent[cwe] }

// Known reports whether cwe appears in the hierarchy, as a child or a parent.
func (h *Hierarchy) Known(cwe string) bool {
	if _, ok := h.parent[cwe]; ok {
		return true
	}
	for _, p := range h.parent {
		if p == cwe {
			return true
		}
	}
	return false
}

// IsAncestor reports whether a is a proper ancestor of b (b's parent, grandparent, ...).
func (h *Hierarchy) IsAncestor(a, b string) bool {
	seen := map[string]bool{}
	for c := h.parent[b]; c != "" && !seen[c]; c = h.parent[c] {
		if c == a {
			return true
		}
		seen[c] = true
	}
	return false
}

// Related reports whether a and b differ and one is an ancestor of the other.
func (h *Hierarchy) Related(a, b string) bool {
	return a != b && (h.IsAncestor(a, b) || h.IsAncestor(b, a))
}

// OWASPMap is MITRE's mapping of CWEs to OWASP Top 10 2021 categories.
type OWASPMap map[string][]string

// LoadOWASPMap parses the embedded CWE -> OWASP Top 10 2021 mapping.
func LoadOWASPMap() (OWASPMap, error) {
	rows, err := readTSV(cweOWASPTSV, "cwe", "owasp")
	if err != nil {
		return nil, fmt.Errorf("cwe owasp2021: %w", err)
	}
	m := OWASPMap{}
	for _, r := range rows {
		m[r[0]] = append(m[r[0]], r[1])
	}
	return m, nil
}

// IsCWE reports whether s matches ^CWE-\d+$.
func IsCWE(s string) bool {
	rest, ok := strings.CutPrefix(s, "CWE-")
	if rest == "" || !ok {
		return false
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// readTSV reads a two-column TSV whose header is want.
func readTSV(data []byte, want ...string) ([][2]string, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	var rows [][2]string
	line := 0
	for sc.Scan() {
		line++
		f := strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t")
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: %d columns, want 2", line, len(f))
		}
		if line == 1 {
			if f[0] != want[0] || f[1] != want[1] {
				return nil, fmt.Errorf("line 1: header %q, want %q", f, want)
			}
			continue
		}
		if !IsCWE(f[0]) {
			return nil, fmt.Errorf("line %d: %q is not a CWE id", line, f[0])
		}
		rows = append(rows, [2]string{f[0], f[1]})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}
