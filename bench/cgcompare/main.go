// Command cgcompare measures vulnbench's code graph against the two tools the JitVul paper used:
// Universal Ctags for definitions and GNU cflow for call edges. It reads their outputs on the
// same tree, opens vulnbench's index of that tree (built by `vulnbench code index`, or built here)
// and prints coverage figures and the differences, sorted into explained classes.
//
//	cgcompare -repo DIR [-cache DIR] -ctags TAGS.json [-cflow CFLOW.txt -subtrees a,b,c] [-examples 5]
//	cgcompare -repo DIR [-cache DIR] -list-files
//
// TAGS.json is `ctags --output-format=json --kinds-C=f --fields=+ne` over the .c files (the end
// lines, +e, let an entry ctags named after a macro be matched by place: see compareDefs);
// CFLOW.txt is `cflow --format=posix -AA -i _` over the .c files of the subtrees, run from DIR.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/codegraph"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cgcompare:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("cgcompare", flag.ContinueOnError)
	repo := fs.String("repo", "", "the tree both sides read")
	cache := fs.String("cache", "", "vulnbench index cache (as --cache)")
	tagsFile := fs.String("ctags", "", "ctags JSON output (--output-format=json --kinds-C=f --fields=+ne)")
	cflowFile := fs.String("cflow", "", "cflow --format=posix -AA -i _ output, run from -repo")
	subtrees := fs.String("subtrees", "", "comma-separated directories cflow read")
	examples := fs.Int("examples", 5, "examples printed per class of difference")
	listFiles := fs.Bool("list-files", false, "print the files the index holds, one a line, and stop")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *repo == "" || (*tagsFile == "" && !*listFiles) {
		return fmt.Errorf("need -repo and -ctags (or -list-files)")
	}
	ix, err := codegraph.Open(context.Background(), *repo, codegraph.Options{CacheDir: *cache})
	if err != nil {
		return err
	}
	if *listFiles {
		for _, f := range ix.Files {
			fmt.Fprintln(w, f.Path)
		}
		return nil
	}
	if err := compareDefs(w, ix, *tagsFile, *examples); err != nil {
		return err
	}
	if *cflowFile != "" {
		var dirs []string
		for _, d := range strings.Split(*subtrees, ",") {
			if d = strings.Trim(strings.TrimSpace(d), "/"); d != "" {
				dirs = append(dirs, d)
			}
		}
		return compareEdges(w, ix, *cflowFile, dirs, *examples)
	}
	return nil
}

type tag struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
	Pat  string `json:"pattern"`
	End  int    `json:"end"` // with --fields=+e
}

func clean(p string) string { return strings.TrimPrefix(path.Clean(p), "./") }

// classes collects the differences by their explanation.
type classes struct {
	order []string
	n     map[string]int
	ex    map[string][]string
}

func (c *classes) add(class, example string, max int) {
	if c.n == nil {
		c.n, c.ex = map[string]int{}, map[string][]string{}
	}
	if c.n[class] == 0 {
		c.order = append(c.order, class)
	}
	c.n[class]++
	if len(c.ex[class]) < max {
		c.ex[class] = append(c.ex[class], example)
	}
}

func (c *classes) print(w io.Writer, total int) {
	sort.SliceStable(c.order, func(i, j int) bool { return c.n[c.order[i]] > c.n[c.order[j]] })
	for _, k := range c.order {
		fmt.Fprintf(w, "    %6d  %5.2f%%  %s\n", c.n[k], 100*float64(c.n[k])/float64(max(total, 1)), k)
		for _, e := range c.ex[k] {
			fmt.Fprintf(w, "                    e.g. %s\n", e)
		}
	}
}

