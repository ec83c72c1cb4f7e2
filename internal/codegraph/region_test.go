package codegraph_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/gittest"
)

// writeTree writes files (slash-separated path to content) into a new directory dated an
// hour back, as a checked-out snapshot is.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gittest.WriteFiles(t, dir, files)
	old := time.Now().Add(-time.Hour)
	for name := range files {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// cFunc is a C function of about 400 bytes named name that calls callee.
func cFunc(name, callee string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "static int %s (struct ctx *c, int n)\n{\n  int total = 0;\n", name)
	for i := range 8 {
		fmt.Fprintf(&b, "  if (n > %d)\n    total += %s (c, n - %d);\n", i, callee, i)
	}
	b.WriteString("  return total;\n}\n\n")
	return b.String()
}

// cFile joins the header and the functions into a C file.
func cFile(head string, funcs ...string) string { return head + strings.Join(funcs, "") }

const cHead = "/* A C file of several functions, for the incremental tests. */\n#include <stdio.h>\n\nstruct ctx { int depth; };\n\n"

// TestIncrementalRegions: an edited file whose previous content the base parsed is parsed only
// where it changed (Stats.PartParsed, ParsedBytes), and the index equals a cold one, for edits
// of each kind and in each language; where equality could be at risk the file is parsed whole.
func TestIncrementalRegions(t *testing.T) {
	a, b, c, d, e := cFunc("alpha", "step"), cFunc("beta", "alpha"), cFunc("gamma", "beta"), cFunc("delta", "gamma"), cFunc("epsilon", "delta")
	guarded := func(funcs ...string) string {
		return "#ifndef DISABLE_ALL\n" + cFile(cHead, funcs...) + "#ifdef EXTRA\n" + cFunc("extra1", "alpha") + cFunc("extra2", "beta") + "#endif\n#endif /* DISABLE_ALL */\n"
	}
	goFile := func(body string) string {
		return "package demo\n\nimport \"fmt\"\n\nvar hook = fmt.Sprint\n\nfunc One() string { return fmt.Sprint(1) }\n\nfunc Two() string {\n\treturn " + body + "\n}\n\nfunc Three() string { return hook(Two()) }\n"
	}
	pyFunc := func(name, callee string) string {
		var s strings.Builder
		fmt.Fprintf(&s, "def %s(xs):\n    total = 0\n    for x in xs:\n", name)
		for i := range 10 {
			fmt.Fprintf(&s, "        total += %s(x + %d)\n", callee, i)
		}
		s.WriteString("    return total\n\n\n")
		return s.String()
	}
	jsFunc := func(name, callee string) string {
		var s strings.Builder
		fmt.Fprintf(&s, "function %s(xs) {\n  let total = 0;\n  for (const x of xs) {\n", name)
		for i := range 10 {
			fmt.Fprintf(&s, "    total += %s(x + %d);\n", callee, i)
		}
		s.WriteString("  }\n  return total;\n}\n\n")
		return s.String()
	}
	javaFile := func(body string) string {
		return "package demo;\n\nclass Shapes {\n  int area(int w) { return w * w; }\n  int twice(int w) { return " + body + "; }\n}\n"
	}
	table := func(names ...string) string {
		var s strings.Builder
		for i, n := range names {
			fmt.Fprintf(&s, "static const struct handler h%d = { %s, %d };\n\n", i, n, i)
		}
		return s.String()
	}
	edited := strings.Replace(c, "total += beta (c, n - 3);", "total += beta (c, n - 3) * 2;\n    log_step (c);", 1)
	continued := func(param string) string {
		return "#ifndef HEADER_H\n#define HEADER_H\n" + cHead + "#if defined(CURL_MEMDEBUG) && defined(HAVE_GETADDRINFO) && \\\n" +
			"  defined(USE_ARES) && (ARES_VERSION >= 0x011a00) /* >= 1.26.0 */\n#define USE_FAKE 1\n#endif\n\n#ifdef USE_FAKE\n" +
			cFunc("alpha", "step") + "void r_free (" + param + ");\nint r_get (const char *node,\n           struct addrinfo **res);\n#endif /* USE_FAKE */\n\n#endif /* HEADER_H */\n"
	}
	for _, tc := range []struct {
		name      string
		path      string
		old, new  string
		part      bool // parsed in part, not whole
		maxParsed int  // bytes parsed at most, when in part
	}{
		{"C edit in the middle function", "src/m.c", cFile(cHead, a, b, c, d, e), cFile(cHead, a, b, edited, d, e), true, 700},
		{"C function inserted", "src/m.c", cFile(cHead, a, b, d, e), cFile(cHead, a, b, c, d, e), true, 700},
		{"C function deleted", "src/m.c", cFile(cHead, a, b, c, d, e), cFile(cHead, a, b, d, e), true, 400},
		{"C edit in an #ifdef block", "src/m.c", guarded(a, b, c, d, e), guarded(a, b, edited, d, e), true, 800},
		{"C edit inside a nested #ifdef", "src/m.c", guarded(a, b, c), strings.Replace(guarded(a, b, c), "extra1 (struct ctx *c, int n)\n{\n", "extra1 (struct ctx *c, int n)\n{\n  trace ();\n", 1), true, 800},
		{"C edit that adds a syntax error", "src/m.c", cFile(cHead, a, b, c, d, e), cFile(cHead, a, b, strings.Replace(c, "int total = 0;", "int total = = 0;", 1), d, e), true, 1800},
		{"C edit next to a function with a syntax error", "src/m.c",
			cFile(cHead, a, strings.Replace(b, "int total = 0;", "int total = = 0;", 1), c, d, e),
			cFile(cHead, a, strings.Replace(b, "int total = 0;", "int total = = 0;", 1), c, d, strings.Replace(e, "delta (c, n - 5)", "delta (c, n - 6)", 1)), true, 1500},
		{"C file-scope references: the first one deleted", "src/t.c",
			cFile(cHead, a, b) + table("alpha", "beta", "alpha", "beta") + cFile("", c, d, e),
			cFile(cHead, a, b) + table("gamma", "beta", "alpha", "beta") + cFile("", c, d, e), true, 1200},
		// curl's lib/fake_addrinfo.h: a comment at the end of a continued #if line is the
		// directive's, never a unit to skip (a gap there breaks the directive).
		{"C edit after a continued #if line", "src/h.h",
			continued("struct addrinfo *res"), continued("struct addrinfo *cahead"), true, 400},
		// curl's tests/libtest/lib3207.c between 8.16 and 8.17: a header split by #if/#else,
		// the body after #endif, which the parser reads one way or another by what follows.
		{"C header split by the preprocessor", "src/t.c",
			cFile(cHead, a, b) + "static unsigned int test_thread (void *ptr)\n{\n  return step (ptr, 1);\n}\n\n" + cFile("", c, d),
			cFile(cHead, a, b) + "#if defined(USE_THREADS)\nstatic CURL_THREAD_RETURN_T CURL_STDCALL test_thread (void *ptr)\n#else\nstatic unsigned int test_thread (void *ptr)\n#endif\n{\n  return step (ptr, 1);\n}\n\n" + cFile("", c, strings.Replace(d, "gamma (c, n - 2)", "gamma (c, n - 3)", 1)), false, 0},
		{"C function-pointer variable: parsed whole", "src/p.c",
			cFile(cHead+"static int (*step) (struct ctx *, int);\n\n", a, b, c, d, e),
			cFile(cHead+"static int (*step) (struct ctx *, int);\n\n", a, b, edited, d, e), false, 0},
		{"Go: parsed whole", "go/demo.go", goFile("One() + \"2\""), goFile("hook(One()) + \"2\""), false, 0},
		{"Python function edited", "py/m.py", pyFunc("f1", "g") + pyFunc("f2", "f1") + pyFunc("f3", "f2"),
			pyFunc("f1", "g") + pyFunc("f2", "h") + pyFunc("f3", "f2"), true, 400},
		{"JavaScript function edited", "js/m.js", jsFunc("f1", "g") + jsFunc("f2", "f1") + jsFunc("f3", "f2"),
			jsFunc("f1", "g") + jsFunc("f2", "h") + jsFunc("f3", "f2"), true, 400},
		// A Java file is one class: all of it but the package and imports is parsed again.
		{"Java method edited", "java/Shapes.java", javaFile("area(w) * 2"), javaFile("area(w) + area(w)"), true, 110},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := map[string]string{"src/other.c": "int step (struct ctx *c, int n) { return helper (n); }\n"}
			files := func(content string) map[string]string {
				m := map[string]string{tc.path: content}
				for k, v := range other {
					m[k] = v
				}
				return m
			}
			first, second := writeTree(t, files(tc.old)), writeTree(t, files(tc.new))
			cache := t.TempDir()
			base := openWith(t, first, codegraph.Options{CacheDir: cache, KeepParsed: true})
			inc := openWith(t, second, codegraph.Options{CacheDir: cache, KeepParsed: true, Base: base})
			cold := openWith(t, second, codegraph.Options{CacheDir: t.TempDir()})
			sameIndex(t, cold, inc)
			if strings.Contains(tc.name, "syntax error") && cold.Stats.SyntaxErrors == 0 {
				t.Error("the case has no syntax error")
			}
			if inc.Stats.Parsed != 1 || inc.Stats.Reused != 1 {
				t.Errorf("parsed %d, reused %d contents; want 1 and 1", inc.Stats.Parsed, inc.Stats.Reused)
			}
			switch {
			case tc.part && inc.Stats.PartParsed != 1:
				t.Errorf("parsed whole (%d bytes of %d); want the changed regions only", inc.Stats.ParsedBytes, len(tc.new))
			case tc.part && inc.Stats.ParsedBytes > int64(tc.maxParsed):
				t.Errorf("parsed %d bytes of %d; want at most %d", inc.Stats.ParsedBytes, len(tc.new), tc.maxParsed)
			case !tc.part && (inc.Stats.PartParsed != 0 || inc.Stats.ParsedBytes < int64(len(tc.new))): // a part parse given up counts too
				t.Errorf("parsed in part %d, %d bytes of %d; want it parsed whole", inc.Stats.PartParsed, inc.Stats.ParsedBytes, len(tc.new))
			}
			// A third snapshot from the second, back to the first content (and a new file): the
			// part parse's own units serve again.
			back := files(tc.old)
			back["src/new.c"] = "int fresh (void) { return 0; }\n"
			third := writeTree(t, back)
			again := openWith(t, third, codegraph.Options{CacheDir: cache, Base: inc})
			sameIndex(t, openWith(t, third, codegraph.Options{NoCache: true}), again)
			if tc.part && again.Stats.PartParsed != 1 {
				t.Errorf("back to the first content from the part-parsed one: parsed whole (%d bytes)", again.Stats.ParsedBytes)
			}
		})
	}
}

// TestIncrementalBaseMoved: when the base's directory no longer holds the content the base
// parsed, the edited file is parsed whole.
func TestIncrementalBaseMoved(t *testing.T) {
	a, b, c := cFunc("alpha", "step"), cFunc("beta", "alpha"), cFunc("gamma", "beta")
	first := writeTree(t, map[string]string{"m.c": cFile(cHead, a, b, c)})
	second := writeTree(t, map[string]string{"m.c": cFile(cHead, a, c)})
	cache := t.TempDir()
	base := openWith(t, first, codegraph.Options{CacheDir: cache, KeepParsed: true})
	if err := os.WriteFile(filepath.Join(first, "m.c"), []byte(cFile(cHead, b)), 0o644); err != nil {
		t.Fatal(err)
	}
	inc := openWith(t, second, codegraph.Options{CacheDir: cache, Base: base})
	sameIndex(t, openWith(t, second, codegraph.Options{NoCache: true}), inc)
	if inc.Stats.PartParsed != 0 || inc.Stats.Parsed != 1 {
		t.Errorf("parsed %d (in part %d); want m.c parsed whole", inc.Stats.Parsed, inc.Stats.PartParsed)
	}
}
