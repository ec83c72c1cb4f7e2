// Package jitctx is where the jit subjects (react, depaug) take a case's context from: the live
// code graph of the case's own snapshot, or the precomputed context an imported JitVul record
// carries in the case's meta "context" (the paper's caller_graph, callee_graph and
// function_bodies, computed with cflow and ctags when the benchmark was built).
package jitctx

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Mode is the --context flag's value.
type Mode string

// The context sources.
const (
	// Auto is live when the case has a repository, else precomputed when it has a meta.context.
	Auto Mode = "auto"
	// Live is the code graph of the case's snapshot (found under --repos).
	Live Mode = "live"
	// Precomputed is the case's meta.context.
	Precomputed Mode = "precomputed"
)

// Flag is --context, read by the jit subjects (depaug, react).
func Flag() subject.Flag {
	return subject.Flag{Name: "context", Default: string(Auto), Usage: "where callers, callees and definitions come from: " +
		"live (the code graph of the case's snapshot, under --repos), precomputed (the graphs and bodies an imported JitVul case keeps in meta.context) " +
		"or auto (live when the case has a repository, else precomputed; a case with neither is an error)"}
}

// ParseMode reads a --context value ("" is Auto).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return Auto, nil
	case Auto, Live, Precomputed:
		return m, nil
	}
	return "", fmt.Errorf("--context %q: must be auto, live or precomputed", s)
}

// ErrNoContext is wrapped by FromCase when the case carries no meta.context.
var ErrNoContext = errors.New("the case has no precomputed context (meta.context)")

// Edge is one entry of a precomputed graph: a function's name and, when the record gives them,
// where the call is.
type Edge struct {
	Name string
	File string
	Line int
}

// Context is a case's precomputed context.
type Context struct {
	// Callers and Callees map a function's name to its callers and callees. The paper's graphs are
	// cflow's tree around the target, so they hold the target's neighbours and theirs.
	Callers, Callees map[string][]Edge
	// Bodies maps a function's name to its source (ctags and a brace match in the paper).
	Bodies map[string]string
}

// FromCase reads c's meta "context". target is the case's function: a graph given as a plain
// list (one entry per caller or callee) is the target's. ErrNoContext when there is none.
//
// The shapes read, per graph: the paper's object {"NAME": {"callers": ["A", ...]}} (cflow's
// tree flattened; the callee graph uses the same "callers" key for the callees), an object
// {"NAME": ["A", ...]}, or a list of names or of {"caller"|"callee"|"name"|"function": NAME,
// "file": F, "line": N}. function_bodies is {"NAME": "source"}.
func FromCase(c *suite.Case) (*Context, error) {
	raw, ok := c.Meta["context"]
	if !ok || raw == nil {
		return nil, fmt.Errorf("case %s: %w", c.ID, ErrNoContext)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // code is full of < > &; keep them readable in errors
	if err := enc.Encode(raw); err != nil {
		return nil, fmt.Errorf("case %s: meta.context: %w", c.ID, err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("case %s: meta.context is not an object: %w", c.ID, err)
	}
	target := ""
	if c.Target != nil {
		target = c.Target.Function
	}
	out := &Context{Bodies: map[string]string{}}
	var err error
	if out.Callers, err = graph(m["caller_graph"], target, "caller"); err != nil {
		return nil, fmt.Errorf("case %s: meta.context.caller_graph: %w", c.ID, err)
	}
	if out.Callees, err = graph(m["callee_graph"], target, "callee"); err != nil {
		return nil, fmt.Errorf("case %s: meta.context.callee_graph: %w", c.ID, err)
	}
	if raw := m["function_bodies"]; len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &out.Bodies); err != nil {
			return nil, fmt.Errorf(`case %s: meta.context.function_bodies: expected {"NAME": "source"}: %w`, c.ID, err)
		}
	}
	return out, nil
}

// graph reads one precomputed graph; role is "caller" or "callee" (the key of a list entry).
func graph(raw json.RawMessage, target, role string) (map[string][]Edge, error) {
	g := map[string][]Edge{}
	if len(raw) == 0 || string(raw) == "null" {
		return g, nil
	}
	switch raw[0] {
	case '[':
		es, err := edges(raw, role)
		if err != nil {
			return nil, err
		}
		if target == "" && len(es) > 0 {
			return nil, errors.New("a list of edges needs the case's target.function")
		}
		if len(es) > 0 {
			g[target] = es
		}
		return g, nil
	case '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		for name, v := range m {
			if len(v) > 0 && v[0] == '{' { // the paper's {"callers": [...]}
				var w struct {
					Callers json.RawMessage `json:"callers"`
					Callees json.RawMessage `json:"callees"`
				}
				if err := json.Unmarshal(v, &w); err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				v = w.Callers
				if len(v) == 0 {
					v = w.Callees
				}
			}
			if len(v) == 0 || string(v) == "null" {
				g[name] = nil
				continue
			}
			es, err := edges(v, role)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			g[name] = es
		}
		return g, nil
	}
	return nil, fmt.Errorf("expected an object or a list, got %s", cut(raw))
}

func edges(raw json.RawMessage, role string) ([]Edge, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("expected a list: %w", err)
	}
	var out []Edge
	for _, it := range items {
		if len(it) > 0 && it[0] == '"' {
			var s string
			if err := json.Unmarshal(it, &s); err != nil {
				return nil, err
			}
			out = append(out, Edge{Name: s})
			continue
		}
		var e struct {
			Caller, Callee, Name, Function, File string
			Line                                 json.Number
		}
		if err := json.Unmarshal(it, &e); err != nil {
			return nil, fmt.Errorf("an entry %s: %w", cut(it), err)
		}
		name := cmp.Or(map[string]string{"caller": e.Caller, "callee": e.Callee}[role], e.Name, e.Function)
		if name == "" {
			return nil, fmt.Errorf("an entry %s names no %s", cut(it), role)
		}
		line, _ := e.Line.Int64()
		out = append(out, Edge{Name: name, File: e.File, Line: int(line)})
	}
	return out, nil
}

func cut(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}

// Names returns the distinct names of es, in order.
func Names(es []Edge) []string {
	var out []string
	for _, e := range es {
		if !slices.Contains(out, e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

// Related is a function of the precomputed context ranked against the target.
type Related struct {
	Name  string
	Score float64
	Code  string
}

// TopK returns the k callers and the k callees of target that have a body in the context, most
// similar first by the Jaccard similarity of their token sets to code (the target's source),
// ties by name. The target itself is left out (recursion). It is the codegraph's TopK rule
// (VulEval's) over the precomputed context.
func (x *Context) TopK(target, code string, k int) (callers, callees []Related) {
	tt := query.TokenSet(code)
	rank := func(es []Edge) []Related {
		var out []Related
		for _, name := range Names(es) {
			body, ok := x.Bodies[name]
			if !ok || name == target {
				continue
			}
			out = append(out, Related{Name: name, Score: query.Jaccard(tt, query.TokenSet(body)), Code: body})
		}
		slices.SortStableFunc(out, func(a, b Related) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Name, b.Name))
		})
		if len(out) > k {
			out = out[:k]
		}
		return out
	}
	return rank(x.Callers[target]), rank(x.Callees[target])
}
