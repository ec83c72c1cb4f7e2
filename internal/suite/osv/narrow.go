package osv

import (
	"fmt"
	"path"
	"strings"

	"github.com/vulnbench/vulnbench/internal/codegraph"
)

// Selection is the functions of a fix a record keeps, and how they were chosen.
type Selection struct {
	Narrowing string     // symbols, crash state or max-funcs
	Funcs     []*Changed // in the fix's order
	Matched   []string   // the symbols or frames that named them
	Changed   int        // functions the fix changed outside tests and harnesses
}

// narrowOpts say how narrow goes past the functions a record names: hop (nil: not) finds the
// changed functions one call edge from them; with fallback, a record whose symbols or crash
// state match no changed function, directly or through an edge, is narrowed by maxFuncs.
type narrowOpts struct {
	maxFuncs int
	fallback bool
	hop      *hopper
}

// The narrowing of functions one call edge from those a record names: "crash state, one call
// edge", "symbols, one call edge".
const oneEdge = ", one call edge"

// narrow chooses the functions of fx that r names, or says why none is kept.
func narrow(r *Record, fx *Fix, o narrowOpts) (Selection, error) {
	maxFuncs := o.maxFuncs
	sel := Selection{Narrowing: r.hint()}
	var src []*Changed
	for _, c := range fx.Funcs {
		if c.Role != Test && c.Role != Fuzz {
			src = append(src, c)
		}
	}
	sel.Changed = len(src)
	switch {
	case len(fx.Funcs) == 0:
		d := fmt.Sprintf("fix %s changes no function in a language the code graph reads (%d files changed: %s)", short(fx.Commit.OID), fx.Files, strings.Join(fx.Paths, ", "))
		if fx.Files > len(fx.Paths) {
			d += ", ..."
		}
		if len(fx.Unreadable) > 0 {
			d += "; not readable: " + strings.Join(fx.Unreadable, ", ")
		}
		return sel, &dropError{reason: ReasonNoFunction, detail: d}
	case len(src) == 0:
		return sel, &dropError{reason: ReasonOnlyTests, detail: fmt.Sprintf("fix %s changes %d functions, all in tests or fuzzing harnesses (%s)",
			short(fx.Commit.OID), len(fx.Funcs), names(fx.Funcs, 5))}
	}
	switch sel.Narrowing {
	case narrowSymbols:
		for _, c := range src {
			if s, ok := matchSymbol(r.Symbols, c); ok {
				sel.Funcs, sel.Matched = append(sel.Funcs, c), appendNew(sel.Matched, s)
			}
		}
		if len(sel.Funcs) == 0 {
			err := &dropError{reason: ReasonNoSymbolMatch, detail: fmt.Sprintf("fix %s changes %s; the record names %s",
				short(fx.Commit.OID), names(src, 8), symbolList(r.Symbols, 8))}
			var hn []hopName
			for i := range r.Symbols {
				s := &r.Symbols[i]
				w := s.Name
				if j := strings.LastIndexByte(w, '.'); j >= 0 {
					w = w[j+1:]
				}
				hn = append(hn, hopName{word: w, sym: s})
			}
			return o.hopOrFallBack(sel, src, fx, hn, err)
		}
	case narrowCrash:
		frames := parseFrames(r.Frames)
		for _, c := range src {
			if f, ok := matchFrame(frames, c); ok {
				sel.Funcs, sel.Matched = append(sel.Funcs, c), appendNew(sel.Matched, f)
			}
		}
		if len(sel.Funcs) == 0 {
			err := &dropError{reason: ReasonNoCrashMatch, detail: fmt.Sprintf("fix %s changes %s; the crash state is %s",
				short(fx.Commit.OID), names(src, 8), strings.Join(r.Frames, " < "))}
			var hn []hopName
			for _, f := range frames {
				hn = append(hn, hopName{word: f.segs[len(f.segs)-1]})
			}
			return o.hopOrFallBack(sel, src, fx, hn, err)
		}
	default:
		return byCount(sel, src, maxFuncs, fx.Commit.OID, "and the record names none")
	}
	return sel, nil
}

// hopOrFallBack narrows a record whose names matched no changed function: to the changed
// functions one call edge from a named one (at most maxFuncs of them), else by fallBack.
func (o narrowOpts) hopOrFallBack(sel Selection, src []*Changed, fx *Fix, hn []hopName, unmatched *dropError) (Selection, error) {
	if o.hop != nil {
		funcs, how, err := o.hop.match(hn, src, fx.Parent.OID)
		if err != nil {
			return sel, err
		}
		switch {
		case len(funcs) > o.maxFuncs:
			unmatched = &dropError{reason: unmatched.reason, detail: unmatched.detail + fmt.Sprintf("; %d changed functions are one call edge from them (%s), over --max-funcs %d",
				len(funcs), strings.Join(how, ", "), o.maxFuncs)}
		case len(funcs) > 0:
			sel.Narrowing, sel.Funcs, sel.Matched = sel.Narrowing+oneEdge, funcs, how
			return sel, nil
		}
	}
	return fallBack(sel, src, o.maxFuncs, fx.Commit.OID, o.fallback, unmatched)
}

