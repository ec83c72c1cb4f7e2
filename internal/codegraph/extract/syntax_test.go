package extract

import (
	"errors"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

func TestCheckSyntax(t *testing.T) {
	tests := []struct {
		lang lang.Lang
		src  string
		want string // "" for valid
	}{
		{lang.C, "int f(int a) { return a + 1; }\n", ""},
		{lang.C, "int f(int a) { return a + ; }\n", "line 1"},
		{lang.Java, "class A { int f() { return 1; } }\n", ""},
		{lang.Java, "class A { int f() { return 1 }\n", "line 1"},
		{lang.Python, "def f(x):\n    return x\n", ""},
		{lang.Python, "def f(x)\n    return x\n", "line 1"},
		{lang.JavaScript, "function f(x) { return x * 2; }\n", ""},
		{lang.JavaScript, "function f(x) { return x * ; }\n", "line 1"},
		{lang.CPP, "int main() { std::vector<int> v; return 0; }\n", ""},
		{lang.Go, "package p\nfunc f() {\n\treturn\n", "line"},
	}
	for _, tt := range tests {
		err := CheckSyntax(tt.lang, []byte(tt.src))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %q: %v, want valid", tt.lang, tt.src, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %q: %v, want an error with %q", tt.lang, tt.src, err, tt.want)
		}
	}
}

// TestCheckGrammarSyntax: the syntax-only grammars parse valid code and name the line and column of
// a broken one.
func TestCheckGrammarSyntax(t *testing.T) {
	tests := []struct {
		g         Grammar
		src       string
		line, col int // 0: valid
	}{
		{CSharp, "var app = WebApplication.Create(args);\napp.Run();\n", 0, 0},
		{CSharp, "class A {\n  void F() {\n    G(\"x);\n  }\n}\n", 3, 0},
		{PHP, "<?php\necho strlen('x');\n", 0, 0},
		{PHP, "<?php\necho strlen('x';\n", 2, 0},
		{PHPOnly, "echo strlen('x');\n", 0, 0},
		{PHPOnly, "echo strlen('x';\n", 1, 0},
		{Ruby, "class A\n  def f = 1\nend\n", 0, 0},
		{Ruby, "class A\n  def f(\nend\n", 2, 0},
		{TypeScript, "const n = <number>x;\nexport type T = { a: string };\n", 0, 0},
		{TypeScript, "const e = <div>{n}</div>;\n", 1, 0}, // JSX is TSX's
		{TSX, "const e = <div>{n}</div>;\n", 0, 0},
		{GrammarOf(lang.Java), "class A {\n  int a;\n  void f() {\n    g(\"open);\n    h();\n  }\n}\n", 4, 0},
	}
	for _, tt := range tests {
		err := CheckGrammarSyntax(tt.g, []byte(tt.src))
		if tt.line == 0 {
			if err != nil {
				t.Errorf("%s %q: %v, want valid", tt.g, tt.src, err)
			}
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s %q: %v, want a *SyntaxError", tt.g, tt.src, err)
			continue
		}
		if se.Line != tt.line || tt.col > 0 && se.Column != tt.col || se.Message == "" {
			t.Errorf("%s %q: %+v, want line %d column %d and a message", tt.g, tt.src, se, tt.line, tt.col)
		}
	}
	if err := CheckGrammarSyntax(noGrammar, []byte("x")); err == nil || errors.As(err, new(*SyntaxError)) {
		t.Errorf("no grammar: %v, want a plain error", err)
	}
}

// TestCheckSyntaxUnterminatedString: an unterminated string is named on its own line, though
// Java's parser wraps the whole class in an ERROR and Python's lets the string run on.
func TestCheckSyntaxUnterminatedString(t *testing.T) {
	java := "class A {\n  int a;\n\n  A(int b) {\n    this.a = b;\n    String s = \"open;\n  }\n}\n"
	py := "def f(x):\n    return g(\n        a=[ \"\n            {\"k\": 1},\n        ],\n    )\n"
	for _, tt := range []struct {
		l    lang.Lang
		src  string
		line int
	}{{lang.Java, java, 6}, {lang.Python, py, 3}} {
		var se *SyntaxError
		if err := CheckSyntax(tt.l, []byte(tt.src)); !errors.As(err, &se) || se.Line != tt.line {
			t.Errorf("%s: %v, want an error on line %d", tt.l, err, tt.line)
		}
	}
}

// FuzzCheckGrammarSyntax: on any input, every grammar's check returns nil or a *SyntaxError whose
// line and column lie inside the input (a refined error too).
func FuzzCheckGrammarSyntax(f *testing.F) {
	for _, s := range []string{"class A { void f() { g(\"x); } }\n", "<?php\nif ($a { }\n", "def f(\n  x\nend\n",
		"const a: = 1;\n", "x = [ \"\n  {\"k\": 1},\n]\n", "\n\n\"", "}{", ""} {
		f.Add([]byte(s))
	}
	grammars := []Grammar{CSharp, PHP, PHPOnly, Ruby, TypeScript, TSX}
	for _, l := range lang.All() {
		grammars = append(grammars, GrammarOf(l))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := strings.Split(string(src), "\n")
		for _, g := range grammars {
			err := CheckGrammarSyntax(g, src)
			if err == nil {
				continue
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%s: %v, want a *SyntaxError", g, err)
			}
			if se.Line < 1 || se.Line > len(lines) || se.Column < 1 || se.Column > len(lines[se.Line-1])+1 || se.Message == "" {
				t.Fatalf("%s %q: %+v lies outside the input (%d lines)", g, src, se, len(lines))
			}
		}
	})
}

// TestParsesWrapped: a class member alone parses inside a class; a stray closer that the wrapper
// would pair off, or code with its own error, does not.
func TestParsesWrapped(t *testing.T) {
	const before, after = "class Snippet {\n", "\n}\n"
	tests := []struct {
		g    Grammar
		src  string
		want bool
	}{
		{CSharp, "public IActionResult Get(int id)\n{\n    return Ok(id);\n}", true},
		{CSharp, "public IActionResult Get(int id)\n{\n    return Ok(id)\n}", false},
		{CSharp, "}\nclass B {", false}, // the wrapper's braces would close B and open nothing
		{TypeScript, "async find(id: string): Promise<User> {\n  return this.repo.get(id);\n}", true},
		{TypeScript, "}\nclass B {", false},
		{PHPOnly, "public function show(int $id): string\n{\n    return (string) $id;\n}", true},
		{GrammarOf(lang.Java), "public int f(int a) { return a + 1; }", true},
		{GrammarOf(lang.Java), "public int f(int a) { return a + 1; }}\nclass B {", false},
	}
	for _, tt := range tests {
		if got := ParsesWrapped(tt.g, before, []byte(tt.src), after); got != tt.want {
			t.Errorf("%s %q: %v, want %v", tt.g, tt.src, got, tt.want)
		}
	}
}
