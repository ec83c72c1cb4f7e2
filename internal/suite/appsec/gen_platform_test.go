package appsec

import (
	"slices"
	"testing"
)

// TestPhase2bCoverage checks that each phase-2b archetype has two generators in two different
// languages, each a catalog target, with distinct levels.
func TestPhase2bCoverage(t *testing.T) {
	cat, err := LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"missing-function-level-authorization", "sensitive-data-in-logs", "log-injection",
		"permissive-cors", "ldap-injection", "cleartext-transmission", "jwt-signature-not-verified",
		"public-cloud-storage", "unencrypted-data-at-rest", "download-without-integrity-check",
		"llm-improper-output-handling"}
	byArch := map[string][]Generator{}
	names := map[string]bool{}
	for _, g := range platformGenerators() {
		if names[g.Name()] {
			t.Errorf("duplicate generator %s", g.Name())
		}
		names[g.Name()] = true
		if !slices.Contains(want, g.Archetype) {
			t.Errorf("%s: archetype outside phase 2b", g.Name())
		}
		a := cat.Archetype(g.Archetype)
		if a == nil || !a.Realistic(g.Language, g.Framework) {
			t.Errorf("%s: not a catalog target", g.Name())
		}
		if len(g.Levels) < 2 {
			t.Errorf("%s: %d levels, want at least 2", g.Name(), len(g.Levels))
		}
		seen := map[Difficulty]bool{}
		for _, l := range g.Levels {
			if seen[l] {
				t.Errorf("%s: level %s twice", g.Name(), l)
			}
			seen[l] = true
		}
		if len(g.Remediation) == 0 || len(g.Preconditions) == 0 {
			t.Errorf("%s: remediation or preconditions missing", g.Name())
		}
		byArch[g.Archetype] = append(byArch[g.Archetype], g)
	}
	for _, id := range want {
		gs := byArch[id]
		if len(gs) != 2 {
			t.Errorf("%s: %d generators, want 2", id, len(gs))
			continue
		}
		if gs[0].Language == gs[1].Language && gs[0].Framework == gs[1].Framework {
			t.Errorf("%s: both generators target %s/%s", id, gs[0].Language, gs[0].Framework)
		}
	}
}
