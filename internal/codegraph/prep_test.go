package codegraph

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// blankedLines returns the 1-based numbers of the lines prepare changed, and checks that it kept
// the length and every line break.
func blankedLines(t *testing.T, l Lang, src string) []int {
	t.Helper()
	out, _ := prepare(l, []byte(src), nil)
	if len(out) != len(src) {
		t.Fatalf("prepare changed the length: %d to %d", len(src), len(out))
	}
	got := []int{}
	a, b := strings.Split(src, "\n"), strings.Split(string(out), "\n")
	if len(a) != len(b) {
		t.Fatalf("prepare changed the line count: %d to %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			if strings.TrimSpace(b[i]) != "" {
				t.Errorf("line %d partly blanked: %q", i+1, b[i])
			}
			got = append(got, i+1)
		}
	}
	return got
}

func rows(n int, row string) string { return strings.Repeat(row+"\n", n) }

func TestPrepare(t *testing.T) {
	tests := []struct {
		name string
		lang Lang
		src  string
		want []int
	}{
		{"table rows", C, "static const int t[] =\n{\n" + rows(20, "  [0x01] = 0x4e00, [0x02] = 0x4e01,") + "  [0x03] = 0x4e02\n};\n", lines(3, 22)},
		{"table with comment rows", C, "int t[] = {\n" + rows(10, "  0x0000, 0x1111,") + "  /* 0x5AC0 */\n" + rows(10, "  0x0000, 0x1111,") + "};\n", lines(2, 22)},
		{"short table kept", C, "int t[] = {\n" + rows(15, "  1, 2, 3,") + "};\n", []int{}},
		{"rows with calls kept", C, "int t[] = {\n" + rows(20, "  f (1), g (2),") + "};\n", []int{}},
		{"rows after a statement kept", C, "int a;\n" + rows(20, "  1, 2,") + "};\n", []int{}},
		{"string rows", Java, "String[] s = {\n" + rows(20, `  "a(b", "c;d",`) + "};\n", lines(2, 21)},

		{"macro lines at file scope", C, "int f (void)\n{\n  return 0;\n}\nlibc_hidden_def (f)\nweak_alias (f, g)\n\nint\nh (void)\n{\n  return f ();\n}\n", []int{5, 6}},
		{"multi-line macro", C, "int x;\ncompat_symbol (libc, a, b,\n               GLIBC_2_0)\nint y;\n", []int{2, 3}},
		{"K&R declarator kept", C, "int\nkr (a, b)\n     int a;\n     int b;\n{\n  return a + b;\n}\n", []int{}},
		{"declarator before its body kept", C, "int x;\nfoo (void)\n{\n}\n", []int{}},
		{"statement with semicolon kept", C, "int x;\nweak_alias (f, g);\nint y;\n", []int{}},
		{"macro line in a C++ file", CPP, "void f() {}\nQ_DECLARE_METATYPE(Foo)\nvoid g() {}\n", []int{2}},
		{"not in Java", Java, "class A {}\nfoo (x)\nclass B {}\n", []int{}},
		{"attribute line", C, "FILE *\nattribute_compat_text_section\n_IO_old_fopen (const char *f)\n{\n  return 0;\n}\n", []int{2}},
		{"type line kept", C, "static\nreg_errcode_t\nre_search (int x)\n{\n}\n", []int{}},

		{"unbalanced branches", C, "int f (void)\n{\n#if X\n  if (a) {\n#else\n  if (b) {\n#endif\n    g ();\n  }\n}\n", []int{6}},
		{"balanced branches kept", C, "#ifdef X\nint f (void) { return 1; }\n#else\nint f (void) { return 2; }\n#endif\n", []int{}},
		{"if 0", C, "#if 0\nint dead (void) { return 0; }\n#endif\nint live (void) { return 1; }\n", []int{2}},
		{"if 0 else", C, "#if 0\nint a (void) {\n#else\nint b (void) {\n#endif\n  return 0;\n}\n", []int{2}},
		{"braces in strings and comments", C, "#if X\n  s = \"{\"; c = '{'; /* { */\n#else\n  t = 1;\n#endif\n", []int{}},
		{"nested groups", C, "void f (void)\n{\n#ifdef A\n# if B\n  if (x) {\n# else\n  if (y) {\n# endif\n#else\n  {\n#endif\n  }\n}\n", []int{7, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, blankedLines(t, tt.lang, tt.src)); diff != "" {
				t.Errorf("blanked lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJoinTypeMacros checks the one pass that rewrites rather than blanks: a type macro in a
// file-scope return type becomes one identifier of the same length; calls, macro lines and
// declarators are left as the other passes treat them.
func TestJoinTypeMacros(t *testing.T) {
	body := "\n{\n  return 0;\n}\n"
	tests := []struct {
		name      string
		lang      Lang
		src, want string
	}{
		{"return type on the line before", C,
			"int x;\nstatic const ElfW(Sym) *\ncheck_match (const char *name)" + body,
			"int x;\nstatic const ElfW_Sym_ *\ncheck_match (const char *name)" + body},
		{"alone on its line, not blanked as a macro line", C,
			"int x;\nElfW(Addr)\npltenter (ElfW(Sym) *sym, unsigned int ndx,\n\t  uintptr_t *refcook)" + body,
			"int x;\nElfW_Addr_\npltenter (ElfW(Sym) *sym, unsigned int ndx,\n\t  uintptr_t *refcook)" + body},
		{"declarator on the same line", C,
			"const ElfW(Sym) *foo (int x)" + body,
			"const ElfW_Sym_ *foo (int x)" + body},
		{"prototype", C,
			"extern ElfW(Addr) _dl_fixup (struct link_map *, ElfW(Word)) attribute_hidden;\n",
			"extern ElfW_Addr_ _dl_fixup (struct link_map *, ElfW(Word)) attribute_hidden;\n"},
		{"attribute after the type", C,
			"static inline ElfW(Addr) __attribute__ ((unused))\nelf_machine_load_address (void)" + body,
			"static inline ElfW_Addr_                         \nelf_machine_load_address (void)" + body},
		{"C++", CPP,
			"static ElfW(Addr)\nf (int x)" + body,
			"static ElfW_Addr_\nf (int x)" + body},
		{"attribute after a return type", C,
			"int x;\nvoid attribute_hidden\n_IO_vtable_check (void)" + body + "static int internal_function\nf (int x)" + body,
			"int x;\nvoid                 \n_IO_vtable_check (void)" + body + "static int                  \nf (int x)" + body},
		{"attribute lines in a row, attribute words", C,
			"int x;\nvoid\nattribute_compat_text_section\n__attribute_used__\nplaceholder (void)" + body +
				"int *\nweak_const_function\nloc (void)" + body + "void __libc_freeres_fn_section\nfreeres (void)" + body,
			"int x;\nvoid\n                             \n                  \nplaceholder (void)" + body +
				"int *\n                   \nloc (void)" + body + "void                          \nfreeres (void)" + body},
		{"a type alone is kept", C,
			"static void\nf (void)" + body + "unsigned int\ng (void)" + body,
			"static void\nf (void)" + body + "unsigned int\ng (void)" + body},
		{"comment inside a macro body", C,
			"#define R(code) \\\n  do { /* We don't \\\n  care. */ \\\n    f (code); \\\n  } while (0)\nint x;\n",
			"#define R(code) \\\n  do {             \\\n           \\\n    f (code); \\\n  } while (0)\nint x;\n"},
		{"comment ending a directive, comment in a string", C,
			"#define N(x)\t/* Nothing.  */\n#define S \"/* no */\" x\nint x;\n",
			"#define N(x)\t/* Nothing.  */\n#define S \"/* no */\" x\nint x;\n"},
		{"extern __typeof declarations", C,
			"int x;\nextern __typeof (REDIRECT_NAME) OPTIMIZE (sse2) attribute_hidden;\nstatic inline void *\nIFUNC_SELECTOR (void)" + body,
			"int x;\n                                                                 \nstatic inline void *\nIFUNC_SELECTOR (void)" + body},
		{"struct tag", C,
			"struct E(link_map)\n{\n  int l_ns;\n};\nstruct E(r_debug) {\n  int v;\n};\n",
			"struct E_link_map_\n{\n  int l_ns;\n};\nstruct E_r_debug_ {\n  int v;\n};\n"},

		{"not in Java", Java, "class A {\nElfW(Addr)\nf (int x) {}\n}\n", "class A {\nElfW(Addr)\nf (int x) {}\n}\n"},
		{"calls in a body", C,
			"int f (void)\n{\n  g(x);\n  h(y) * 2;\nstatic ElfW(Addr)\nfoo (x);\n}\n",
			"int f (void)\n{\n  g(x);\n  h(y) * 2;\nstatic ElfW(Addr)\nfoo (x);\n}\n"},
		{"K&R declarator", C,
			"int\nf(x)\n     int x;\n{\n  return x;\n}\n",
			"int\nf(x)\n     int x;\n{\n  return x;\n}\n"},
		{"declarators before a body or a semicolon", C,
			"int f(x)\n{\n}\nint g(y);\nmain(void)\n{\n}\n",
			"int f(x)\n{\n}\nint g(y);\nmain(void)\n{\n}\n"},
		{"declarators before an attribute line", C,
			"int\nf(x)\n__attribute__ ((unused))\n{\n}\nint\ng(void)\n__attribute__ ((unused))\n{\n}\n",
			"int\nf(x)\n__attribute__ ((unused))\n{\n}\nint\ng(void)\n__attribute__ ((unused))\n{\n}\n"},
		{"declarators before attributes", C,
			"extern int f(size_t) __attribute__ ((const));\nstatic void g(x) __attribute__ ((noreturn));\n",
			"extern int f(size_t)                        ;\nstatic void g(x)                           ;\n"},
		{"macro lines stay blanked", C,
			"int x;\nlibc_hidden_def (f)\nweak_alias (f, g)\nlibc_hidden_proto(h)\nint\nk (void)" + body,
			"int x;\n                   \n                 \n                    \nint\nk (void)" + body},
		{"macro line before a macro line", C,
			"int x;\nstub_warning(ptsname)\nstub_warning(ptsname_r)\n",
			"int x;\n                     \n                       \n"},
		{"spaces", C,
			"static ElfW (Sym) *\nf (int x)" + body + "static ElfW(Sym )\ng (int x)" + body,
			"static ElfW (Sym) *\nf (int x)" + body + "static ElfW(Sym )\ng (int x)" + body},
		{"comment and directive", C,
			"/*\nstatic ElfW(Addr) f (int x)\n*/\n#define M \\\nstatic ElfW(Addr)\nf (int x);\n",
			"/*\nstatic ElfW(Addr) f (int x)\n*/\n#define M \\\nstatic ElfW(Addr)\nf (int x);\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := prepare(tt.lang, []byte(tt.src), nil)
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("prepared text (-want +got):\n%s", diff)
			}
		})
	}
}

func lines(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestSkipGaps(t *testing.T) {
	blank := strings.Repeat(strings.Repeat(" ", 99)+"\n", 50) // 5000 bytes of blank lines
	src := "int a;\n" + blank + "int b;\n" + strings.Repeat(" \n", 10) + "int c;\n"
	got := skipGaps([]byte(src))
	want := []uint32{7, 7 + 5000, 1, 51} // bytes [7, 5007), rows 1 to 51; the short run is left
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}
}

// TestGapsParseAlike checks that skipping the gaps changes nothing the extractors see.
func TestGapsParseAlike(t *testing.T) {
	src := []byte("static const int t[] =\n{\n" + rows(300, "  [0x01] = 0x4e00, [0x02] = 0x4e01, [0x03] = 0x4e02,") +
		"  [0x04] = 0x4e03\n};\n#define M(x) x\nint\nf (int x)\n{\n  return g (x) + t[M (0)];\n}\n")
	gs, err := newGrammars()
	if err != nil {
		t.Fatal(err)
	}
	p := newParser(gs, 0)
	defer p.Close()
	text, gaps := prepare(C, src, nil)
	if len(gaps) == 0 {
		t.Fatal("no gap to skip")
	}
	extract := func(gaps []uint32) *FileResult {
		nodes, err := p.parse(C, text, gaps, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		res := &FileResult{Path: "t.c", Lang: C}
		(&extractor{g: gs[C], src: src, n: nodes, intern: map[string]string{}, res: res}).run()
		return res
	}
	with, without := extract(gaps), extract(nil)
	if diff := cmp.Diff(without, with); diff != "" {
		t.Errorf("with gaps (-without +with):\n%s", diff)
	}
	if len(with.Funcs) != 2 || with.Funcs[1].Name != "f" || with.Funcs[1].StartLine != 306 {
		t.Errorf("functions %+v", with.Funcs)
	}
}

func TestContentRules(t *testing.T) {
	tests := []struct {
		name string
		lang Lang
		src  string
		want string
	}{
		{"code", C, "int f (void) { return 0; }\n", ""},
		{"nul byte", C, "int x;\x00", "binary file (NUL byte)"},
		{"go generated", Go, "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage p\n", `generated file (marker "DO NOT EDIT")`},
		{"at generated", Python, "# @generated by tool\n", `generated file (marker "@generated")`},
		{"phrase", C, "/* This file is automatically generated.  */\n", `generated file (marker "this file is automatically generated")`},
		{"mention is not a marker", C, "/* Reads the auto-generated lib-names.h.  */\n", ""},
		{"minified", JavaScript, strings.Repeat("a=1;", 5000), "generated file (minified: 20000 bytes a line)"},
		{"long lines in C are fine", C, strings.Repeat("a=1;", 5000), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contentSkip(tt.lang, []byte(tt.src)); got != tt.want {
				t.Errorf("contentSkip = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLangOf(t *testing.T) {
	tests := []struct {
		name string
		cpp  bool
		want Lang
	}{
		{"a/b.c", false, C}, {"x.h", false, C}, {"x.h", true, CPP}, {"x.cc", false, CPP}, {"X.CPP", false, CPP},
		{"A.java", false, Java}, {"m.py", false, Python}, {"m.go", false, Go}, {"m.mjs", false, JavaScript},
		{"m.jsx", false, JavaScript}, {"README", false, NoLang}, {"x.S", false, NoLang}, {"x.ts", false, NoLang},
	}
	for _, tt := range tests {
		if got := LangOf(tt.name, tt.cpp); got != tt.want {
			t.Errorf("LangOf(%q, %v) = %v, want %v", tt.name, tt.cpp, got, tt.want)
		}
	}
}

func TestGoPackageName(t *testing.T) {
	for path, want := range map[string]string{
		"fmt": "fmt", "github.com/google/go-cmp/cmp": "cmp", "github.com/x/config/v2": "config",
		"gopkg.in/yaml.v3": "yaml", "github.com/mattn/go-isatty": "isatty", "github.com/a/b-go": "b",
	} {
		if got := goPackageName(path); got != want {
			t.Errorf("goPackageName(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	ix := &Index{
		Hash:    strings.Repeat("ab", 32),
		Files:   []File{{Path: "a.c", Lang: C, Size: 10, Partial: true}, {Path: "b/c.py", Lang: Python, Size: 20}},
		Funcs:   []Func{{Name: "f", QualName: "f", Kind: Function, Static: true, File: "a.c", Lang: C, StartLine: 1, EndLine: 3, StartByte: 0, EndByte: 9, Signature: "int f (void)"}, {Name: "m", QualName: "K.m", Kind: Method, File: "b/c.py", Lang: Python, StartLine: 2, EndLine: 2, StartByte: 5, EndByte: 20}},
		Calls:   []Call{{Callee: "g", Kind: Direct, File: "a.c", Line: 2, Col: 3, Caller: 0}, {Expr: "p->x", Kind: Unresolved, File: "a.c", Line: 2, Col: 9, Caller: 0}, {Callee: "m", Qualifier: "self", Kind: MethodCall, File: "b/c.py", Line: 5, Col: 1, Caller: -1}},
		Skipped: []Skipped{{"big.c", "oversized"}},
	}
	ix.finish()
	b := encodeIndex(ix)
	got, err := decodeIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ix, got, cmp.AllowUnexported(Index{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// Every truncation and a flipped byte are refused, never misread.
	for n := 0; n < len(b); n += 7 {
		if _, err := decodeIndex(b[:n]); err == nil {
			t.Fatalf("a truncation to %d bytes decoded", n)
		}
	}
	bad := bytes.Clone(b)
	bad[len(bad)/2] ^= 0x40
	if _, err := decodeIndex(bad); err == nil {
		t.Error("a corrupted index decoded")
	}
}

func TestStatCacheRacy(t *testing.T) {
	dir := t.TempDir()
	sc := loadStatCache(dir, "/repo")
	now := time.Now().UnixNano()
	cands := []candidate{
		{path: "old.c", size: 1, mtime: now - int64(time.Hour), hash: [32]byte{1}},
		{path: "new.c", size: 1, mtime: now, hash: [32]byte{2}}, // changed as it was hashed
	}
	if err := sc.save(cands); err != nil {
		t.Fatal(err)
	}
	sc = loadStatCache(dir, "/repo")
	if h, ok := sc.lookup(&cands[0]); !ok || h != cands[0].hash {
		t.Errorf("old file: %v %v", h, ok)
	}
	if _, ok := sc.lookup(&cands[1]); ok {
		t.Error("a file modified within the racy window was trusted")
	}
	moved := cands[0]
	moved.ino++
	if _, ok := sc.lookup(&moved); ok {
		t.Error("a file with another inode was trusted")
	}
}

func TestProximity(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a/b/c.c", "a/b/c.c", 1 << 20},
		{"a/b/x.c", "a/b/c.c", 1 << 19},
		{"x.c", "y.c", 1 << 19},
		{"a/x/y.c", "a/b/c.c", 1},
		{"a/b/c/d.c", "a/b/e/f.c", 2},
		{"ab/c.c", "a/c.c", 0},
		{"x.c", "a/b.c", 0},
		{"a/b.c", "", 0},
	}
	for _, tt := range tests {
		if got := proximity(tt.a, tt.b); got != tt.want {
			t.Errorf("proximity(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestBlankDeclAttributes(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"after a prototype",
			"extern void *malloc (size_t __size) __THROW __attribute_malloc__ __wur;\n",
			"extern void *malloc (size_t __size)                                   ;\n"},
		{"with arguments",
			"extern char *strdup (const char *__s) __nonnull ((1)) __wur;\n",
			"extern char *strdup (const char *__s)                      ;\n"},
		{"on the next line",
			"extern char *strdup (const char *__s)\n     __THROW __attribute_malloc__;\n",
			"extern char *strdup (const char *__s)\n                                 ;\n"},
		{"before a body",
			"int f (void) __THROW\n{\n  return g () __x;\n}\n",
			"int f (void)        \n{\n  return g () __x;\n}\n"},
		{"calls in a body are not attributes",
			"int f (void)\n{\n  if (x) __set_errno (EINVAL);\n  return 0;\n}\n",
			"int f (void)\n{\n  if (x) __set_errno (EINVAL);\n  return 0;\n}\n"},
		{"not a macro name",
			"int g (int a) int b;\n",
			"int g (int a) int b;\n"},
		{"a declarator after an attribute line",
			"static int\n__attribute__ ((noinline))\n__pthread_once_slow (pthread_once_t *c)\n{\n}\n",
			"static int\n__attribute__ ((noinline))\n__pthread_once_slow (pthread_once_t *c)\n{\n}\n"},
		{"strings left alone",
			"extern int f (void) __asm__ (\"g\");\n",
			"extern int f (void) __asm__ (\"g\");\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBlanker([]byte(tt.src), []byte(tt.src), nil)
			blankDeclAttributes(b)
			if diff := cmp.Diff(tt.want, string(b.out)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
