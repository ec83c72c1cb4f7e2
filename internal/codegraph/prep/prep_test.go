package prep

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// blankedLines returns the 1-based numbers of the lines prepare changed, and checks that it kept
// the length and every line break.
func blankedLines(t *testing.T, l lang.Lang, src string) []int {
	t.Helper()
	out, _ := Prepare(l, []byte(src), nil)
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
		lang lang.Lang
		src  string
		want []int
	}{
		{"table rows", lang.C, "static const int t[] =\n{\n" + rows(20, "  [0x01] = 0x4e00, [0x02] = 0x4e01,") + "  [0x03] = 0x4e02\n};\n", lines(3, 22)},
		{"table with comment rows", lang.C, "int t[] = {\n" + rows(10, "  0x0000, 0x1111,") + "  /* 0x5AC0 */\n" + rows(10, "  0x0000, 0x1111,") + "};\n", lines(2, 22)},
		{"short table kept", lang.C, "int t[] = {\n" + rows(15, "  1, 2, 3,") + "};\n", []int{}},
		{"rows with calls kept", lang.C, "int t[] = {\n" + rows(20, "  f (1), g (2),") + "};\n", []int{}},
		{"rows after a statement kept", lang.C, "int a;\n" + rows(20, "  1, 2,") + "};\n", []int{}},
		{"string rows", lang.Java, "String[] s = {\n" + rows(20, `  "a(b", "c;d",`) + "};\n", lines(2, 21)},

		{"macro lines at file scope", lang.C, "int f (void)\n{\n  return 0;\n}\nlibc_hidden_def (f)\nweak_alias (f, g)\n\nint\nh (void)\n{\n  return f ();\n}\n", []int{5, 6}},
		{"multi-line macro", lang.C, "int x;\ncompat_symbol (libc, a, b,\n               GLIBC_2_0)\nint y;\n", []int{2, 3}},
		{"K&R declarator kept", lang.C, "int\nkr (a, b)\n     int a;\n     int b;\n{\n  return a + b;\n}\n", []int{}},
		{"declarator before its body kept", lang.C, "int x;\nfoo (void)\n{\n}\n", []int{}},
		{"statement with semicolon kept", lang.C, "int x;\nweak_alias (f, g);\nint y;\n", []int{}},
		{"macro line in a C++ file", lang.CPP, "void f() {}\nQ_DECLARE_METATYPE(Foo)\nvoid g() {}\n", []int{2}},
		{"not in Java", lang.Java, "class A {}\nfoo (x)\nclass B {}\n", []int{}},
		{"attribute line", lang.C, "FILE *\nattribute_compat_text_section\n_IO_old_fopen (const char *f)\n{\n  return 0;\n}\n", []int{2}},
		{"type line kept", lang.C, "static\nreg_errcode_t\nre_search (int x)\n{\n}\n", []int{}},

		{"unbalanced branches", lang.C, "int f (void)\n{\n#if X\n  if (a) {\n#else\n  if (b) {\n#endif\n    g ();\n  }\n}\n", []int{6}},
		{"balanced branches kept", lang.C, "#ifdef X\nint f (void) { return 1; }\n#else\nint f (void) { return 2; }\n#endif\n", []int{}},
		{"line markers", lang.C, "int t[] = {\n#line 30 \"x.gperf\"\n  {\"a\"},\n  # 31 \"x.gperf\"\n};\n#define line 1\n#lineno 2\n#line 5 \\\n \"y\"\n", []int{2, 4}},
		{"if 0", lang.C, "#if 0\nint dead (void) { return 0; }\n#endif\nint live (void) { return 1; }\n", []int{2}},
		{"if 0 else", lang.C, "#if 0\nint a (void) {\n#else\nint b (void) {\n#endif\n  return 0;\n}\n", []int{2}},
		{"if 0 with comments", lang.C, "#if 0 /* old */\nint a (void) { return 0; }\n#endif\n#if 0 // old\nint b (void) { return 0; }\n#endif\n", []int{2, 5}},
		{"braces in strings and comments", lang.C, "#if X\n  s = \"{\"; c = '{'; /* { */\n#else\n  t = 1;\n#endif\n", []int{}},
		{"nested groups", lang.C, "void f (void)\n{\n#ifdef A\n# if B\n  if (x) {\n# else\n  if (y) {\n# endif\n#else\n  {\n#endif\n  }\n}\n", []int{7, 10}},
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
		lang      lang.Lang
		src, want string
	}{
		{"return type on the line before", lang.C,
			"int x;\nstatic const ElfW(Sym) *\ncheck_match (const char *name)" + body,
			"int x;\nstatic const ElfW_Sym_ *\ncheck_match (const char *name)" + body},
		{"alone on its line, not blanked as a macro line", lang.C,
			"int x;\nElfW(Addr)\npltenter (ElfW(Sym) *sym, unsigned int ndx,\n\t  uintptr_t *refcook)" + body,
			"int x;\nElfW_Addr_\npltenter (ElfW(Sym) *sym, unsigned int ndx,\n\t  uintptr_t *refcook)" + body},
		{"declarator on the same line", lang.C,
			"const ElfW(Sym) *foo (int x)" + body,
			"const ElfW_Sym_ *foo (int x)" + body},
		{"prototype", lang.C,
			"extern ElfW(Addr) _dl_fixup (struct link_map *, ElfW(Word)) attribute_hidden;\n",
			"extern ElfW_Addr_ _dl_fixup (struct link_map *, ElfW(Word)) attribute_hidden;\n"},
		{"attribute after the type", lang.C,
			"static inline ElfW(Addr) __attribute__ ((unused))\nelf_machine_load_address (void)" + body,
			"static inline ElfW_Addr_                         \nelf_machine_load_address (void)" + body},
		{"C++", lang.CPP,
			"static ElfW(Addr)\nf (int x)" + body,
			"static ElfW_Addr_\nf (int x)" + body},
		{"attribute after a return type", lang.C,
			"int x;\nvoid attribute_hidden\n_IO_vtable_check (void)" + body + "static int internal_function\nf (int x)" + body,
			"int x;\nvoid                 \n_IO_vtable_check (void)" + body + "static int                  \nf (int x)" + body},
		{"attribute lines in a row, attribute words", lang.C,
			"int x;\nvoid\nattribute_compat_text_section\n__attribute_used__\nplaceholder (void)" + body +
				"int *\nweak_const_function\nloc (void)" + body + "void __libc_freeres_fn_section\nfreeres (void)" + body,
			"int x;\nvoid\n                             \n                  \nplaceholder (void)" + body +
				"int *\n                   \nloc (void)" + body + "void                          \nfreeres (void)" + body},
		{"a type alone is kept", lang.C,
			"static void\nf (void)" + body + "unsigned int\ng (void)" + body,
			"static void\nf (void)" + body + "unsigned int\ng (void)" + body},
		{"comment inside a macro body", lang.C,
			"#define R(code) \\\n  do { /* We don't \\\n  care. */ \\\n    f (code); \\\n  } while (0)\nint x;\n",
			"#define R(code) \\\n  do {             \\\n           \\\n    f (code); \\\n  } while (0)\nint x;\n"},
		{"comment ending a directive, comment in a string", lang.C,
			"#define N(x)\t/* Nothing.  */\n#define S \"/* no */\" x\nint x;\n",
			"#define N(x)\t/* Nothing.  */\n#define S \"/* no */\" x\nint x;\n"},
		{"extern __typeof declarations", lang.C,
			"int x;\nextern __typeof (REDIRECT_NAME) OPTIMIZE (sse2) attribute_hidden;\nstatic inline void *\nIFUNC_SELECTOR (void)" + body,
			"int x;\n                                                                 \nstatic inline void *\nIFUNC_SELECTOR (void)" + body},
		{"struct tag", lang.C,
			"struct E(link_map)\n{\n  int l_ns;\n};\nstruct E(r_debug) {\n  int v;\n};\n",
			"struct E_link_map_\n{\n  int l_ns;\n};\nstruct E_r_debug_ {\n  int v;\n};\n"},

		{"not in Java", lang.Java, "class A {\nElfW(Addr)\nf (int x) {}\n}\n", "class A {\nElfW(Addr)\nf (int x) {}\n}\n"},
		{"calls in a body", lang.C,
			"int f (void)\n{\n  g(x);\n  h(y) * 2;\nstatic ElfW(Addr)\nfoo (x);\n}\n",
			"int f (void)\n{\n  g(x);\n  h(y) * 2;\nstatic ElfW(Addr)\nfoo (x);\n}\n"},
		{"K&R declarator", lang.C,
			"int\nf(x)\n     int x;\n{\n  return x;\n}\n",
			"int\nf(x)\n     int x;\n{\n  return x;\n}\n"},
		{"declarators before a body or a semicolon", lang.C,
			"int f(x)\n{\n}\nint g(y);\nmain(void)\n{\n}\n",
			"int f(x)\n{\n}\nint g(y);\nmain(void)\n{\n}\n"},
		{"declarators before an attribute line", lang.C,
			"int\nf(x)\n__attribute__ ((unused))\n{\n}\nint\ng(void)\n__attribute__ ((unused))\n{\n}\n",
			"int\nf(x)\n__attribute__ ((unused))\n{\n}\nint\ng(void)\n__attribute__ ((unused))\n{\n}\n"},
		{"declarators before attributes", lang.C,
			"extern int f(size_t) __attribute__ ((const));\nstatic void g(x) __attribute__ ((noreturn));\n",
			"extern int f(size_t)                        ;\nstatic void g(x)                           ;\n"},
		{"macro lines stay blanked", lang.C,
			"int x;\nlibc_hidden_def (f)\nweak_alias (f, g)\nlibc_hidden_proto(h)\nint\nk (void)" + body,
			"int x;\n                   \n                 \n                    \nint\nk (void)" + body},
		{"macro line before a macro line", lang.C,
			"int x;\nstub_warning(ptsname)\nstub_warning(ptsname_r)\n",
			"int x;\n                     \n                       \n"},
		{"spaces", lang.C,
			"static ElfW (Sym) *\nf (int x)" + body + "static ElfW(Sym )\ng (int x)" + body,
			"static ElfW (Sym) *\nf (int x)" + body + "static ElfW(Sym )\ng (int x)" + body},
		{"comment and directive", lang.C,
			"/*\nstatic ElfW(Addr) f (int x)\n*/\n#define M \\\nstatic ElfW(Addr)\nf (int x);\n",
			"/*\nstatic ElfW(Addr) f (int x)\n*/\n#define M \\\nstatic ElfW(Addr)\nf (int x);\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := Prepare(tt.lang, []byte(tt.src), nil)
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("prepared text (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSkipGaps(t *testing.T) {
	blank := strings.Repeat(strings.Repeat(" ", 99)+"\n", 50) // 5000 bytes of blank lines
	src := "int a;\n" + blank + "int b;\n" + strings.Repeat(" \n", 10) + "int c;\n"
	got := SkipGaps([]byte(src))
	want := []uint32{7, 7 + 5000, 1, 51} // bytes [7, 5007), rows 1 to 51; the short run is left
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}
}

func TestHeadGap(t *testing.T) {
	licence := "/* Copyright (C) 1991-2022 Free Software Foundation, Inc.\n   This file is part of the GNU C Library.  */\n"
	tests := []struct {
		name, src string
		want      []uint32
	}{
		{"licence header", licence + "\n#include <stdio.h>\n", []uint32{0, uint32(len(licence)) + 1, 0, 3}},
		{"comments and blank lines", "\n  /* a */ \n// b\n\n/* c\n */\nint x;\n", []uint32{0, 27, 0, 6}},
		{"code after the comment on its line", "/* a\n b */ int x;\n", nil},
		{"code first", "int x; /* a */\n", nil},
		{"unclosed comment", "/* a\n b\n", nil},
		{"line comment going on", "// a \\\nint x;\n/* b */\n", nil},
		{"line comment before it", "// a\n// b \\\nint x;\n", []uint32{0, 5, 0, 1}},
		{"only comments", "/* a */\n// b\n", []uint32{0, 13, 0, 2}},
		{"no line break after", "/* a */", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, headGap([]byte(tt.src), nil)); diff != "" {
				t.Errorf("head gap (-want +got):\n%s", diff)
			}
		})
	}
	// SkipGaps puts the head first and looks for blank runs after it; Prepare gives the head of
	// a text it did not change.
	blank := strings.Repeat(strings.Repeat(" ", 99)+"\n", 50)
	src := licence + "int a;\n" + blank + "int b;\n"
	h := uint32(len(licence))
	want := []uint32{0, h, 0, 2, h + 7, h + 7 + 5000, 3, 53}
	if diff := cmp.Diff(want, SkipGaps([]byte(src))); diff != "" {
		t.Errorf("SkipGaps (-want +got):\n%s", diff)
	}
	if _, gaps := Prepare(lang.C, []byte(licence+"int a;\n"), nil); !cmp.Equal(gaps, []uint32{0, h, 0, 2}) {
		t.Errorf("Prepare's gaps of an unchanged text: %v", gaps)
	}
	if _, gaps := Prepare(lang.Python, []byte("# a\nx = 1\n"), nil); gaps != nil {
		t.Errorf("Prepare's gaps of Python: %v", gaps)
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

func lines(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestJoinSplitStatements(t *testing.T) {
	const chain = "int f(int a)\n{\n  if(a & 1)\n    g(1);\n#ifndef NO_TWO\n  else if(a & 2)\n    g(2);\n#endif\n#if defined(THREE) && \\\n    !defined(FOUR)\n  else if(a & 4) {\n    g(4);\n  }\n#elif FIVE\n  else /* five */ if(a & 5)\n    g(5);\n#endif\n  else\n    g(0);\n  return 0;\n}\n"
	const expr = "static int init(void)\n{\n  const int flags =\n#ifdef ONE\n    /* one */\n    ONE |\n#endif\n#ifdef TWO\n    TWO |\n#else\n    NOT_TWO |\n#endif\n    0;\n  return h(flags,\n#if X\n    x(),\n#endif\n    y());\n}\n"
	tests := []struct {
		name string
		src  string
		want []int
	}{
		{"else chain: the directives go, every link stays", chain, []int{5, 8, 9, 10, 14, 17}},
		{"split expression: the directives and later branches go", expr, []int{4, 7, 8, 10, 11, 12, 15, 17}},
		{"at file scope", "#ifdef A\nint a;\n#else\nint b;\n#endif\n", []int{}},
		{"whole statements", "void f(void)\n{\n  g();\n#ifdef A\n  h();\n#else\n  k();\n#endif\n}\n", []int{}},
		{"after a comment that ends a statement", "void f(void)\n{\n  g(); // done\n#ifdef A\n  h();\n#endif\n}\n", []int{}},
		{"a case label", "void f(int x)\n{\n  switch(x) {\n  case 1:\n#ifdef A\n    h();\n#endif\n  }\n}\n", []int{}},
		{"a chain with a link that is not an else", "void f(int a)\n{\n  if(a)\n    g();\n#ifdef A\n  else\n    h();\n#else\n  k();\n#endif\n}\n", []int{}},
		{"#if 0 inside an expression is blankBranches'", "int f(void)\n{\n  return 1 +\n#if 0\n    2 +\n#endif\n    3;\n}\n", []int{5}},
		{"unbalanced branches are blankBranches'", "int f(int a)\n{\n  if(a &&\n#ifdef A\n     b) {\n#else\n     c) {\n#endif\n    g();\n  }\n}\n", []int{7}},
		{"nested in a split expression", "int f(void)\n{\n  return 1 +\n#ifdef A\n#ifdef B\n    2 +\n#endif\n#endif\n    3;\n}\n", []int{4, 5, 7, 8}},
		{"an identifier that starts with else", "void f(int a)\n{\n  if(a)\n    g();\n#ifdef A\n  elsewhere();\n#endif\n}\n", []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, blankedLines(t, lang.C, tt.src)); diff != "" {
				t.Errorf("blanked lines (-want +got):\n%s", diff)
			}
		})
	}
}

// A statement macro without its semicolon, or a call, before a conditional ends a statement as
// far as the pre-pass can tell: left alone.
func TestJoinSplitStatementsAfterMacros(t *testing.T) {
	for _, src := range []string{
		"int f(void)\n{\n  UNITTEST_BEGIN_SIMPLE\n\n#ifndef NO_DOH\n  g();\n#endif\n  UNITTEST_END\n}\n",
		"int f(void)\n{\n  BEGIN(x)\n#ifdef A\n  g();\n#else\n  h();\n#endif\n}\n",
	} {
		if diff := cmp.Diff([]int{}, blankedLines(t, lang.C, src)); diff != "" {
			t.Errorf("%q: blanked lines (-want +got):\n%s", src, diff)
		}
	}
}
