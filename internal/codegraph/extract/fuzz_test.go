package extract_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vulnbench/vulnbench/internal/codegraph/extract"
	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// FuzzIndexFile feeds arbitrary bytes, in every language, to the file-indexing entry point the
// repository indexer's workers use: it must not fail or panic, and what it returns must point
// inside the file, a definition's lines those of its bytes.
func FuzzIndexFile(f *testing.F) {
	seeds := []string{
		"int f (void) { return g (1); }\n",
		"static int (*get (int x)) (int) { return h; }\nweak_alias (f, g)\n",
		"#if X\nint f (void) {\n#else\nint f (int a) {\n#endif\n  return (*p) (a);\n}\n",
		"int t[] = {\n" + strings.Repeat("  0x1, 0x2,\n", 20) + "};\n",
		"namespace n { class A { int m() { return this->k() + ns::f<int>(1); } }; }\n",
		"class A { void m() { o.x(); new B(); Runnable r = A::m; } }\n",
		"def f(cb):\n    return cb(g(1))\nclass K:\n    def m(self): self.m()\n",
		"package p\nimport \"fmt\"\nfunc (s *S) M(f func()) { f(); fmt.Println(s.N()) }\n",
		"const f = (cb) => cb(g()); class A { m() { this.n(); } }\nexports.x = function () {};\n",
		"\xff\xfe\x00\x01int\xc3(",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i))
	}
	fi, err := extract.New(nil, extract.Limits{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(fi.Close)
	langs := lang.All()
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		l := langs[int(which)%len(langs)]
		start := time.Now()
		res, err := fi.IndexFileAs(l, "fuzz", src)
		if d := time.Since(start); d > 3*time.Second && len(src) < 1<<16 {
			t.Fatalf("%d bytes took %v", len(src), d)
		}
		if err != nil {
			t.Fatalf("IndexFileAs: %v", err)
		}
		lines := strings.Count(string(src), "\n") + 1
		lineAt := func(off int) int { return strings.Count(string(src[:off]), "\n") + 1 }
		for _, fn := range res.Funcs {
			if fn.StartByte < 0 || fn.StartByte > fn.EndByte || fn.EndByte > len(src) {
				t.Fatalf("%s: byte range %d-%d outside %d bytes", fn.Name, fn.StartByte, fn.EndByte, len(src))
			}
			if fn.StartLine < 1 || fn.StartLine > fn.EndLine || fn.EndLine > lines {
				t.Fatalf("%s: lines %d-%d outside %d lines", fn.Name, fn.StartLine, fn.EndLine, lines)
			}
			// The lines are those of the first and the last byte of the range.
			if s, e := lineAt(fn.StartByte), lineAt(max(fn.EndByte-1, fn.StartByte)); s != fn.StartLine || e != fn.EndLine {
				t.Fatalf("%s: lines %d-%d, bytes %d-%d on lines %d-%d", fn.Name, fn.StartLine, fn.EndLine, fn.StartByte, fn.EndByte, s, e)
			}
			if fn.Name == "" || fn.File != "fuzz" || fn.Lang != l {
				t.Fatalf("bad definition %+v", fn)
			}
		}
		for _, c := range res.Calls {
			if c.Caller < -1 || c.Caller >= len(res.Funcs) || c.Line < 1 || c.Line > lines || c.Col < 1 {
				t.Fatalf("bad call %+v (%d functions, %d lines)", c, len(res.Funcs), lines)
			}
			if (c.Kind == graph.Unresolved) != (c.Callee == "") {
				t.Fatalf("call %+v: a callee name exactly when resolved", c)
			}
			if utf8.ValidString(string(src)) && !utf8.ValidString(c.Callee+c.Qualifier+c.Expr) {
				t.Fatalf("call %+v: invalid UTF-8 from valid input", c)
			}
		}
	})
}