// compareDefs matches each ctags entry to a vulnbench definition by name (same file and name, a
// range that holds ctags' line) or, failing that, by place (same file and end line, vulnbench's
// start at or after ctags' line, and ctags' name a function-like macro defined in the tree: ctags
// started the definition early, at a macro line, and named it after the macro). Each vulnbench
// definition accounts for one entry at most. It prints both counts, their total, and the entries
// not found by class.
func compareDefs(w io.Writer, ix *codegraph.Index, tagsFile string, examples int) error {
	f, err := os.Open(tagsFile)
	if err != nil {
		return err
	}
	defer f.Close()
	type key struct{ file, name string }
	type place struct {
		file string
		end  int
	}
	ours := map[key][]int{}    // our definitions (indices in ix.Funcs) by file and name
	byEnd := map[place][]int{} // our definitions other than macros, by file and end line
	byFile := map[string][]codegraph.Func{}
	macros := map[string]bool{} // names of the function-like macros defined in the tree
	var cFuncs int
	for i, fn := range ix.Funcs {
		ours[key{fn.File, fn.Name}] = append(ours[key{fn.File, fn.Name}], i)
		byFile[fn.File] = append(byFile[fn.File], fn)
		if fn.Kind == codegraph.Macro {
			macros[fn.Name] = true
		} else {
			byEnd[place{fn.File, fn.EndLine}] = append(byEnd[place{fn.File, fn.EndLine}], i)
			if strings.HasSuffix(fn.File, ".c") {
				cFuncs++
			}
		}
	}
	indexed := map[string]bool{}
	for _, fl := range ix.Files {
		indexed[fl.Path] = true
	}
	skipped := map[string]string{}
	for _, s := range ix.Skipped {
		skipped[s.Path] = s.Reason
	}
	var tags []tag
	ctagsNames := map[key]bool{}
	hasEnd := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var t tag
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil || t.Kind != "function" || !strings.HasSuffix(t.Path, ".c") {
			continue
		}
		t.Path = clean(t.Path)
		tags = append(tags, t)
		ctagsNames[key{t.Path, t.Name}] = true
		hasEnd = hasEnd || t.End > 0
	}
	if err := sc.Err(); err != nil {
		return err
	}
	total := len(tags)

	// First by name: our definition of that name in that file whose range holds ctags' line.
	foundByName := make([]bool, len(tags))
	used := map[int]bool{} // our definitions that account for a ctags entry
	for i, t := range tags {
		for _, j := range ours[key{t.Path, t.Name}] {
			if fn := ix.Funcs[j]; t.Line >= fn.StartLine && t.Line <= fn.EndLine {
				foundByName[i], used[j] = true, true
				break
			}
		}
	}
	// Then by place, for the rest: our definition (not a macro, not found by name already) in the
	// same file that ends on ctags' end line and starts at or after ctags' line. It counts as
	// found when ctags' name is a macro: ctags started the definition early, at a macro line, or
	// took a macro in its header for its name.
	atPlace := func(t tag) (codegraph.Func, bool) {
		for _, j := range byEnd[place{t.Path, t.End}] {
			if fn := ix.Funcs[j]; !used[j] && fn.StartLine >= t.Line {
				used[j] = true
				return fn, true
			}
		}
		return codegraph.Func{}, false
	}
	// swallowed returns our definition that starts within a few lines after line, which ctags
	// does not list: ctags took the macro line for that definition's header.
	swallowed := func(file string, line int) (codegraph.Func, bool) {
		for _, fn := range byFile[file] {
			if fn.StartLine > line && fn.StartLine <= line+12 && fn.Kind != codegraph.Macro && !ctagsNames[key{file, fn.Name}] {
				return fn, true
			}
		}
		return codegraph.Func{}, false
	}
	var byName, byPlace, notDefs, notDefsFound int
	var places, miss classes
	for i, t := range tags {
		file := t.Path
		ex := fmt.Sprintf("%s %s:%d %s", t.Name, file, t.Line, strings.TrimSpace(strings.Trim(t.Pat, "/^$")))
		isMacroCall := !foundByName[i] && macroCall(t)
		if isMacroCall {
			notDefs++
		}
		if foundByName[i] {
			byName++
			continue
		}
		if fn, ok := atPlace(t); ok {
			ex = fmt.Sprintf("%s %s:%d-%d => %s %d-%d", t.Name, file, t.Line, t.End, fn.Name, fn.StartLine, fn.EndLine)
			switch {
			case !macros[t.Name]:
				miss.add("same place, another name, not counted: ctags' name is no function-like macro (a return type: TYPE (F(x)), __typeof (f), int64_t), or vulnbench's name is wrong", ex, examples)
			case isMacroCall:
				byPlace++
				notDefsFound++
				places.add("ctags' line is a file-scope macro invocation, glued to the header after it", ex, examples)
			default:
				byPlace++
				places.add("ctags named the definition after another macro in or before its header (ElfW(Sym) *)", ex, examples)
			}
			continue
		}
		switch {
		case isMacroCall:
			if fn, ok := swallowed(file, t.Line); ok {
				miss.add("ctags took a file-scope macro invocation (libc_hidden_def, weak_alias, ...) for the header of the definition after it: vulnbench has that definition under its own name, at other lines", ex+" => "+fn.Name, examples)
			} else {
				miss.add("ctags took a macro invocation for a definition", ex, examples)
			}
		case strings.HasPrefix(strings.TrimPrefix(t.Pat, "/^"), "struct ") || strings.HasPrefix(strings.TrimPrefix(t.Pat, "/^"), "union "):
			miss.add("ctags took a struct whose tag is a macro for a function (struct E(link_map) {...})", ex, examples)
		case len(ours[key{file, t.Name}]) > 0:
			miss.add("same name and file, other lines (a second definition in a preprocessor branch)", ex, examples)
		case skipped[file] != "":
			miss.add("file skipped by rule: "+skipped[file], ex, examples)
		case !indexed[file]:
			miss.add("file not indexed", ex, examples)
		case strings.Contains(t.Pat, "(") && !strings.Contains(strings.SplitN(t.Pat, "(", 2)[0], t.Name):
			miss.add("ctags names a macro argument or a K&R parameter", ex, examples)
		case !identLike(t.Name) || strings.ToUpper(t.Name) == t.Name:
			miss.add("the name is a macro that builds the real name (CTYPE, DYNARRAY_NAME (x), FCT)", ex, examples)
		default:
			miss.add("not recognised (a parse error around the definition)", ex, examples)
		}
	}
	pct := func(n, of int) float64 { return 100 * float64(n) / float64(max(of, 1)) }
	fmt.Fprintf(w, "definitions: ctags --kinds-C=f entries in .c files %d; vulnbench definitions in .c files (macros excluded) %d\n", total, cFuncs)
	fmt.Fprintf(w, "  found by name (same file and name, a range holding ctags' line): %d (%.2f%%)\n", byName, pct(byName, total))
	if !hasEnd {
		fmt.Fprintf(w, "  found at the same place under another name: not measured (the ctags output has no end lines: --fields=+ne)\n")
	} else {
		fmt.Fprintf(w, "  found at the same place under another name (ctags' name is a macro): %d (%.2f%%): same file and end line, vulnbench's start at or after ctags' line, ctags' name a function-like macro of the tree\n", byPlace, pct(byPlace, total))
		places.print(w, total)
	}
	fmt.Fprintf(w, "  total found: %d of %d (%.2f%%)\n", byName+byPlace, total, pct(byName+byPlace, total))
	fmt.Fprintf(w, "  leaving out the %d ctags entries not found by name whose line is a macro invocation: %d of %d found (%.2f%%)\n",
		notDefs, byName+byPlace-notDefsFound, total-notDefs, pct(byName+byPlace-notDefsFound, total-notDefs))
	fmt.Fprintf(w, "  ctags entries not found, by class:\n")
	miss.print(w, total)
	return nil
}

