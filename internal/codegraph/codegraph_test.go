package codegraph_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/codegraph"
)

// The fixture repository, testdata/repo, holds a small program per language, written for these
// tests; every expectation below was read off its source by hand.
const fixture = "testdata/repo"

func openFixture(t *testing.T) *codegraph.Index {
	t.Helper()
	ix, err := codegraph.Open(context.Background(), fixture, codegraph.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if ix.CacheErr != nil {
		t.Fatal(ix.CacheErr)
	}
	return ix
}

func defStrings(fs []codegraph.Func) []string {
	out := []string{}
	for _, f := range fs {
		s := fmt.Sprintf("%s:%d-%d %s %s", f.File, f.StartLine, f.EndLine, f.QualName, f.Kind)
		if f.Static {
			s += " static"
		}
		out = append(out, s)
	}
	return out
}

func siteString(s codegraph.Site) string {
	caller := s.CallerQual
	if caller == "" {
		caller = "(file)"
	}
	callee := s.Callee
	if s.Kind == codegraph.Unresolved {
		callee = "(" + s.Expr + ")"
	}
	return fmt.Sprintf("%s %s %s:%d %s", caller, callee, s.File, s.Line, s.Kind)
}

func callerStrings(ss []codegraph.Site) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, siteString(s))
	}
	return out
}

// calleeStrings renders the callees of the first (nearest) definition.
func calleeStrings(cs []codegraph.CalleesOf) []string {
	out := []string{}
	if len(cs) == 0 {
		return out
	}
	for _, s := range cs[0].Calls {
		callee := s.Callee
		if s.Kind == codegraph.Unresolved {
			callee = "(" + s.Expr + ")"
		}
		if s.Qualifier != "" {
			callee = s.Qualifier + " " + callee
		}
		out = append(out, fmt.Sprintf("%s %d %s", callee, s.Line, s.Kind))
	}
	return out
}

func TestDefinitions(t *testing.T) {
	ix := openFixture(t)
	tests := []struct {
		name string
		near codegraph.Near
		want []string
	}{
		// One name in two files: both, the nearest first.
		{"helper", codegraph.Near{File: "c/util.c"}, []string{"c/util.c:5-9 helper function static", "c/main.c:13-17 helper function static"}},
		{"helper", codegraph.Near{}, []string{"c/main.c:13-17 helper function static", "c/util.c:5-9 helper function static"}},
		{"fact", codegraph.Near{File: "c/main.c"}, []string{
			"c/main.c:7-11 fact function", "java/Shapes.java:28-30 Shapes.fact method", "js/shapes.js:14-16 fact function", "python/shapes.py:16-17 fact function"}},
		{"count_down", codegraph.Near{}, []string{"c/util.c:18-24 count_down function"}}, // after a libc_hidden_def line
		{"twice", codegraph.Near{File: "c/main.c"}, []string{"c/util.h:8-12 twice function static", "cpp/shapes.cpp:8-8 geo::Shape::twice method"}},
		{"SQUARE", codegraph.Near{}, []string{"c/util.h:4-4 SQUARE macro"}},
		{"area", codegraph.Near{File: "cpp/shapes.cpp"}, []string{
			"cpp/shapes.cpp:14-14 geo::Square::area method", "cpp/circle.cpp:12-14 geo::Circle::area method",
			"java/Shapes.java:22-24 Square.area method",
			"js/shapes.js:9-11 Square.area method", "python/shapes.py:9-10 Square.area method"}},
		{"geo::Circle::area", codegraph.Near{}, []string{"cpp/circle.cpp:12-14 geo::Circle::area method"}},
		{"~Shape", codegraph.Near{}, []string{"cpp/shapes.cpp:6-6 geo::Shape::~Shape method"}},
		{"Area", codegraph.Near{}, []string{"go/shapes.go:8-8 shapes.Square.Area method"}},
		{"describe", codegraph.Near{File: "python/report.py"}, []string{
			"python/report.py:1-3 describe function", "python/shapes.py:12-13 Square.describe method",
			"go/report.go:5-7 shapes.describe function", "java/Report.java:6-12 Report.describe method",
			"java/Shapes.java:10-12 Shape.describe method", "js/report.js:1-3 describe function"}},
		{"apply", codegraph.Near{File: "js/shapes.js"}, []string{
			"js/shapes.js:18-18 apply function", "c/main.c:20-24 apply function static", "go/shapes.go:17-19 shapes.apply function",
			"java/Shapes.java:32-34 Shapes.apply method", "python/shapes.py:20-21 apply function"}},
		// Within one file, the definition containing the line comes first.
		{"helper", codegraph.Near{File: "c/main.c", Line: 15}, []string{"c/main.c:13-17 helper function static", "c/util.c:5-9 helper function static"}},
		{"no_such_function", codegraph.Near{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.near.File, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, defStrings(ix.Definitions(tt.name, tt.near))); diff != "" {
				t.Errorf("Definitions(%q, %+v) (-want +got):\n%s", tt.name, tt.near, diff)
			}
		})
	}
}

