package appsec

import (
	"slices"
	"testing"

	"github.com/vulnbench/vulnbench/internal/taxonomy"
)

func TestCatalog(t *testing.T) {
	cat, err := LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	owasp, err := taxonomy.LoadOWASPMap()
	if err != nil {
		t.Fatal(err)
	}
	h, err := taxonomy.LoadHierarchy()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cat.Archetypes); n != 34 {
		t.Fatalf("%d archetypes, want 34", n)
	}
	for _, a := range cat.Archetypes {
		// Every archetype's CWE is mapped by MITRE's OWASP 2021 view, and to this category.
		if !slices.Contains(owasp[a.CWE], a.OWASP) {
			t.Errorf("%s: %s is %s in the catalog, but owasp2021.tsv maps it to %v", a.ID, a.CWE, a.OWASP, owasp[a.CWE])
		}
		if !h.Known(a.CWE) {
			t.Errorf("%s: %s is not in the CWE-1000 hierarchy", a.ID, a.CWE)
		}
		if a.OWASPAPI != "" && !IsOWASPAPI2023(a.OWASPAPI) || a.OWASPLLM != "" && !IsOWASPLLM2025(a.OWASPLLM) {
			t.Errorf("%s: bad API/LLM mapping %q %q", a.ID, a.OWASPAPI, a.OWASPLLM)
		}
		refs := cat.References(&a)
		if refs[0] != CWEURL(a.CWE) {
			t.Errorf("%s: first reference %s, want the CWE page", a.ID, refs[0])
		}
		for _, r := range refs {
			if !isHTTPURL(r) {
				t.Errorf("%s: reference %q is not an http(s) URL", a.ID, r)
			}
		}
		langs := a.Languages()
		switch a.Category {
		case "infrastructure":
			for _, l := range langs {
				if l != "terraform" && l != "kubernetes" {
					t.Errorf("%s: infrastructure weakness targets %s, want IaC", a.ID, l)
				}
			}
		case "ai-llm":
			if a.OWASPLLM == "" {
				t.Errorf("%s: AI weakness without an LLM Top 10 mapping", a.ID)
			}
			for _, l := range langs {
				if l != "python" && l != "javascript" && l != "typescript" {
					t.Errorf("%s: AI weakness targets %s, want Python/JS/TS", a.ID, l)
				}
			}
		}
	}
	langs := cat.Languages()
	for _, want := range []string{"python", "javascript", "typescript", "java", "go", "csharp", "php", "ruby", "c", "bash", "terraform", "kubernetes"} {
		if !slices.Contains(langs, want) {
			t.Errorf("no archetype targets %s", want)
		}
	}
	for _, c := range [][]Category{cat.OWASP2021, cat.OWASPAPI2023, cat.OWASPLLM2025} {
		for _, e := range c {
			if !isHTTPURL(e.URL) {
				t.Errorf("%s: bad URL %q", e.ID, e.URL)
			}
		}
	}
}

func TestPatterns(t *testing.T) {
	for _, tc := range []struct {
		f    func(string) bool
		in   string
		want bool
	}{
		{IsOWASP2021, "A03:2021", true}, {IsOWASP2021, "A3:2021", false}, {IsOWASP2021, "A03:2017", false},
		{IsOWASPAPI2023, "API1:2023", true}, {IsOWASPAPI2023, "API10:2023", true}, {IsOWASPAPI2023, "API11:2023", false}, {IsOWASPAPI2023, "API0:2023", false},
		{IsOWASPLLM2025, "LLM01:2025", true}, {IsOWASPLLM2025, "LLM10:2025", true}, {IsOWASPLLM2025, "LLM1:2025", false}, {IsOWASPLLM2025, "LLM11:2025", false},
		{IsBenchmarkID, "ASB-000001", true}, {IsBenchmarkID, "ASB-1", false},
		{isKebab, "sql-injection", true}, {isKebab, "SQL_injection", false}, {isKebab, "a--b", false},
	} {
		if got := tc.f(tc.in); got != tc.want {
			t.Errorf("%q: got %v, want %v", tc.in, got, tc.want)
		}
	}
}