// macroCall reports whether a ctags entry's line is a macro invocation: the name at column 0
// followed by its parenthesised arguments and nothing else.
func macroCall(t tag) bool {
	p := strings.TrimSuffix(strings.TrimPrefix(t.Pat, "/^"), "$/")
	if !strings.HasPrefix(p, t.Name) {
		return false
	}
	rest := strings.TrimSpace(p[len(t.Name):])
	return strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") && strings.Count(rest, "(") == strings.Count(rest, ")") &&
		!strings.Contains(rest, ",") == !strings.Contains(rest, ",") && !strings.ContainsAny(rest, "*[") &&
		!strings.Contains(rest, " (")
}

func identLike(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

type edge struct{ file, caller, callee string }

// readCflow reads cflow's POSIX output: "N<indent>name: ..., <file line>", four spaces a level.
// An edge is (the caller's definition file, caller, callee).
func readCflow(name string) (map[edge]bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	edges := map[edge]bool{}
	type frame struct{ name, file string }
	var stack []frame
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " ")
		sp := strings.IndexByte(line, ' ')
		if sp < 0 {
			continue
		}
		if _, err := strconv.Atoi(line[:sp]); err != nil {
			continue
		}
		rest := line[sp+1:]
		ind := len(rest) - len(strings.TrimLeft(rest, " "))
		depth := ind / 4
		rest = rest[ind:]
		colon := strings.IndexByte(rest, ':')
		if colon < 0 {
			continue
		}
		fr := frame{name: rest[:colon]}
		if lt := strings.LastIndexByte(rest, '<'); lt >= 0 && strings.HasSuffix(rest, ">") {
			loc := rest[lt+1 : len(rest)-1]
			if sp := strings.LastIndexByte(loc, ' '); sp > 0 {
				fr.file = clean(loc[:sp])
			}
		}
		if depth > len(stack) {
			continue
		}
		stack = append(stack[:depth], fr)
		if depth > 0 {
			p := stack[depth-1]
			if p.file != "" {
				edges[edge{p.file, p.name, fr.name}] = true
			}
		}
	}
	return edges, sc.Err()
}

