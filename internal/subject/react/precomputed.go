package react

import (
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/agent/tools"
	"github.com/vulnbench/vulnbench/internal/subject/jitctx"
)

// PrecomputedTools are the paper's three tools over a case's precomputed context (--context
// precomputed): the callers, callees and bodies the benchmark stored with the case. target and
// code are the case's function and its source, which get_definition returns for the target when
// the stored bodies lack it.
func PrecomputedTools(x *jitctx.Context, target, code string) []agent.Tool {
	named := func(f func(name string) string) func(a tools.Args) (string, error) {
		return func(a tools.Args) (string, error) {
			if msg, bad := tools.NoName(a.Function); bad {
				return msg, nil
			}
			return f(a.Function), nil
		}
	}
	return tools.GraphOver(
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
		if i == tools.MaxSites {
			fmt.Fprintf(&b, "[cut: %d more not shown]\n", len(es)-tools.MaxSites)
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
