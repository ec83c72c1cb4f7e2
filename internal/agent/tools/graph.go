package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
)

// Graph are get_callers, get_callees and get_definition over g. near is where the case's target
// is: it ranks definitions and call sites when the model gives no file.
func Graph(g query.Graph, near query.Near) []agent.Tool {
	return GraphOver(
		func(a Args) (string, error) { return Callers(g, a.Function, near), nil },
		func(a Args) (string, error) { return Callees(g, a.Function, near), nil },
		func(a Args) (string, error) {
			line, ok := Number(a.Line)
			if !ok {
				return fmt.Sprintf("line must be a positive whole number; got %s", a.Line), nil
			}
			q := near
			if a.File != "" {
				q = query.Near{File: strings.TrimPrefix(a.File, "./"), Line: line}
			}
			return Definition(g, a.Function, q)
		})
}

// GraphOver are get_callers, get_callees and get_definition as the model sees them, whatever
// answers them (the live code graph, or a case's precomputed context): each answer gets the
// parsed arguments.
func GraphOver(callers, callees, definition func(a Args) (string, error)) []agent.Tool {
	run := func(f func(a Args) (string, error)) func(context.Context, json.RawMessage) (string, error) {
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

// NoName is the observation of a graph tool called without a function's name, and whether it
// was.
func NoName(name string) (string, bool) {
	if strings.TrimSpace(name) == "" {
		return `The argument "function" is required: the name of a function.`, true
	}
	return "", false
}

// Callers is get_callers's observation: one line per call site, nearest to near first.
func Callers(ix query.Graph, name string, near query.Near) string {
	if msg, bad := NoName(name); bad {
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
	if msg, bad := NoName(name); bad {
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
	if msg, bad := NoName(name); bad {
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
