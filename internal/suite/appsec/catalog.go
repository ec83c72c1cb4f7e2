package appsec

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/cvss"
	"github.com/vulnbench/vulnbench/internal/taxonomy"
	"go.yaml.in/yaml/v3"
)

//go:embed data/catalog.yaml
var catalogYAML []byte

// Category is one entry of an OWASP list (Top 10 2021, API Security 2023, LLM 2025).
type Category struct {
	ID   string `yaml:"id" json:"id"`
	Name string `yaml:"name" json:"name"`
	URL  string `yaml:"url" json:"url"`
}

// Archetype is one vulnerability pattern of the catalog.
type Archetype struct {
	ID       string `yaml:"id" json:"id"`
	Name     string `yaml:"name" json:"name"`
	Category string `yaml:"category" json:"category"`
	CWE      string `yaml:"cwe" json:"cwe"`
	CWEName  string `yaml:"cwe_name" json:"cwe_name"`
	OWASP    string `yaml:"owasp" json:"owasp"`
	// OWASPAPI and OWASPLLM are empty when the list does not apply.
	OWASPAPI string `yaml:"owasp_api" json:"owasp_api,omitempty"`
	OWASPLLM string `yaml:"owasp_llm" json:"owasp_llm,omitempty"`
	// CVSS is the base vector of the archetype at its usual exposure; see AdjustVector.
	CVSS string `yaml:"cvss" json:"cvss"`
	// Refs are references beyond the CWE and OWASP pages, which References adds.
	Refs []string `yaml:"refs" json:"refs"`
	// Targets maps a language to the frameworks where the weakness is realistic.
	Targets map[string][]string `yaml:"targets" json:"targets"`
}

// Catalog is the parsed catalog: the OWASP lists and the archetypes in file order.
type Catalog struct {
	OWASP2021    []Category  `yaml:"owasp2021"`
	OWASPAPI2023 []Category  `yaml:"owasp_api2023"`
	OWASPLLM2025 []Category  `yaml:"owasp_llm2025"`
	Archetypes   []Archetype `yaml:"archetypes"`
}

// KnownLanguages returns the language enum of AppSecBench records.
func KnownLanguages() []string {
	return []string{"python", "javascript", "typescript", "java", "go", "csharp", "php", "ruby", "c", "bash", "terraform", "kubernetes"}
}

// LoadCatalog parses the embedded catalog and checks its internal consistency.
func LoadCatalog() (*Catalog, error) {
	var c Catalog
	if err := yaml.Unmarshal(catalogYAML, &c); err != nil {
		return nil, fmt.Errorf("parse embedded catalog: %w", err)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("embedded catalog: %w", err)
	}
	return &c, nil
}

func (c *Catalog) check() error {
	seenID := map[string]bool{}
	seenName := map[string]bool{}
	for _, a := range c.Archetypes {
		switch {
		case !isKebab(a.ID):
			return fmt.Errorf("archetype id %q is not kebab-case", a.ID)
		case seenID[a.ID]:
			return fmt.Errorf("duplicate archetype id %q", a.ID)
		case seenName[a.Name]:
			return fmt.Errorf("duplicate archetype name %q", a.Name)
		case !taxonomy.IsCWE(a.CWE) || a.CWEName == "":
			return fmt.Errorf("archetype %s: bad CWE %q or empty CWE name", a.ID, a.CWE)
		case c.owasp(a.OWASP) == nil:
			return fmt.Errorf("archetype %s: unknown OWASP category %q", a.ID, a.OWASP)
		case a.OWASPAPI != "" && c.api(a.OWASPAPI) == nil:
			return fmt.Errorf("archetype %s: unknown OWASP API category %q", a.ID, a.OWASPAPI)
		case a.OWASPLLM != "" && c.llm(a.OWASPLLM) == nil:
			return fmt.Errorf("archetype %s: unknown OWASP LLM category %q", a.ID, a.OWASPLLM)
		case len(a.Targets) == 0:
			return fmt.Errorf("archetype %s: no targets", a.ID)
		}
		if _, err := cvss.Score(a.CVSS); err != nil {
			return fmt.Errorf("archetype %s: %w", a.ID, err)
		}
		for lang, fws := range a.Targets {
			if !slices.Contains(KnownLanguages(), lang) {
				return fmt.Errorf("archetype %s: unknown language %q", a.ID, lang)
			}
			if len(fws) == 0 {
				return fmt.Errorf("archetype %s: language %s has no framework", a.ID, lang)
			}
		}
		seenID[a.ID] = true
		seenName[a.Name] = true
	}
	return nil
}

func find(list []Category, id string) *Category {
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	return nil
}

func (c *Catalog) owasp(id string) *Category { return find(c.OWASP2021, id) }
func (c *Catalog) api(id string) *Category   { return find(c.OWASPAPI2023, id) }
func (c *Catalog) llm(id string) *Category   { return find(c.OWASPLLM2025, id) }

// Archetype returns the archetype with the given id, or nil.
func (c *Catalog) Archetype(id string) *Archetype {
	for i := range c.Archetypes {
		if c.Archetypes[i].ID == id {
			return &c.Archetypes[i]
		}
	}
	return nil
}

// ByName returns the archetype whose Name is name (a record's vulnerability_name), or nil.
func (c *Catalog) ByName(name string) *Archetype {
	for i := range c.Archetypes {
		if c.Archetypes[i].Name == name {
			return &c.Archetypes[i]
		}
	}
	return nil
}

// References lists the archetype's public references: the CWE page, the OWASP Top 10 page, the
// API and LLM pages when they apply, then the archetype's own.
func (c *Catalog) References(a *Archetype) []string {
	refs := []string{CWEURL(a.CWE), c.owasp(a.OWASP).URL}
	if a.OWASPAPI != "" {
		refs = append(refs, c.api(a.OWASPAPI).URL)
	}
	if a.OWASPLLM != "" {
		refs = append(refs, c.llm(a.OWASPLLM).URL)
	}
	for _, r := range a.Refs {
		if !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	return refs
}

// CWEURL is MITRE's page of a CWE id such as "CWE-89".
func CWEURL(cwe string) string {
	return "https://cwe.mitre.org/data/definitions/" + strings.TrimPrefix(cwe, "CWE-") + ".html"
}

// Languages returns the archetype's languages, sorted.
func (a *Archetype) Languages() []string {
	langs := make([]string, 0, len(a.Targets))
	for l := range a.Targets {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	return langs
}

// Realistic reports whether the catalog lists framework under language for the archetype.
func (a *Archetype) Realistic(language, framework string) bool {
	return slices.Contains(a.Targets[language], framework)
}

// Frameworks returns every framework the catalog names, sorted: the framework enum.
func (c *Catalog) Frameworks() []string {
	var fws []string
	for _, a := range c.Archetypes {
		for _, l := range a.Targets {
			for _, f := range l {
				if !slices.Contains(fws, f) {
					fws = append(fws, f)
				}
			}
		}
	}
	slices.Sort(fws)
	return fws
}

// Languages returns every language the catalog names, sorted.
func (c *Catalog) Languages() []string {
	var langs []string
	for _, a := range c.Archetypes {
		for l := range a.Targets {
			if !slices.Contains(langs, l) {
				langs = append(langs, l)
			}
		}
	}
	slices.Sort(langs)
	return langs
}
