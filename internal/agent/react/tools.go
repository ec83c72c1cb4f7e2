// Package react is JitVul's ReAct agent: the agent loop with the paper's three tools,
// get_callers, get_callees and get_definition, answered from the code graph of the case's own
// snapshot (R_intro for a vul case, R_fix for a ben case), and optionally read_file and search
// over that snapshot.
package react

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/subject/jitctx"
)

// MaxSites bounds the call sites one observation lists.
const MaxSites = 100

// args are the tools' arguments; line may come as a string (DESIGN: every argument a JSON string)
// or as a number.
type args struct {
	Function string          `json:"function"`
	File     string          `json:"file"`
	Line     json.RawMessage `json:"line"`
	Path     string          `json:"path"`
	Pattern  string          `json:"pattern"`
	Start    json.RawMessage `json:"start_line"`
	End      json.RawMessage `json:"end_line"`
}

func parseArgs(raw json.RawMessage) (args, string) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, "The arguments could not be read: " + err.Error()
	}
	return a, ""
}

// number reads an optional integer given as a JSON number or string; 0 when absent.
func number(raw json.RawMessage) (int, bool) {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	if s == "" || s == "null" {
		return 0, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// GraphTools are the paper's three tools over ix. near is where the case's target is: it ranks
// definitions and call sites when the model gives no file.
func GraphTools(ix query.Graph, near query.Near) []agent.Tool {
	return paperTools(
		func(a args) (string, error) { return Callers(ix, a.Function, near), nil },
		func(a args) (string, error) { return Callees(ix, a.Function, near), nil },
		func(a args) (string, error) {
			line, ok := number(a.Line)
			if !ok {
				return fmt.Sprintf("line must be a positive whole number; got %s", a.Line), nil
			}
			q := near
			if a.File != "" {
				q = query.Near{File: strings.TrimPrefix(a.File, "./"), Line: line}
			}
			return Definition(ix, a.Function, q)
		})
}

// paperTools are get_callers, get_callees and get_definition as the model sees them, whatever
// answers them (the live code graph or a precomputed context): each run gets the parsed
// arguments.
func paperTools(callers, callees, definition func(a args) (string, error)) []agent.Tool {
	run := func(f func(a args) (string, error)) func(context.Context, json.RawMessage) (string, error) {
		return func(_ context.Context, raw json.RawMessage) (string, error) {
			a, bad := parseArgs(raw)
			if bad != "" {
				return bad, nil
			}
			return f(a)
		}
	}
	return []agent.Tool{
		{Name: "get_callers", Description: "Lists the functions of the repository that call a function, with the file and line of each call.",
			Parameters: agent.StringParams(map[string]string{"function": "the function's name"}, "function"),
			Run:        run(callers)},
		{Name: "get_callees", Description: "Lists the calls a function makes, in source order, saying which callees the repository defines.",
			Parameters: agent.StringParams(map[string]string{"function": "the function's name"}, "function"),
			Run:        run(callees)},
		{Name: "get_definition", Description: "Returns the complete source of a function defined in the repository. Give file and line to pick one of several definitions.",
			Parameters: agent.StringParams(map[string]string{"function": "the function's name", "file": "optional: the file that defines it",
				"line": "optional: a line inside or near the definition"}, "function"),
			Run: run(definition)},
	}
}

func noName(name string) (string, bool) {
	if strings.TrimSpace(name) == "" {
		return `The argument "function" is required: the name of a function.`, true
	}
	return "", false
}

// Callers is get_callers's observation: one line per call site, nearest to near first.
func Callers(ix query.Graph, name string, near query.Near) string {
	if msg, bad := noName(name); bad {
		return msg
	}
	sites := ix.Callers(name, near)
	defined := len(ix.Definitions(name, query.Near{})) > 0
	if len(sites) == 0 {
		if !defined {
			return fmt.Sprintf("%s is not defined in the repository, and nothing in it calls it.", name)
		}
		return fmt.Sprintf("Nothing in the repository calls %s.", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d call sites of %s:\n", len(sites), name)
	for i, s := range sites {
		if i == MaxSites {
			fmt.Fprintf(&b, "[cut: %d more call sites not shown]\n", len(sites)-MaxSites)
			break
		}
		caller := s.CallerQual
		if caller == "" {
			caller = "(file scope)"
		}
		how := ""
		if s.Kind == query.Reference {
			how = " (uses it as a value: a callback)"
		}
		fmt.Fprintf(&b, "%s:%d in %s%s\n", s.File, s.Line, caller, how)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Callees is get_callees's observation: the calls of the nearest definition of name.
func Callees(ix query.Graph, name string, near query.Near) string {
	if msg, bad := noName(name); bad {
		return msg
	}
	all := ix.Callees(name, near)
	if len(all) == 0 {
		return fmt.Sprintf("%s is not defined in the repository, so its calls are unknown.", name)
	}
	co := all[0]
	var b strings.Builder
	f := co.Func
	fmt.Fprintf(&b, "%s (%s lines %d-%d) makes %d calls:\n", name, f.File, f.StartLine, f.EndLine, len(co.Calls))
	for i, s := range co.Calls {
		if i == MaxSites {
			fmt.Fprintf(&b, "[cut: %d more calls not shown]\n", len(co.Calls)-MaxSites)
			break
		}
		switch s.Kind {
		case query.Unresolved:
			fmt.Fprintf(&b, "%s:%d %s (through a pointer or expression: callee unknown)\n", s.File, s.Line, s.Expr)
		default:
			note := ""
			if len(ix.Definitions(s.Callee, query.Near{})) == 0 {
				note = " (not defined in the repository)"
			}
			if s.Kind == query.Reference {
				note += " (passed as a value)"
			}
			callee := s.Callee
			if s.Qualifier != "" {
				callee = s.Qualifier + "::" + s.Callee
			}
			fmt.Fprintf(&b, "%s:%d %s%s\n", s.File, s.Line, callee, note)
		}
	}
	if len(all) > 1 {
		fmt.Fprintf(&b, "(%s has %d definitions; this is the nearest. Ask get_definition with file and line for another.)\n", name, len(all))
	}
	return strings.TrimRight(b.String(), "\n")
}

// Definition is get_definition's observation: the source of the nearest definition of name, and
// where the others are.
func Definition(ix query.Graph, name string, near query.Near) (string, error) {
	if msg, bad := noName(name); bad {
		return msg, nil
	}
	defs, err := ix.Definition(name, near)
	if err != nil {
		return "", fmt.Errorf("get_definition %s: %w", name, err)
	}
	if len(defs) == 0 {
		return fmt.Sprintf("No definition of %s in the repository: it may be a system or library function.", name), nil
	}
	d := defs[0]
	var b strings.Builder
	fmt.Fprintf(&b, "%s, defined in %s lines %d-%d:\n%s", name, d.File, d.StartLine, d.EndLine, strings.TrimRight(d.Text, "\n"))
	if len(defs) > 1 {
		b.WriteString("\nOther definitions:")
		for _, o := range defs[1:] {
			fmt.Fprintf(&b, "\n%s lines %d-%d", o.File, o.StartLine, o.EndLine)
		}
	}
	return b.String(), nil
}

// FileTools are the optional read_file and search tools over the case's snapshot (off by
// default, for fidelity to the paper).
func FileTools(s *snapshot.Snapshot) []agent.Tool {
	return []agent.Tool{
		{Name: "read_file", Description: "Returns lines of a file of the repository, numbered.",
			Parameters: map[string]any{"type": "object", "required": []string{"path"}, "properties": map[string]any{
				"path":       map[string]any{"type": "string", "description": "the file, relative to the repository root"},
				"start_line": map[string]any{"type": "integer", "description": "optional: the first line (1-based)"},
				"end_line":   map[string]any{"type": "integer", "description": "optional: the last line"}}},
			Run: func(_ context.Context, raw json.RawMessage) (string, error) {
				a, bad := parseArgs(raw)
				if bad != "" {
					return bad, nil
				}
				from, ok1 := number(a.Start)
				to, ok2 := number(a.End)
				if !ok1 || !ok2 {
					return "start_line and end_line must be positive whole numbers.", nil
				}
				return ReadFile(s, a.Path, from, to), nil
			}},
		{Name: "search", Description: "Finds the lines of the repository's files that match a regular expression (RE2 syntax).",
			Parameters: agent.StringParams(map[string]string{"pattern": "the regular expression", "path": "optional: a directory or file to search in"}, "pattern"),
			Run: func(_ context.Context, raw json.RawMessage) (string, error) {
				a, bad := parseArgs(raw)
				if bad != "" {
					return bad, nil
				}
				return Search(s, a.Pattern, a.Path), nil
			}},
	}
}

// ReadFile is read_file's observation: lines from..to (1-based, 0: the start and the end).
func ReadFile(s *snapshot.Snapshot, path string, from, to int) string {
	c, err := s.Read(path)
	if err != nil {
		return "Cannot read " + path + ": " + err.Error()
	}
	if c.Binary {
		return path + " is a binary file, not shown."
	}
	lines := strings.Split(strings.TrimSuffix(string(c.Data), "\n"), "\n")
	if from < 1 {
		from = 1
	}
	if to < 1 || to > len(lines) {
		to = len(lines)
	}
	if from > to {
		return fmt.Sprintf("%s has %d lines; there is nothing from line %d.", path, len(lines), from)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s lines %d-%d of %d:\n", path, from, to, len(lines))
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\t%s\n", i, lines[i-1])
	}
	if c.Truncated {
		fmt.Fprintf(&b, "[cut: the file has %d bytes; only the first %d were read]\n", c.Size, len(c.Data))
	}
	return strings.TrimRight(b.String(), "\n")
}

// Search is search's observation: matching lines as file:line: text, at most MaxSites.
func Search(s *snapshot.Snapshot, pattern, path string) string {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "The pattern is not a valid regular expression: " + err.Error()
	}
	if path == "" {
		path = "."
	}
	var b strings.Builder
	n := 0
	werr := s.Walk(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		c, err := s.Read(p)
		if err != nil || c.Binary {
			return nil
		}
		for i, line := range strings.Split(string(c.Data), "\n") {
			if re.MatchString(line) {
				n++
				if n <= MaxSites {
					fmt.Fprintf(&b, "%s:%d: %s\n", p, i+1, strings.TrimSpace(line))
				}
			}
		}
		return nil
	})
	if werr != nil {
		return "Cannot search " + path + ": " + werr.Error()
	}
	if n == 0 {
		return "No line matches " + pattern + "."
	}
	if n > MaxSites {
		fmt.Fprintf(&b, "[cut: %d more matching lines not shown]\n", n-MaxSites)
	}
	return strings.TrimRight(b.String(), "\n")
}

// PrecomputedTools are the paper's three tools over a case's precomputed context (--context
// precomputed): the callers, callees and bodies the benchmark stored with the case. target and
// code are the case's function and its source, which get_definition returns for the target when
// the stored bodies lack it.
func PrecomputedTools(x *jitctx.Context, target, code string) []agent.Tool {
	named := func(f func(name string) string) func(a args) (string, error) {
		return func(a args) (string, error) {
			if msg, bad := noName(a.Function); bad {
				return msg, nil
			}
			return f(a.Function), nil
		}
	}
	return paperTools(
		named(func(name string) string { return PrecomputedEdges(x.Callers, name, "callers") }),
		named(func(name string) string { return PrecomputedEdges(x.Callees, name, "callees") }),
		named(func(name string) string { return PrecomputedDefinition(x, name, target, code) }))
}

// PrecomputedEdges is get_callers's (what "callers") or get_callees's (what "callees")
// observation from a precomputed graph g: one line per entry, in the record's order.
func PrecomputedEdges(g map[string][]jitctx.Edge, name, what string) string {
	es, ok := g[name]
	if !ok {
		return fmt.Sprintf("%s is not in the precomputed %s graph.", name, strings.TrimSuffix(what, "s"))
	}
	if len(es) == 0 {
		return fmt.Sprintf("The precomputed graph lists no %s of %s.", what, name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s of %s:\n", len(es), what, name)
	for i, e := range es {
		if i == MaxSites {
			fmt.Fprintf(&b, "[cut: %d more not shown]\n", len(es)-MaxSites)
			break
		}
		switch {
		case e.File != "" && e.Line > 0:
			fmt.Fprintf(&b, "%s (%s:%d)\n", e.Name, e.File, e.Line)
		case e.File != "":
			fmt.Fprintf(&b, "%s (%s)\n", e.Name, e.File)
		default:
			fmt.Fprintf(&b, "%s\n", e.Name)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// PrecomputedDefinition is get_definition's observation from the stored bodies; the target's
// own source when they lack it.
func PrecomputedDefinition(x *jitctx.Context, name, target, code string) string {
	body, ok := x.Bodies[name]
	if !ok && name == target && code != "" {
		body, ok = code, true
	}
	if !ok {
		return fmt.Sprintf("No definition of %s in the precomputed context: it may be a system or library function.", name)
	}
	return fmt.Sprintf("%s:\n%s", name, strings.TrimRight(body, "\n"))
}
