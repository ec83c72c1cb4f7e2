package appsec_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	. "github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/suite/appsec/parsers"
	"strings"
	"testing"
)

func buildJSONL(t *testing.T, seed int) []byte {
	t.Helper()
	recs, err := Build(seed)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func TestBuildIsByteIdentical(t *testing.T) {
	a, b := buildJSONL(t, 42), buildJSONL(t, 42)
	if sha256.Sum256(a) != sha256.Sum256(b) {
		t.Fatal("two builds with seed 42 differ")
	}
	if c := buildJSONL(t, 7); sha256.Sum256(a) == sha256.Sum256(c) {
		t.Fatal("seeds 42 and 7 build the same records; the seed is ignored")
	}
}

func TestBuildRecords(t *testing.T) {
	recs, err := Build(42)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	archetypes, languages := map[string]bool{}, map[string]bool{}
	norm := map[string]string{}
	splits := map[string]int{}
	for i, r := range recs {
		if want := fmt.Sprintf("ASB-%06d", i+1); r.BenchmarkID != want {
			t.Errorf("record %d: id %s, want %s", i, r.BenchmarkID, want)
		}
		archetypes[r.Metadata.Archetype] = true
		languages[r.Language] = true
		splits[r.Split]++
		n := NormaliseCode(r.VulnerableCode)
		if prev, ok := norm[n]; ok {
			t.Errorf("%s and %s share normalised vulnerable code", prev, r.BenchmarkID)
		}
		norm[n] = r.BenchmarkID
		if strings.Contains(r.VulnerableCode+r.SecureCode+r.Explanation+r.ExploitScenario, "{{") {
			t.Errorf("%s: unrendered template action", r.BenchmarkID)
		}
		lines := strings.Split(r.VulnerableCode, "\n")
		for _, l := range r.VulnerableLines {
			if strings.TrimSpace(lines[l-1]) == "" {
				t.Errorf("%s: vulnerable line %d is blank", r.BenchmarkID, l)
			}
		}
		if r.Difficulty == RealWorldEnterprise && r.ExpectedCVSS == cat.Archetype(r.Metadata.Archetype).CVSS {
			t.Errorf("%s: real-world-enterprise kept the base vector %s", r.BenchmarkID, r.ExpectedCVSS)
		}
	}
	if len(archetypes) < 8 || len(languages) < 6 {
		t.Errorf("%d archetypes and %d languages, want at least 8 and 6", len(archetypes), len(languages))
	}
	for _, s := range Splits() {
		if splits[s] == 0 {
			t.Errorf("split %s is empty: %v", s, splits)
		}
	}

	rep := Validator{Catalog: cat, Syntax: parsers.Default()}.Validate(context.Background(), recs)
	for _, p := range rep.Problems {
		t.Errorf("built record fails validation: %s", p)
	}
	// Every language of the build is parsed, none is left unchecked, and each says how.
	for _, lang := range KnownLanguages() {
		tally := rep.Syntax[lang]
		if tally.Checked == 0 || tally.Unchecked != 0 || tally.Errors != 0 || tally.Notes == "" {
			t.Errorf("%s: %+v, want every snippet checked and the checker's notes", lang, tally)
		}
	}
}
