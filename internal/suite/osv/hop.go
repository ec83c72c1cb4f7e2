package osv

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// maxHopFiles bounds the files of the fix's parent read to find the named functions' definitions.
const maxHopFiles = 200

// hopper finds, in the code graph of a fix's parent, the changed functions one call edge from a
// function the record names: a caller of a crash frame or a symbol (the changed function calls
// it) or a callee (it calls the changed function). Crash states name where the fault shows,
// often a frame or two from where the fix goes. Only the files that name the functions are
// parsed: those git grep finds at the parent.
type hopper struct {
	ctx context.Context
	s   *jitvul.Session
	g   *jitvul.Git
}

// hopName is a function the record names: its last name segment, and the package a Go symbol
// is in (nil for a crash frame).
type hopName struct {
	word string
	sym  *Symbol
}

// hopEdge says how a changed function is one call edge from a named one: "decode (caller of
// process_input)".
func hopEdge(c *Changed, how, named string) string {
	return fmt.Sprintf("%s (%s of %s)", c.Target(), how, named)
}

// match returns the changed functions of src one call edge from a function of names defined
// in the repository at parent (a frame of the C library, memcpy or malloc, names no definition
// and so no edge), and how each is.
func (h *hopper) match(names []hopName, src []*Changed, parent string) ([]*Changed, []string, error) {
	var words []string
	for _, n := range names {
		if !isHarnessName(n.word) && !contains(words, n.word) {
			words = append(words, n.word)
		}
	}
	if len(words) == 0 {
		return nil, nil, nil
	}
	files, _, err := h.g.Grep(h.ctx, parent, words, maxHopFiles)
	if err != nil {
		return nil, nil, err
	}
	defined := map[string]bool{}             // named functions defined at the parent
	calledBy := map[string]map[string]bool{} // named function -> the names its body calls
	for _, f := range nearFirst(files, src) {
		if len(defined) == len(words) {
			break // every named function found: the first definition of each is the one read
		}
		if codegraph.LangOf(f, false) == codegraph.NoLang || RoleOf(f) != Source {
			continue
		}
		funcs, calls, err := h.parse(parent, f)
		if err != nil {
			return nil, nil, err
		}
		for i, fn := range funcs {
			if fn.Kind == codegraph.Macro {
				continue
			}
			for _, n := range names {
				if lastSeg(fn) != n.word || (n.sym != nil && !inPackage(*n.sym, f)) || isHarnessName(n.word) || defined[n.word] {
					continue
				}
				defined[n.word] = true
				if calledBy[n.word] == nil {
					calledBy[n.word] = map[string]bool{}
				}
				for _, cl := range calls {
					if cl.Caller == i && cl.Callee != "" {
						calledBy[n.word][cl.Callee] = true
					}
				}
			}
		}
	}
	var out []*Changed
	var how []string
	for _, c := range src {
		name := c.Target()
		if i := strings.LastIndexAny(name, ".:"); i >= 0 {
			name = name[i+1:]
		}
		edge := ""
		for _, w := range words {
			if calledBy[w][name] {
				edge = hopEdge(c, "callee", w)
				break
			}
		}
		if edge == "" && c.Vul != nil {
			callees, err := h.callees(parent, c)
			if err != nil {
				return nil, nil, err
			}
			for _, w := range words {
				if defined[w] && callees[w] && w != name {
					edge = hopEdge(c, "caller", w)
					break
				}
			}
		}
		if edge != "" {
			out, how = append(out, c), append(how, edge)
		}
	}
	return out, how, nil
}

// nearFirst orders files by how near they are to the fix: the files it changed, then those of
// their directories, then the rest, each group in git's order. Named functions are most often
// defined there, and the search stops once each is found.
func nearFirst(files []string, src []*Changed) []string {
	changed, dirs := map[string]bool{}, map[string]bool{}
	for _, c := range src {
		changed[c.OldFile], dirs[path.Dir(c.OldFile)] = true, true
	}
	rank := func(f string) int {
		switch {
		case changed[f]:
			return 0
		case dirs[path.Dir(f)]:
			return 1
		}
		return 2
	}
	out := slices.Clone(files)
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// callees are the names c's version at the parent calls.
func (h *hopper) callees(parent string, c *Changed) (map[string]bool, error) {
	funcs, calls, err := h.parse(parent, c.OldFile)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for i, fn := range funcs {
		if fn.StartLine != c.Vul.Line || fn.Name != c.Vul.Name {
			continue
		}
		for _, cl := range calls {
			if cl.Caller == i && cl.Callee != "" {
				out[cl.Callee] = true
			}
		}
	}
	return out, nil
}

// parse reads and parses file at commit; a file that is not text or not there parses as empty.
func (h *hopper) parse(commit, file string) ([]codegraph.Func, []codegraph.Call, error) {
	data, found, skip, err := h.g.File(commit, file)
	if err != nil || !found || skip != "" {
		return nil, nil, err
	}
	funcs, calls, skip, err := h.s.Parse(file, data)
	if err != nil || skip != "" {
		return nil, nil, err
	}
	return funcs, calls, nil
}

// lastSeg is a definition's name without its qualifiers.
func lastSeg(f codegraph.Func) string {
	n := f.Name
	if i := strings.LastIndexAny(n, ".:"); i >= 0 {
		n = n[i+1:]
	}
	return n
}

// isHarnessName reports whether a frame is a fuzzing harness's entry point, which calls the
// library's entry (every function is some hops from it).
func isHarnessName(s string) bool {
	return s == "LLVMFuzzerTestOneInput" || s == "LLVMFuzzerInitialize" || s == "main"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
