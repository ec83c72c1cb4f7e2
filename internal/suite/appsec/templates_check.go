package appsec

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// TemplateProblem is one failed check of a snippet template. File is the template's path in
// vulnbench's source tree (under TemplateSourceDir); Line is 1-based, 0 when the problem concerns
// the whole file.
type TemplateProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

func (p TemplateProblem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return p.File + ": " + p.Message
}

// TemplateReport is the outcome of CheckTemplates: how many template files were checked, every
// problem, and the syntax outcome per language (one count per file).
type TemplateReport struct {
	Files    int                    `json:"files"`
	Problems []TemplateProblem      `json:"problems"`
	Syntax   map[string]SyntaxTally `json:"syntax"`
}

// OK reports whether no check failed. A language without a syntax checker is counted unchecked,
// not failed.
func (r TemplateReport) OK() bool { return len(r.Problems) == 0 }

// CheckTemplates checks every embedded snippet template: each generator has both files; each
// file parses as a text/template and renders over sampleVars with no action spanning lines; the
// vul file marks at least one line and the fix file none; and the rendering (markers removed)
// parses with the language's checker, a syntax error naming the template's line. A file no
// generator uses is a problem too.
func CheckTemplates(ctx context.Context, syntax SyntaxCheckers) TemplateReport {
	return checkTemplates(ctx, snippetTemplates(), generatorSpecs(), syntax)
}

// sampleVars are the identifiers CheckTemplates renders with: the first of each pool.
func sampleVars() Vars {
	entities, verbs, params, fields, prefixes, hosts := variationPools()
	return Vars{Entity: entities[0], Verb: verbs[0], Param: params[0], Field: fields[0], Prefix: prefixes[0], Host: hosts[0]}
}

func checkTemplates(ctx context.Context, fsys fs.FS, gens []Generator, syntax SyntaxCheckers) TemplateReport {
	rep := TemplateReport{Problems: []TemplateProblem{}, Syntax: map[string]SyntaxTally{}}
	used := map[string]bool{}
	for _, g := range gens {
		if _, err := g.TemplateFile(VariantVulnerable); err != nil {
			rep.Problems = append(rep.Problems, TemplateProblem{File: TemplateSourceDir, Message: err.Error()})
			continue
		}
		for _, variant := range []string{VariantVulnerable, VariantFixed} {
			name, _ := g.TemplateFile(variant) // the language has an extension: checked above
			used[name] = true
			rep.Files++
			rep.Problems = append(rep.Problems, checkTemplate(ctx, fsys, name, g.Language, variant, syntax, rep.Syntax)...)
		}
	}
	var orphans []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !used[p] {
			orphans = append(orphans, p)
		}
		return nil
	})
	if err != nil {
		rep.Problems = append(rep.Problems, TemplateProblem{File: TemplateSourceDir, Message: fmt.Sprintf("list templates: %v", err)})
	}
	slices.Sort(orphans)
	for _, p := range orphans {
		rep.Problems = append(rep.Problems, TemplateProblem{File: path.Join(TemplateSourceDir, p),
			Message: "no generator uses this file: name it <archetype>/<language>/<framework>/{vul,fix}.<ext>.tmpl of a generator in gen_*.go, or delete it"})
	}
	return rep
}

// checkTemplate checks one template file and counts its syntax outcome into tally.
func checkTemplate(ctx context.Context, fsys fs.FS, name, language, variant string, syntax SyntaxCheckers, tally map[string]SyntaxTally) []TemplateProblem {
	file := path.Join(TemplateSourceDir, name)
	problem := func(line int, format string, args ...any) []TemplateProblem {
		return []TemplateProblem{{File: file, Line: line, Message: fmt.Sprintf(format, args...)}}
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return problem(0, "missing: every generator needs a vul and a fix template (%v)", err)
	}
	text := string(b)
	out, err := execute(file, text, sampleVars())
	if err != nil {
		// text/template's errors read "template: NAME:LINE:...", NAME being file; an unclosed
		// action is reported at the end of the file and "started at NAME:LINE".
		line := lineAfter(err.Error(), "started at "+file+":")
		if line == 0 {
			line = lineAfter(err.Error(), file+":")
		}
		return problem(line, "template: %s", strings.TrimPrefix(err.Error(), "template: "))
	}
	if strings.Count(out, "\n") != strings.Count(text, "\n") {
		return problem(0, "a template action spans lines or trims white space: keep each action within its line so that template lines are record lines")
	}
	code, marked := stripMarkers(out)
	switch {
	case variant == VariantVulnerable && len(marked) == 0:
		return problem(0, "the vulnerable template marks no line: end each weak line with %s", VulnMarker)
	case variant == VariantFixed && len(marked) > 0:
		return problem(marked[0], "the fixed template has a vulnerability marker %s", VulnMarker)
	}
	t := tally[language]
	if t.Notes == "" {
		t.Notes = syntax.Notes(language)
	}
	defer func() { tally[language] = t }()
	res := syntax.Check(ctx, language, code)
	switch res.Status {
	case SyntaxChecked:
		t.Checked++
	case SyntaxError:
		t.Errors++
		return problem(res.Line, "%s syntax error (rendered with the sample identifiers): %s", language, res.Located())
	default:
		t.Unchecked++
		if t.Notes == "" {
			t.Notes = "unchecked: " + res.Message
		}
	}
	return nil
}

// lineAfter returns the number right after the first occurrence of prefix in s, or 0.
func lineAfter(s, prefix string) int {
	i := strings.Index(s, prefix)
	if i < 0 {
		return 0
	}
	rest := s[i+len(prefix):]
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0
	}
	return n
}