// byCount keeps every changed function when there are at most maxFuncs of them.
func byCount(sel Selection, src []*Changed, maxFuncs int, fix, why string) (Selection, error) {
	if len(src) > maxFuncs {
		return sel, &dropError{reason: ReasonTooMany, detail: fmt.Sprintf("fix %s changes %d functions (%s), over --max-funcs %d, %s",
			short(fix), len(src), names(src, 8), maxFuncs, why)}
	}
	sel.Funcs = src
	return sel, nil
}

// fallBack narrows by maxFuncs a record whose hint matched nothing, when asked to; else it
// keeps the hint's drop.
func fallBack(sel Selection, src []*Changed, maxFuncs int, fix string, fallback bool, unmatched *dropError) (Selection, error) {
	if !fallback {
		return sel, unmatched
	}
	hint := sel.Narrowing
	sel.Narrowing = narrowMaxFuncs + " (" + hint + " unmatched)"
	if s, err := byCount(sel, src, maxFuncs, fix, "and the record's "+hint+" names none of them"); err == nil {
		return s, nil
	}
	return sel, unmatched
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// names lists up to n changed functions as FILE:NAME.
func names(cs []*Changed, n int) string {
	var parts []string
	for i, c := range cs {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(cs)-n))
			break
		}
		parts = append(parts, c.File+":"+c.Target())
	}
	return strings.Join(parts, ", ")
}

func symbolList(ss []Symbol, n int) string {
	var parts []string
	for i, s := range ss {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(ss)-n))
			break
		}
		parts = append(parts, s.String())
	}
	return strings.Join(parts, ", ")
}

// matchSymbol reports the first symbol that names c: a Go function or method whose name
// without its package (F, or T.M) is the symbol's, in a file of the symbol's package, at the
// fix or at its parent (a renamed function matches by either name).
func matchSymbol(ss []Symbol, c *Changed) (string, bool) {
	if c.Lang != codegraph.Go {
		return "", false
	}
	for _, s := range ss {
		for _, v := range []*FuncVersion{c.Vul, c.Ben} {
			if v == nil {
				continue
			}
			_, q, ok := strings.Cut(v.Qual, ".") // pkg.T.M: the extractor prefixes the package name
			if !ok {
				q = v.Qual
			}
			if q == s.Name && inPackage(s, c.File, c.OldFile) {
				return s.String(), true
			}
		}
	}
	return "", false
}

// inPackage reports whether a file at one of paths can belong to the Go package of s: the
// package's import path ends with the file's directory (a module at the repository root, or
// the module path's own suffix), or the directory ends with the import path (the standard
// library's src/net/http), or the file is at the root of the module's repository.
func inPackage(s Symbol, paths ...string) bool {
	for _, p := range paths {
		dir := path.Dir(p)
		switch {
		case dir == ".":
			if s.Module == "" || s.Path == s.Module || !strings.Contains(s.Path, "/") {
				return true
			}
		case s.Path == dir, strings.HasSuffix(s.Path, "/"+dir), strings.HasSuffix(dir, "/"+s.Path):
			return true
		}
	}
	return false
}

// frame is one crash-state frame as name segments: Archive::ConvertAttributes is
// [Archive ConvertAttributes], com.x.Position.equals [com x Position equals].
type frame struct {
	raw  string
	segs []string
}

// parseFrames reads crash-state frames: template arguments, parameters and return types are
// taken off; file names (a harness's source) and addresses are left out.
func parseFrames(raw []string) []frame {
	var out []frame
	for _, r := range raw {
		s := stripAngles(r)
		if i := strings.IndexByte(s, '('); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
		if i := strings.LastIndexByte(s, ' '); i >= 0 && !strings.Contains(s, "operator") {
			s = s[i+1:]
		}
		s = strings.TrimLeft(s, "*&")
		if s == "" || strings.HasPrefix(s, "0x") || isSourceExt(path.Ext(s)) {
			continue
		}
		segs := splitQual(strings.ReplaceAll(s, "$", "."))
		if len(segs) > 0 {
			out = append(out, frame{raw: r, segs: segs})
		}
	}
	return out
}

func isSourceExt(ext string) bool {
	switch ext {
	case ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp":
		return true
	}
	return false
}

// stripAngles removes template arguments (balanced <...>; an unclosed < cuts the rest).
func stripAngles(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// splitQual splits a qualified name at "::" and ".".
func splitQual(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "::", "."), ".") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// matchFrame reports the first frame that names c at the fix or at its parent: the last
// segments of the two names agree, as many as the shorter has.
func matchFrame(frames []frame, c *Changed) (string, bool) {
	for _, f := range frames {
		for _, v := range []*FuncVersion{c.Vul, c.Ben} {
			if v == nil {
				continue
			}
			q := splitQual(v.Qual)
			n := min(len(q), len(f.segs))
			if n == 0 {
				continue
			}
			if equalSegs(q[len(q)-n:], f.segs[len(f.segs)-n:]) {
				return f.raw, true
			}
		}
	}
	return "", false
}

func equalSegs(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
