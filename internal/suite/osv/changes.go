package osv

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// FuncVersion is one function in one version of a file.
type FuncVersion struct {
	Name, Qual string
	Code       string
	Line, End  int
}

// Changed is one function a commit changed: both versions for a change (or a rename), only
// Ben for a function the commit added, only Vul for one it deleted. Functions whose text
// changed only in white space are not changes.
type Changed struct {
	File    string // at the commit
	OldFile string // at its parent: differs when the commit renamed the file
	Lang    codegraph.Lang
	Role    Role
	Vul     *FuncVersion
	Ben     *FuncVersion
}

// Target is the name cases give the function at the commit (at its parent when deleted).
func (c *Changed) Target() string {
	if c.Ben != nil {
		return targetName(c, c.Ben)
	}
	return targetName(c, c.Vul)
}

// Renamed reports whether the commit renamed the function.
func (c *Changed) Renamed() bool { return c.Vul != nil && c.Ben != nil && c.Vul.Qual != c.Ben.Qual }

// Fix is a fix commit's changed functions.
type Fix struct {
	Commit, Parent jitvul.Commit
	Funcs          []*Changed
	// Files is how many files the commit changed; Unreadable those of them in a language the
	// code graph reads that it could not read (binary, too large), as "PATH: why".
	Files      int
	Paths      []string // the first few of them
	Unreadable []string
}

// renameSimilarity is the token Jaccard similarity above which a function the commit deleted
// and one it added in the same file are taken for one function renamed.
const renameSimilarity = 0.6

// analyse finds the functions commit changed against its first parent. With words, files in
// which none of them occurs (on either side) are not parsed: a cheap filter for range searches
// that only look for named functions.
func analyse(ctx context.Context, s *jitvul.Session, g *jitvul.Git, commit jitvul.Commit, words []string) (*Fix, error) {
	if len(commit.Parents) == 0 {
		return nil, &dropError{reason: ReasonRootFix, detail: fmt.Sprintf("fix %s is a root commit: there is no version before it", short(commit.OID))}
	}
	parent, err := g.Commit(commit.Parents[0])
	if err != nil {
		return nil, &dropError{reason: ReasonNoCommit, detail: fmt.Sprintf("the parent %s of fix %s is not in %s (a shallow clone? fetch more history)", commit.Parents[0], short(commit.OID), g.Dir())}
	}
	diff, err := g.Diff(ctx, parent.OID, commit.OID)
	if err != nil {
		return nil, err
	}
	fx := &Fix{Commit: commit, Parent: parent, Files: len(diff)}
	for _, d := range diff {
		if len(fx.Paths) < 5 {
			fx.Paths = append(fx.Paths, d.NewPath)
		}
		lang := codegraph.LangOf(d.NewPath, false)
		if lang == codegraph.NoLang || !regular(d.OldMode) || !regular(d.NewMode) {
			continue
		}
		old, why, err := g.Blob(d.OldOID)
		if err == nil && why == "" && regular(d.NewMode) {
			var neu []byte
			neu, why, err = g.Blob(d.NewOID)
			if err == nil && why == "" {
				if len(words) > 0 && !containsAny(old, words) && !containsAny(neu, words) {
					continue
				}
				var ch []*Changed
				ch, why, err = fileChanges(s, d, lang, old, neu)
				fx.Funcs = append(fx.Funcs, ch...)
			}
		}
		if err != nil {
			return nil, err
		}
		if why != "" {
			fx.Unreadable = append(fx.Unreadable, d.NewPath+": "+why)
		}
	}
	return fx, nil
}

// regular reports whether a tree mode is a regular file (a zero mode is no file: still read as
// empty, for added and deleted files).
func regular(mode string) bool { return mode == "100644" || mode == "100755" || mode == "000000" }

func containsAny(b []byte, words []string) bool {
	for _, w := range words {
		if bytes.Contains(b, []byte(w)) {
			return true
		}
	}
	return false
}

