package jitctx_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/subject/jitctx"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// TestFromCase reads each shape a precomputed graph comes in: the paper's cflow tree, a plain
// name list per function, and the list of edges of the target (the import fixture's shape).
func TestFromCase(t *testing.T) {
	tests := []struct {
		name, meta string
		want       *jitctx.Context
		err        string
	}{
		{"paper", `{"context":{"caller_graph":{"f":{"callers":["a","b"]},"a":{"callers":[]}},"callee_graph":{"f":{"callers":["memcpy"]}},"function_bodies":{"a":"int a(void){}"}}}`,
			&jitctx.Context{Callers: map[string][]jitctx.Edge{"f": {{Name: "a"}, {Name: "b"}}, "a": nil}, Callees: map[string][]jitctx.Edge{"f": {{Name: "memcpy"}}},
				Bodies: map[string]string{"a": "int a(void){}"}}, ""},
		{"name lists", `{"context":{"caller_graph":{"f":["a"]},"callee_graph":{"f":{"callees":["g"]}}}}`,
			&jitctx.Context{Callers: map[string][]jitctx.Edge{"f": {{Name: "a"}}}, Callees: map[string][]jitctx.Edge{"f": {{Name: "g"}}}, Bodies: map[string]string{}}, ""},
		{"edges of the target", `{"context":{"caller_graph":[{"caller":"main","file":"src/p.c","line":40}],"callee_graph":[{"callee":"memcpy","file":"<libc>","line":0}]}}`,
			&jitctx.Context{Callers: map[string][]jitctx.Edge{"f": {{Name: "main", File: "src/p.c", Line: 40}}}, Callees: map[string][]jitctx.Edge{"f": {{Name: "memcpy", File: "<libc>"}}},
				Bodies: map[string]string{}}, ""},
		{"a string", `{"context":{"caller_graph":"Config::reload -> Config::load"}}`, nil,
			`case c: meta.context.caller_graph: expected an object or a list, got "Config::reload -> Config::load"`},
		{"an entry without a name", `{"context":{"callee_graph":[{"file":"x.c"}]}}`, nil,
			`case c: meta.context.callee_graph: an entry {"file":"x.c"} names no callee`},
		{"bodies not strings", `{"context":{"function_bodies":{"a":1}}}`, nil,
			`case c: meta.context.function_bodies: expected {"NAME": "source"}: json: cannot unmarshal number into Go value of type string`},
		{"none", `{}`, nil, "case c: the case has no precomputed context (meta.context)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &suite.Case{ID: "c", Target: &suite.Target{Function: "f"}}
			if err := json.Unmarshal([]byte(tt.meta), &c.Meta); err != nil {
				t.Fatal(err)
			}
			got, err := jitctx.FromCase(c)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if msg != tt.err {
				t.Fatalf("err = %q; want %q", msg, tt.err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if tt.name == "none" && !errors.Is(err, jitctx.ErrNoContext) {
				t.Errorf("err %v is not ErrNoContext", err)
			}
		})
	}
}