func TestCallers(t *testing.T) {
	ix := openFixture(t)
	tests := []struct {
		name string
		near codegraph.Near
		want []string
	}{
		// Recursion, and a reference in a file-scope initializer (an ops table).
		{"fact", codegraph.Near{File: "c/main.c"}, []string{"fact fact c/main.c:10 direct", "main fact c/main.c:38 direct"}},
		{"helper", codegraph.Near{File: "c/util.c"}, []string{
			"log_value helper c/util.c:14 direct",
			"(file) helper c/main.c:31 reference",
			"main helper c/main.c:37 reference",
			"main helper c/main.c:38 direct"}},
		{"count_down", codegraph.Near{}, []string{"count_down count_down c/util.c:22 direct"}},
		{"log_value", codegraph.Near{}, []string{"main log_value c/main.c:41 direct"}},
		// C++: methods called on objects are method calls; the lambda's call belongs to main.
		{"area", codegraph.Near{File: "cpp/shapes.cpp"}, []string{
			"geo::Shape::twice area cpp/shapes.cpp:8 direct",
			"geo::total area cpp/shapes.cpp:21 method",
			"geo::total area cpp/shapes.cpp:21 method"}},
		{"count_calls", codegraph.Near{}, []string{"count_calls count_calls cpp/shapes.cpp:27 direct", "main count_calls cpp/shapes.cpp:33 direct"}},
		{"geo::total", codegraph.Near{}, []string{"main total cpp/shapes.cpp:32 direct"}},
		// Java: a method reference is a reference; describe is called on two receivers.
		{"fact", codegraph.Near{File: "java/Shapes.java"}, []string{"Shapes.fact fact java/Shapes.java:29 direct", "Shapes.main fact java/Shapes.java:39 reference"}},
		{"describe", codegraph.Near{File: "java/Shapes.java"}, []string{
			"Shapes.main describe java/Shapes.java:40 method",
			"Shapes.main describe java/Shapes.java:40 method",
			"Report.describe describe java/Report.java:9 method"}},
		{"Square", codegraph.Near{File: "java/Shapes.java"}, []string{"Shapes.main Square java/Shapes.java:37 direct"}},
		// Python: a function passed as an argument; main called at module level.
		{"fact", codegraph.Near{File: "python/shapes.py"}, []string{"fact fact python/shapes.py:17 direct", "main fact python/shapes.py:26 reference"}},
		{"main", codegraph.Near{File: "python/shapes.py"}, []string{"(file) main python/shapes.py:31 direct"}},
		// Go: methods on a receiver, a function value.
		{"Area", codegraph.Near{}, []string{"shapes.Main Area go/shapes.go:24 method", "shapes.describe Area go/report.go:6 method"}},
		{"Fact", codegraph.Near{}, []string{"shapes.Fact Fact go/shapes.go:14 direct", "shapes.Main Fact go/shapes.go:23 reference"}},
		// JavaScript: an exported function, a callback.
		{"describe", codegraph.Near{File: "js/report.js"}, []string{"(file) describe js/report.js:5 reference", "main describe js/shapes.js:23 direct"}},
		{"fact", codegraph.Near{File: "js/shapes.js"}, []string{"fact fact js/shapes.js:15 direct", "main fact js/shapes.js:22 reference"}},
		{"no_such_function", codegraph.Near{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.near.File, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, callerStrings(ix.Callers(tt.name, tt.near))); diff != "" {
				t.Errorf("Callers(%q, %+v) (-want +got):\n%s", tt.name, tt.near, diff)
			}
		})
	}
}

