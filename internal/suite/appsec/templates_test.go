package appsec_test

import (
	"context"
	. "github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/suite/appsec/parsers"
	"path"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestTemplates checks each embedded snippet template file, one subtest per file named by its
// path in the templates tree: it renders, keeps its line numbers, marks lines as its variant
// must, and parses with the language's real parser.
func TestTemplates(t *testing.T) {
	ctx := context.Background()
	syntax := parsers.Default()
	fsys := SnippetTemplates()
	tally := map[string]SyntaxTally{}
	files := 0
	for _, g := range GeneratorSpecs() {
		for _, variant := range []string{VariantVulnerable, VariantFixed} {
			name, err := g.TemplateFile(variant)
			if err != nil {
				t.Fatal(err)
			}
			files++
			t.Run(name, func(t *testing.T) {
				for _, p := range CheckTemplate(ctx, fsys, name, g.Language, variant, syntax, tally) {
					t.Error(p)
				}
			})
		}
	}
	for lang := range syntax {
		if n := tally[lang]; n.Checked == 0 && n.Errors == 0 {
			t.Errorf("no %s template was syntax-checked: %+v", lang, n)
		}
	}
	// The whole tree: no file outside a generator's two, and the same count.
	rep := CheckTemplates(ctx, syntax)
	for _, p := range rep.Problems {
		t.Error(p)
	}
	if rep.Files != files || rep.Files != 2*len(GeneratorSpecs()) {
		t.Errorf("CheckTemplates checked %d files, want %d (two per generator)", rep.Files, files)
	}
}

// TestCheckTemplatesFindsDefects plants one defect per template and checks that each is reported
// with the template's file and line.
func TestCheckTemplatesFindsDefects(t *testing.T) {
	const okPy = "def {{.FuncSnake}}():\n    return 1 ⟪v⟫\n"
	const fixPy = "def {{.FuncSnake}}():\n    return 2\n"
	gen := func(arch, lang string) Generator { return Generator{Archetype: arch, Language: lang, Framework: "fw"} }
	file := func(arch, lang, variant string) string {
		name, err := gen(arch, lang).TemplateFile(variant)
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
	src := func(name string) string { return path.Join(TemplateSourceDir, name) }
	fsys := fstest.MapFS{}
	var gens []Generator
	var want []TemplateProblem
	add := func(arch, lang, vul, fix string, problems ...TemplateProblem) {
		gens = append(gens, gen(arch, lang))
		if vul != "" {
			fsys[file(arch, lang, "vul")] = &fstest.MapFile{Data: []byte(vul)}
		}
		if fix != "" {
			fsys[file(arch, lang, "fix")] = &fstest.MapFile{Data: []byte(fix)}
		}
		want = append(want, problems...)
	}
	add("clean", "python", okPy, fixPy)
	add("py-syntax", "python", "import os\n\ndef {{.FuncSnake}}(:\n    pass ⟪v⟫\n", fixPy,
		TemplateProblem{File: src(file("py-syntax", "python", "vul")), Line: 3})
	add("go-syntax", "go", "package {{.Entities}}\n\nfunc {{.FuncPascal}}() {\n\tx := ⟪v⟫\n}\n", "package {{.Entities}}\n",
		TemplateProblem{File: src(file("go-syntax", "go", "vul")), Line: 5})
	add("go-no-package", "go", "func a() {} ⟪v⟫\nfunc b() {\n\treturn }}\n", "func a() {}\n",
		TemplateProblem{File: src(file("go-no-package", "go", "vul")), Line: 3})
	// yaml.v3 says "line 2" for this parser error; the unclosed flow sequence starts on line 3.
	add("yaml-syntax", "kubernetes", "kind: Pod ⟪v⟫\nmetadata:\n  name: [{{.Entity}}\n  labels: {}\n", "kind: Pod\n",
		TemplateProblem{File: src(file("yaml-syntax", "kubernetes", "vul")), Line: 3})
	add("unknown-action", "python", "x = {{.Nope}} ⟪v⟫\n", fixPy,
		TemplateProblem{File: src(file("unknown-action", "python", "vul")), Line: 1})
	add("bad-action", "python", okPy, "a = 1\nb = {{.Entity\n",
		TemplateProblem{File: src(file("bad-action", "python", "fix")), Line: 2})
	add("spanning-action", "python", "x = 1 ⟪v⟫\ny = \"{{\n.Entity}}\"\n", fixPy,
		TemplateProblem{File: src(file("spanning-action", "python", "vul"))})
	add("unmarked", "python", fixPy, okPy,
		TemplateProblem{File: src(file("unmarked", "python", "vul"))},
		TemplateProblem{File: src(file("unmarked", "python", "fix")), Line: 2})
	add("missing-fix", "python", okPy, "",
		TemplateProblem{File: src(file("missing-fix", "python", "fix"))})
	add("no-ext", "cobol", "", "",
		TemplateProblem{File: TemplateSourceDir})
	fsys["orphan/python/fw/vul.py.tmpl"] = &fstest.MapFile{Data: []byte(okPy)}
	want = append(want, TemplateProblem{File: src("orphan/python/fw/vul.py.tmpl")})
	syntax := SyntaxCheckers{"go": GoSyntax{}, "kubernetes": YAMLSyntax{}, "python": parsers.Default()["python"]}
	rep := CheckTemplatesFS(context.Background(), fsys, gens, syntax)
	var got []TemplateProblem
	for _, p := range rep.Problems {
		if p.Message == "" {
			t.Errorf("%s: empty message", p)
		}
		got = append(got, TemplateProblem{File: p.File, Line: p.Line})
		t.Log(p)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
	if rep.Files != 2*len(gens)-2 || rep.OK() { // no-ext has no file names
		t.Errorf("files %d (want %d), ok %v", rep.Files, 2*len(gens)-2, rep.OK())
	}
	if n := rep.Syntax["python"]; n.Errors != 1 || n.Checked == 0 {
		t.Errorf("python tally %+v, want one error and some checked", n)
	}
}

// TestSyntaxErrorLine: each real checker names the line of a snippet whose third line is broken
// (Go's parser names the line where the missing expression should have been), in the code as
// given, whatever the checker wrapped it in.
func TestSyntaxErrorLine(t *testing.T) {
	ctx := context.Background()
	all := parsers.Default()
	for _, tc := range []struct {
		lang, code string
		want       int
	}{
		{"go", "package p\n\nfunc f() {\n\tx :=\n}\n", 5},
		{"go", "func f() {\n\treturn\n\tx := (\n}\n", 4}, // no package clause: the checker adds one
		{"python", "import os\n\ndef f(:\n    pass\n", 3},
		{"c", "int a;\nint b;\nint f( {\n", 3},
		{"java", "class A {\n  int a;\n  int f( {\n}\n", 3},
		{"javascript", "const a = 1;\nconst b = 2;\nconst = 3;\n", 3},
		{"bash", "echo a\necho b\nif then\n", 3},
		{"kubernetes", "a: 1\nb: 2\nc: d: e\n", 3}, // a scanner error: yaml.v3 gives its line
		{"kubernetes", "a: 1\nb:\n  - [x\n", 3},    // a parser error: found by truncating
		{"csharp", "using System;\n\nclass A { void F() { var s = \"open; } }\n", 3},
		{"php", "<?php\n$a = 1;\nif ($a { echo $a; }\n", 3},
		{"php", "$a = 1;\n$b = 2;\n$c = ;\n", 3}, // no opening tag: PHP code alone
		{"ruby", "require 'json'\n\ndef f(x\n  x + 1\nend\n", 3},
		{"typescript", "const a: number = 1;\nconst b = 2;\nconst c: = 3;\n", 3},
		{"terraform", "resource \"a\" \"b\" {\n  x = 1\n  y = \"open\n}\n", 3},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			c, ok := all[tc.lang]
			if !ok {
				t.Skipf("no %s checker on this machine", tc.lang)
			}
			res := c.CheckSyntax(ctx, tc.code)
			if res.Status != SyntaxError {
				t.Fatalf("%+v, want a syntax error", res)
			}
			if res.Line != tc.want || res.Message == "" {
				t.Errorf("%+v: want line %d and a message", res, tc.want)
			}
		})
	}
}
