package extract

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	ts "github.com/tree-sitter/go-tree-sitter"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// cursorFlatten is the reference for flat.c's walk: go-tree-sitter's own tree cursor, asked
// node by node what flat.c computes from the subtrees (tsmirror.h).
func cursorFlatten(t *testing.T, g *grammar, src []byte) []node {
	t.Helper()
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(g.ts); err != nil {
		t.Fatal(err)
	}
	tree := p.Parse(src, nil)
	defer tree.Close()
	c := tree.Walk()
	defer c.Close()
	var out []node
	var stack []int32 // per cursor depth: the nearest emitted ancestor-or-self
	for {
		n := c.Node()
		up := int32(-1)
		if len(stack) > 0 {
			up = stack[len(stack)-1]
		}
		self := up
		if n.IsNamed() {
			e := node{start: uint32(n.StartByte()), end: uint32(n.EndByte()), startRow: uint32(n.StartPosition().Row),
				endRow: uint32(n.EndPosition().Row), parent: up, sym: n.KindId(), field: c.FieldId()}
			if n.IsMissing() {
				e.flags = nodeMissing
			}
			self = int32(len(out))
			out = append(out, e)
		}
		stack = append(stack, self)
		if c.GotoFirstChild() {
			continue
		}
		for {
			leaving := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			parent := int32(-1)
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			if leaving != parent {
				out[leaving].next = uint32(len(out))
			}
			if c.GotoNextSibling() {
				break
			}
			if !c.GotoParent() {
				return out
			}
		}
	}
}

// TestFlattenMatchesCursor checks flat.c's direct walk of the runtime's subtrees against the
// tree cursor, node for node (symbol with aliases, field through hidden nodes, byte and row
// range, parent, subtree end, missing flag), on the test repository, the fuzz seeds and
// snippets with syntax errors, missing tokens, comments between tokens and aliased nodes.
func TestFlattenMatchesCursor(t *testing.T) {
	gs, err := LoadGrammars()
	if err != nil {
		t.Fatal(err)
	}
	p := newParser(gs, 0)
	defer p.Close()
	type input struct {
		name string
		l    lang.Lang
		src  []byte
	}
	var inputs []input
	err = filepath.WalkDir("../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		l := lang.Of(path, false)
		if l == lang.NoLang {
			return nil
		}
		src, err := os.ReadFile(path)
		inputs = append(inputs, input{path, l, src})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < 10 {
		t.Fatalf("only %d test files found under ../testdata", len(inputs))
	}
	snippets := []string{
		"int f (void) { return g (1) /* c */ + h (/* d */ 2); }\n",
		"int f (void) { if (x) { g (); \n int h (void) { return 1; }\n", // unclosed
		"int f (void) { return g (1) }\n",                               // missing ;
		"#if X\nint f (void) {\n#else\nint f (int a) {\n#endif\n  return (*p) (a);\n}\n",
		"struct s { int a; } x = { .a = 1 };\nvoid (*fp) (int) = f;\n",
		"namespace n { class A { int m() { return this->k() + ns::f<int>(1); } }; }\n",
		"template <typename T> T g(T x) { return x; }\nauto l = [](int a) { return a; };\n",
		"class A { void m() { o.x(); new B(); Runnable r = A::m; } }\n",
		"def f(cb):\n    return cb(g(1))\nclass K:\n    def m(self): self.m()\n",
		"package p\nimport \"fmt\"\nfunc (s *S) M(f func()) { f(); fmt.Println(s.N()) }\n",
		"const f = (cb) => cb(g()); class A { m() { this.n(); } }\nexports.x = function () {};\n<div a={b}>{c}</div>;\n",
		"\xff\xfe\x00\x01int\xc3(",
		"",
	}
	for i, s := range snippets {
		for _, l := range lang.All() {
			inputs = append(inputs, input{"snippet " + string(rune('a'+i)) + " as " + l.String(), l, []byte(s)})
		}
	}
	for _, in := range inputs {
		want := cursorFlatten(t, gs[in.l], in.src)
		got, err := p.parse(in.l, in.src, nil, time.Minute)
		if err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		if len(want) < 1 {
			t.Fatalf("%s: the cursor found no named node", in.name)
		}
		if diff := cmp.Diff(want, append([]node(nil), got...), cmp.AllowUnexported(node{})); diff != "" {
			t.Errorf("%s: flat.c's nodes (-cursor +flat.c):\n%s", in.name, diff)
		}
	}
}

// FuzzFlattenMatchesCursor compares the two walks on arbitrary text in every language: error
// recovery builds the odd trees (ERROR nodes around missing tokens, extras inside them).
func FuzzFlattenMatchesCursor(f *testing.F) {
	for i, s := range []string{
		"int f (void) { return g (1) }\n",
		"int f (void) { if (x) { g (); \n int h (void) { return 1; }\n",
		"namespace n { class A { int m() { return this->k() + ns::f<int>(1); } }; }\n",
		"const f = (cb) => cb(g()); <div a={b}>{c}</div>;\n",
		"def f(cb):\n    return cb(g(1))\n",
		"package p\nfunc (s *S) M(f func()) { f() }\n",
	} {
		f.Add([]byte(s), uint8(i))
	}
	gs, err := LoadGrammars()
	if err != nil {
		f.Fatal(err)
	}
	p := newParser(gs, 0)
	f.Cleanup(p.Close)
	langs := lang.All()
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		l := langs[int(which)%len(langs)]
		want := cursorFlatten(t, gs[l], src)
		got, err := p.parse(l, src, nil, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, append([]node(nil), got...), cmp.AllowUnexported(node{})); diff != "" {
			t.Errorf("%v: flat.c's nodes (-cursor +flat.c):\n%s", l, diff)
		}
	})
}