func TestCallees(t *testing.T) {
	ix := openFixture(t)
	tests := []struct {
		name string
		near codegraph.Near
		want []string
	}{
		// Function pointers are unresolved: a struct member, a dereference, a parameter.
		{"main", codegraph.Near{File: "c/main.c"}, []string{
			"helper 37 reference", "fact 38 direct", "helper 38 direct", "apply 38 direct",
			"(o->run) 39 unresolved", "((*fp)) 40 unresolved", "log_value 41 direct", "SQUARE 41 direct", "twice 42 direct"}},
		{"apply", codegraph.Near{File: "c/main.c"}, []string{"(op) 23 unresolved"}},
		{"log_value", codegraph.Near{}, []string{"printf 14 direct", "helper 14 direct"}},
		{"fact", codegraph.Near{File: "c/main.c"}, []string{"fact 10 direct"}},
		{"SQUARE", codegraph.Near{}, []string{}},
		// A lambda stored in a variable is called through the variable.
		{"main", codegraph.Near{File: "cpp/shapes.cpp"}, []string{
			"geo total 32 direct", "sq twice 32 method", "count_calls 33 direct", "(cb) 34 unresolved"}},
		{"geo::total", codegraph.Near{}, []string{"a area 21 method", "b area 21 method"}},
		{"twice", codegraph.Near{File: "cpp/shapes.cpp"}, []string{"area 8 direct"}},
		{"main", codegraph.Near{File: "java/Shapes.java"}, []string{
			"Square 37 direct", "s area 38 method", "apply 39 direct", "fact 39 reference",
			"System.out println 40 method", "s describe 40 method", "Report describe 40 method", "List of 40 method"}},
		{"apply", codegraph.Near{File: "java/Shapes.java"}, []string{"op applyAsInt 33 method"}},
		{"main", codegraph.Near{File: "python/shapes.py"}, []string{
			"Square 25 direct", "apply 26 direct", "fact 26 reference", "s area 26 method", "print 27 direct", "describe 27 direct"}},
		{"apply", codegraph.Near{File: "python/shapes.py"}, []string{"(op) 21 unresolved"}},
		{"Main", codegraph.Near{}, []string{
			"apply 23 direct", "Fact 23 reference", "fmt Println 24 direct", "s Area 24 method", "describe 24 direct"}},
		{"apply", codegraph.Near{File: "go/shapes.go"}, []string{"(op) 18 unresolved"}},
		{"describe", codegraph.Near{File: "go/report.go"}, []string{"strings Repeat 6 direct", "int 6 direct", "s Area 6 method"}},
		{"apply", codegraph.Near{File: "js/shapes.js"}, []string{"(op) 18 unresolved"}},
		{"describe", codegraph.Near{File: "js/report.js"}, []string{
			"shapes map 2 method", "s area 2 method", "shapes.map((s) => s.area()) join 2 method"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.near.File, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, calleeStrings(ix.Callees(tt.name, tt.near))); diff != "" {
				t.Errorf("Callees(%q, %+v) (-want +got):\n%s", tt.name, tt.near, diff)
			}
		})
	}
}

func TestDefinitionSource(t *testing.T) {
	ix := openFixture(t)
	got, err := ix.Definition("apply", codegraph.Near{File: "c/main.c"})
	if err != nil {
		t.Fatal(err)
	}
	want := "static int\napply (int (*op) (int), int v)\n{\n  return op (v);\n}"
	if len(got) == 0 || got[0].Text != want {
		t.Fatalf("Definition(apply)[0] = %+v, want text %q", got, want)
	}
	if got[0].Signature != "static int apply (int (*op) (int), int v)" {
		t.Errorf("signature %q", got[0].Signature)
	}
}

func TestStats(t *testing.T) {
	ix := openFixture(t)
	var files []string
	for _, f := range ix.Files {
		files = append(files, f.Path+" "+f.Lang.String())
	}
	want := []string{
		"c/main.c c", "c/util.c c", "c/util.h c", "cpp/circle.cpp cpp", "cpp/shapes.cpp cpp",
		"go/report.go go", "go/shapes.go go", "java/Report.java java", "java/Shapes.java java",
		"js/report.js javascript", "js/shapes.js javascript", "python/report.py python", "python/shapes.py python",
	}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if ix.Stats.SyntaxErrors != 0 {
		t.Errorf("%d fixture files have syntax errors", ix.Stats.SyntaxErrors)
	}
	if got := strings.Count(ix.Hash, ""); got != 65 {
		t.Errorf("snapshot hash %q is not 64 hex digits", ix.Hash)
	}
}
