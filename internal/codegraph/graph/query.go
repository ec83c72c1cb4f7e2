package graph

import (
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"

	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Near locates the question: definitions and call sites closest to File (same file first, then
// the same directory, then the longest shared directory prefix) come first, and within File the
// definition that contains or is nearest to Line. Both are optional.
type Near struct {
	File string
	Line int
}

// lastName is the last component of a possibly qualified name: ns::Shape::area gives area,
// pkg.T.M gives M.
func lastName(name string) string {
	if p := strings.LastIndex(name, "::"); p >= 0 {
		name = name[p+2:]
	}
	if p := strings.LastIndexByte(name, '.'); p >= 0 && p < len(name)-1 {
		name = name[p+1:]
	}
	return name
}

// family groups the languages that call each other's functions by name: C and C++.
func family(l lang.Lang) lang.Lang {
	if l == lang.CPP {
		return lang.C
	}
	return l
}

// proximity scores how close file a is to file b: higher is closer. The same file scores most,
// then the same directory, then the number of leading directories the two share.
func proximity(a, b string) int {
	if b == "" {
		return 0
	}
	if a == b {
		return 1 << 20
	}
	da, db := dirOf(a), dirOf(b)
	if da == db {
		return 1 << 19
	}
	n := 0
	for da != "" && db != "" {
		ea, eb := strings.IndexByte(da, '/'), strings.IndexByte(db, '/')
		if ea < 0 {
			ea = len(da)
		}
		if eb < 0 {
			eb = len(db)
		}
		if da[:ea] != db[:eb] {
			break
		}
		n++
		da, db = da[min(ea+1, len(da)):], db[min(eb+1, len(db)):]
	}
	return n
}

// dirOf is the directory part of a slash path, "" for a file at the root.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// Definitions returns every definition named name (a short or a qualified name), nearest first.
func (ix *Index) Definitions(name string, near Near) []Func {
	idx := ix.rankedDefs(name, near)
	out := make([]Func, len(idx))
	for k, i := range idx {
		out[k] = ix.Funcs[i]
	}
	return out
}

// rankedDefs returns the indexes of the definitions of name, nearest first.
func (ix *Index) rankedDefs(name string, near Near) []int32 {
	type ranked struct {
		i          int32
		prox, dist int
	}
	idx := ix.byName[name]
	sel := make([]ranked, len(idx))
	for k, i := range idx {
		f := &ix.Funcs[i]
		r := ranked{i: i, prox: proximity(f.File, near.File)}
		if near.Line > 0 && f.File == near.File {
			if near.Line >= f.StartLine && near.Line <= f.EndLine {
				r.dist = -1
			} else {
				r.dist = min(abs(near.Line-f.StartLine), abs(near.Line-f.EndLine))
			}
		}
		sel[k] = r
	}
	slices.SortStableFunc(sel, func(x, y ranked) int {
		a, b := &ix.Funcs[x.i], &ix.Funcs[y.i]
		return cmp.Or(
			cmp.Compare(y.prox, x.prox),
			cmp.Compare(x.dist, y.dist),
			strings.Compare(a.File, b.File),
			cmp.Compare(a.StartLine, b.StartLine),
			strings.Compare(a.QualName, b.QualName),
		)
	})
	out := make([]int32, len(sel))
	for k, r := range sel {
		out[k] = r.i
	}
	return out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Source is a definition and its text.
type Source struct {
	Func
	Text string `json:"source"`
}

// Definition returns the source text of every definition of name, nearest first. It reads the
// files from the repository directory; a file that changed since indexing is an error.
func (ix *Index) Definition(name string, near Near) ([]Source, error) {
	defs := ix.Definitions(name, near)
	out := make([]Source, 0, len(defs))
	files := map[string][]byte{}
	for _, f := range defs {
		text, err := ix.text(f, files)
		if err != nil {
			return nil, err
		}
		out = append(out, Source{Func: f, Text: text})
	}
	return out, nil
}

// text reads a definition's source, through a per-query cache of file contents.
func (ix *Index) text(f Func, files map[string][]byte) (string, error) {
	b, ok := files[f.File]
	if !ok {
		var err error
		b, err = os.ReadFile(filepath.Join(ix.Root, filepath.FromSlash(f.File)))
		if err != nil {
			return "", fmt.Errorf("definition of %s: %w", f.Name, err)
		}
		files[f.File] = b
	}
	if f.EndByte > len(b) || f.StartByte > f.EndByte {
		return "", fmt.Errorf("definition of %s: %s changed since it was indexed (run vulnbench code index again)", f.Name, f.File)
	}
	return string(b[f.StartByte:f.EndByte]), nil
}

// Site is a call site as queries return it.
type Site struct {
	Caller     string   `json:"caller"`      // the calling function's name; "" at file scope
	CallerQual string   `json:"caller_qual"` // its qualified name
	Callee     string   `json:"callee,omitempty"`
	Qualifier  string   `json:"qualifier,omitempty"`
	Expr       string   `json:"expr,omitempty"` // for unresolved calls
	Kind       CallKind `json:"kind"`
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Col        int      `json:"col"`
}

func (ix *Index) site(i int32) Site {
	c := &ix.Calls[i]
	s := Site{Callee: c.Callee, Qualifier: c.Qualifier, Expr: c.Expr, Kind: c.Kind, File: c.File, Line: c.Line, Col: c.Col}
	if c.Caller >= 0 {
		s.Caller, s.CallerQual = ix.Funcs[c.Caller].Name, ix.Funcs[c.Caller].QualName
	}
	return s
}

// Callers returns the call sites that call name (matched on its last component: direct calls,
// method calls and references; unresolved calls never match), nearest to near first, or to the
// nearest definition of name when near is empty. Only sites in the language of near's file are
// returned or, without one, in the languages of name's definitions (C and C++ count as one).
func (ix *Index) Callers(name string, near Near) []Site {
	idx := ix.byCallee[lastName(name)]
	var langs [lang.Count]bool
	defined := false
	if l, ok := ix.fileLang[near.File]; ok {
		langs[family(l)], defined = true, true
	} else {
		for _, d := range ix.byName[name] {
			langs[family(ix.Funcs[d].Lang)] = true
			defined = true
		}
	}
	if near.File == "" {
		if defs := ix.rankedDefs(name, near); len(defs) > 0 {
			near.File = ix.Funcs[defs[0]].File
		}
	}
	// The calls are stored by file and position, so the sites come in runs of one file; only the
	// proximity of each file reorders the runs (printf has 11,000 callers in glibc, in a few
	// hundred files: sorting runs rather than sites keeps the question well under a millisecond).
	type run struct{ from, to, prox int } // idx[from:to], one file
	var runs []run
	kept := 0
	for k := 0; k < len(idx); {
		f := ix.Calls[idx[k]].File
		e := k + 1
		for e < len(idx) && ix.Calls[idx[e]].File == f {
			e++
		}
		if !defined || langs[family(ix.fileLang[f])] {
			runs = append(runs, run{k, e, proximity(f, near.File)})
			kept += e - k
		}
		k = e
	}
	slices.SortStableFunc(runs, func(a, b run) int { return cmp.Compare(b.prox, a.prox) })
	out := make([]Site, 0, kept)
	for _, r := range runs {
		for _, i := range idx[r.from:r.to] {
			out = append(out, ix.site(i))
		}
	}
	return out
}

// CalleesOf is one definition and the calls it makes, in source order.
type CalleesOf struct {
	Func  Func   `json:"function"`
	Calls []Site `json:"calls"`
}

// Callees returns, for every definition of name (nearest first), the calls it makes, unresolved
// ones included.
func (ix *Index) Callees(name string, near Near) []CalleesOf {
	idx := ix.rankedDefs(name, near)
	out := make([]CalleesOf, 0, len(idx))
	for _, fi := range idx {
		co := CalleesOf{Func: ix.Funcs[fi], Calls: []Site{}}
		for _, ci := range ix.callIdx[ix.callOff[fi]:ix.callOff[fi+1]] {
			co.Calls = append(co.Calls, ix.site(ci)) // in source order, as stored
		}
		out = append(out, co)
	}
	return out
}

// Related is a caller or callee ranked by similarity to a target function.
type Related struct {
	Func  Func    `json:"function"`
	Score float64 `json:"score"` // Jaccard similarity of the token sets, in [0,1]
	Text  string  `json:"source"`
}

// Context is the dependency context of a target function, the Dep-Aug method of JitVul (from
// VulEval): its callers and its callees, each ranked by the Jaccard similarity of their token
// sets to the target's and cut to k.
type Context struct {
	Target  Source    `json:"target"`
	Callers []Related `json:"callers"`
	Callees []Related `json:"callees"`
}

// TopK returns the k callers and the k callees of the nearest definition of target most similar
// to it. Callers are the distinct functions with a call to target's name; callees are the
// nearest definition of each name the target calls (directly or as a method), when the
// repository defines it. The target itself is left out (recursion).
func (ix *Index) TopK(target string, near Near, k int) (*Context, error) {
	defs := ix.rankedDefs(target, near)
	if len(defs) == 0 {
		return nil, fmt.Errorf("no definition of %s", target)
	}
	ti := defs[0]
	t := ix.Funcs[ti]
	files := map[string][]byte{}
	text, err := ix.text(t, files)
	if err != nil {
		return nil, err
	}
	ctx := &Context{Target: Source{Func: t, Text: text}}
	tt := TokenSet(text)
	same := func(f Func) bool { return f.File == t.File && f.StartByte == t.StartByte }

	score := func(cands []Func) ([]Related, error) {
		var out []Related
		for _, f := range cands {
			txt, err := ix.text(f, files)
			if err != nil {
				return nil, err
			}
			out = append(out, Related{Func: f, Score: Jaccard(tt, TokenSet(txt)), Text: txt})
		}
		slices.SortStableFunc(out, func(a, b Related) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Func.File, b.Func.File), cmp.Compare(a.Func.StartLine, b.Func.StartLine))
		})
		if len(out) > k {
			out = out[:k]
		}
		return out, nil
	}

	seen := map[int]bool{}
	var callers []Func
	for _, ci := range ix.byCallee[t.Name] {
		if ix.Calls[ci].Kind == Reference {
			continue
		}
		c := ix.Calls[ci].Caller
		if c < 0 || seen[c] || same(ix.Funcs[c]) {
			continue
		}
		seen[c] = true
		callers = append(callers, ix.Funcs[c])
	}
	if ctx.Callers, err = score(callers); err != nil {
		return nil, err
	}

	var callees []Func
	names := map[string]bool{}
	for _, ci := range ix.callIdx[ix.callOff[ti]:ix.callOff[ti+1]] {
		c := &ix.Calls[ci]
		if c.Kind == Unresolved || c.Kind == Reference || names[c.Callee] {
			continue
		}
		names[c.Callee] = true
		if d := ix.Definitions(c.Callee, Near{File: t.File}); len(d) > 0 && !same(d[0]) && d[0].Kind != Macro {
			callees = append(callees, d[0])
		}
	}
	if ctx.Callees, err = score(callees); err != nil {
		return nil, err
	}
	return ctx, nil
}

// TokenSet returns the set of identifier, keyword and number tokens of code: what TopK compares
// (VulEval's rule).
func TokenSet(code string) map[string]struct{} {
	set := map[string]struct{}{}
	for i := 0; i < len(code); {
		c := code[i]
		if isWordByte(c) {
			j := i + 1
			for j < len(code) && isWordByte(code[j]) {
				j++
			}
			set[code[i:j]] = struct{}{}
			i = j
			continue
		}
		i++
	}
	return set
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// Jaccard is |a ∩ b| / |a ∪ b| of two token sets (0 when both are empty).
func Jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if _, ok := b[t]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
