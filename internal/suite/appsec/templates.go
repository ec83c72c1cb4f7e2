package appsec

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
)

// templates/<archetype>/<language>/<framework>/ holds each generator's two snippets as
// text/template files over Vars: vul.<ext>.tmpl (weak lines end with VulnMarker) and
// fix.<ext>.tmpl, <ext> the language's (SnippetExt). No template action spans lines, so line N of
// a template is line N of every rendering (CheckTemplates holds it to that).

//go:embed templates
var templateFS embed.FS

// TemplateSourceDir is where the snippet templates are in vulnbench's source tree, relative to the
// module root; CheckTemplates names files under it.
const TemplateSourceDir = "internal/suite/appsec/templates"

// The two variants of a generator's snippet.
const (
	VariantVulnerable = "vul"
	VariantFixed      = "fix"
)

// SnippetExt returns the file extension of a language's snippets ("py" for python), or "" for a
// language outside KnownLanguages.
func SnippetExt(language string) string {
	switch language {
	case "python":
		return "py"
	case "javascript":
		return "js"
	case "typescript":
		return "ts"
	case "csharp":
		return "cs"
	case "ruby":
		return "rb"
	case "bash":
		return "sh"
	case "terraform":
		return "tf"
	case "kubernetes":
		return "yaml"
	case "java", "go", "php", "c":
		return language
	}
	return ""
}

// TemplateFile returns the path of one variant of g's snippet template inside the templates
// tree: <archetype>/<language>/<framework>/<variant>.<ext>.tmpl.
func (g Generator) TemplateFile(variant string) (string, error) {
	ext := SnippetExt(g.Language)
	if ext == "" {
		return "", fmt.Errorf("generator %s: no snippet extension for language %q", g.Name(), g.Language)
	}
	return path.Join(g.Archetype, g.Language, g.Framework, variant+"."+ext+".tmpl"), nil
}

// snippetTemplates is the embedded templates tree.
func snippetTemplates() fs.FS {
	sub, err := fs.Sub(templateFS, "templates")
	if err != nil {
		panic(err) // "templates" is a valid path; fs.Sub fails only on an invalid one
	}
	return sub
}

// withSnippets returns gens with Vulnerable and Secure read from their template files in fsys.
func withSnippets(fsys fs.FS, gens []Generator) ([]Generator, error) {
	out := make([]Generator, len(gens))
	for i, g := range gens {
		for _, v := range []struct {
			variant string
			dst     *string
		}{{VariantVulnerable, &g.Vulnerable}, {VariantFixed, &g.Secure}} {
			name, err := g.TemplateFile(v.variant)
			if err != nil {
				return nil, err
			}
			b, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil, fmt.Errorf("generator %s: snippet template: %w", g.Name(), err)
			}
			*v.dst = string(b)
		}
		out[i] = g
	}
	return out, nil
}