func under(file string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(file, d+"/") {
			return true
		}
	}
	return false
}

// compareEdges compares call edges as cflow defines them: (caller, callee) pairs of names.
// cflow merges the functions of one name across files (it warns "redefined"), so its file
// attribution is unreliable; names are what it gets right.
func compareEdges(w io.Writer, ix *codegraph.Index, cflowFile string, dirs []string, examples int) error {
	theirsByFile, err := readCflow(cflowFile)
	if err != nil {
		return err
	}
	theirs := map[edge]bool{}
	for e := range theirsByFile {
		theirs[edge{"", e.caller, e.callee}] = true
	}
	ours := map[edge]bool{}
	unresolved := map[edge]bool{} // (caller, expression)
	fileScope := map[string]bool{}
	locals := map[edge]bool{}
	for _, c := range ix.Calls {
		if !strings.HasSuffix(c.File, ".c") || !under(c.File, dirs) {
			continue
		}
		if c.Caller < 0 {
			fileScope[c.Callee] = true
			continue
		}
		caller := ix.Funcs[c.Caller].Name
		if c.Kind == codegraph.Unresolved {
			unresolved[edge{"", caller, c.Expr}] = true
			continue
		}
		ours[edge{"", caller, c.Callee}] = true
	}
	defs := map[string]bool{}
	anyDef := map[string]bool{}
	for _, fn := range ix.Funcs {
		anyDef[fn.Name] = true
		if under(fn.File, dirs) {
			defs[fn.Name] = true
		}
	}
	called := map[string]bool{}
	for e := range ours {
		called[e.callee] = true
	}
	_ = locals
	total, found := 0, 0
	var miss classes
	for e := range theirs {
		total++
		if ours[e] {
			found++
			continue
		}
		ex := fmt.Sprintf("%s -> %s", e.caller, e.callee)
		switch {
		case unresolved[e]:
			miss.add("the callee is a variable or parameter: a call through a pointer, reported unresolved by design", ex, examples)
		case !defs[e.caller]:
			miss.add("cflow's caller is not a function definition here (a macro or declaration cflow took for one)", ex, examples)
		case !called[e.callee] && !anyDef[e.callee]:
			miss.add("cflow took a name for a function that is neither called nor defined here (the L of L\"...\" wide strings, a local array, a cast)", ex, examples)
		case fileScope[e.callee]:
			miss.add("the call sits outside any definition vulnbench recognised", ex, examples)
		default:
			miss.add("not found (a local variable cflow took for a function, a preprocessor branch tree-sitter dropped, a parse error)", ex, examples)
		}
	}
	extra := 0
	var extras classes
	for e := range ours {
		if !theirs[e] {
			extra++
			extras.add("found by vulnbench only", fmt.Sprintf("%s -> %s", e.caller, e.callee), examples)
		}
	}
	fmt.Fprintf(w, "call edges (caller, callee) under %s: cflow %d; found by vulnbench %d (%.2f%%); vulnbench-only %d; vulnbench unresolved call sites %d\n",
		strings.Join(dirs, ", "), total, found, 100*float64(found)/float64(max(total, 1)), extra, len(unresolved))
	fmt.Fprintf(w, "  cflow edges not found, by class:\n")
	miss.print(w, total)
	extras.print(w, len(ours))
	return nil
}