// fileChanges compares the top-level functions of one file's two versions.
func fileChanges(s *jitvul.Session, d jitvul.FileChange, lang codegraph.Lang, old, neu []byte) ([]*Changed, string, error) {
	var before, after []FuncVersion
	for _, side := range []struct {
		src  []byte
		path string
		out  *[]FuncVersion
	}{{old, d.OldPath, &before}, {neu, d.NewPath, &after}} {
		if len(side.src) == 0 {
			continue
		}
		funcs, skip, err := s.Functions(side.path, side.src)
		if err != nil || skip != "" {
			return nil, skip, err
		}
		*side.out = versions(funcs, side.src)
	}
	role := RoleOf(d.NewPath)
	mk := func(v, b *FuncVersion) *Changed {
		return &Changed{File: d.NewPath, OldFile: d.OldPath, Lang: lang, Role: role, Vul: v, Ben: b}
	}
	keys := func(vs []FuncVersion) ([]string, map[string]*FuncVersion) {
		ks := make([]string, len(vs))
		m := make(map[string]*FuncVersion, len(vs))
		n := map[string]int{}
		for i := range vs {
			q := vs[i].Qual
			ks[i] = q + "#" + strconv.Itoa(n[q])
			m[ks[i]] = &vs[i]
			n[q]++
		}
		return ks, m
	}
	bk, bm := keys(before)
	ak, am := keys(after)
	var out, deleted, added []*Changed
	for _, k := range bk {
		v, a := bm[k], am[k]
		switch {
		case a == nil:
			deleted = append(deleted, mk(v, nil))
		case jitvul.NormalizeSpace(v.Code) != jitvul.NormalizeSpace(a.Code):
			out = append(out, mk(v, a))
		}
	}
	for _, k := range ak {
		if bm[k] == nil {
			added = append(added, mk(nil, am[k]))
		}
	}
	out = append(out, pairRenames(deleted, added)...)
	sort.SliceStable(out, func(i, j int) bool { return line(out[i]) < line(out[j]) })
	return out, "", nil
}

func line(c *Changed) int {
	if c.Ben != nil {
		return c.Ben.Line
	}
	return c.Vul.Line
}

// versions are the top-level functions and methods of a file (macros, and functions nested in
// another, left out), in file order.
func versions(funcs []codegraph.Func, src []byte) []FuncVersion {
	var out []FuncVersion
	end := -1
	for _, f := range funcs { // the extractor lists definitions in file order, outer before inner
		if f.Kind == codegraph.Macro || f.StartByte < end || f.EndByte > len(src) || f.StartByte > f.EndByte {
			continue
		}
		end = f.EndByte
		q := f.QualName
		if q == "" {
			q = f.Name
		}
		code := string(src[f.StartByte:f.EndByte])
		out = append(out, FuncVersion{Name: f.Name, Qual: q, Code: code, Line: f.StartLine, End: jitvul.EndLine(f.StartLine, code)})
	}
	return out
}

// pairRenames takes a deleted and an added function of the same file whose texts are alike for
// one renamed function (the most alike first); the rest stay added or deleted.
func pairRenames(deleted, added []*Changed) []*Changed {
	type cand struct {
		d, a int
		sim  float64
	}
	var cs []cand
	for i, d := range deleted {
		dt := codegraph.TokenSet(d.Vul.Code)
		delete(dt, d.Vul.Name)
		for j, a := range added {
			at := codegraph.TokenSet(a.Ben.Code)
			delete(at, a.Ben.Name)
			if sim := codegraph.Jaccard(dt, at); sim >= renameSimilarity {
				cs = append(cs, cand{i, j, sim})
			}
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].sim > cs[j].sim })
	usedD, usedA := map[int]bool{}, map[int]bool{}
	var out []*Changed
	for _, c := range cs {
		if usedD[c.d] || usedA[c.a] {
			continue
		}
		usedD[c.d], usedA[c.a] = true, true
		ch := *deleted[c.d]
		ch.Ben = added[c.a].Ben
		out = append(out, &ch)
	}
	for i, d := range deleted {
		if !usedD[i] {
			out = append(out, d)
		}
	}
	for j, a := range added {
		if !usedA[j] {
			out = append(out, a)
		}
	}
	return out
}

func short(c string) string { return c[:min(len(c), 12)] }
