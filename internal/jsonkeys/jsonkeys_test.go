package jsonkeys

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     *Error
	}{
		{"clean", `{"id":"a","label":"vul","meta":{"label":"x"},"cwe":["label","label"]}`, nil},
		{"repeated", `{"id":"a","label":"vul","label":"ben"}`, &Error{Line: 1, Path: "$", Key: "label", First: "label"}},
		{"case", `{"id":"a","label":"vul","Label":"ben"}`, &Error{Line: 1, Path: "$", Key: "Label", First: "label"}},
		{"escaped", `{"label":"vul","\u006Cabel":"ben"}`, &Error{Line: 1, Path: "$", Key: "label", First: "label"}},
		{"kelvin", "{\"kind\":1,\"\u212Aind\":2}", &Error{Line: 1, Path: "$", Key: "\u212Aind", First: "kind"}},
		{"nested", "{\n \"runs\": [\n  {\"results\": [{}, {\"ruleId\": \"a\",\n \"ruleID\": \"b\"}]}\n ]\n}",
			&Error{Line: 4, Path: "$.runs[0].results[1]", Key: "ruleID", First: "ruleId"}},
		{"siblings", `{"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]}`, nil},
		{"strings with braces", `{"a":"{\"a\":1,\"a\":2}","b":"]"}`, nil},
		{"many keys", `{` + manyKeysJSON(40) + `,"K7":0}`, &Error{Line: 1, Path: "$", Key: "K7", First: "k7"}},
		{"key path with dots", `{"a.b":{"x":1,"x":2}}`, &Error{Line: 1, Path: `$["a.b"]`, Key: "x", First: "x"}},
		{"not JSON", `{"a":1,"a`, nil},
		{"accents differ", `{"é":1,"e":2,"É":3}`, &Error{Line: 1, Path: "$", Key: "É", First: "é"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Check([]byte(tc.in))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check(%s) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func manyKeysJSON(n int) string {
	var parts []string
	for i := 0; i < n; i++ {
		parts = append(parts, `"k`+itoa(i)+`":0`)
	}
	return strings.Join(parts, ",")
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// The collision encoding/json lets through: the later value wins, and a key in another case
// fills the field. This is what Check exists for.
func TestEncodingJSONAcceptsCollisions(t *testing.T) {
	var v struct {
		Label string `json:"label"`
	}
	for _, in := range []string{`{"label":"vul","label":"ben"}`, `{"label":"vul","Label":"ben"}`} {
		if err := json.Unmarshal([]byte(in), &v); err != nil || v.Label != "ben" {
			t.Fatalf("encoding/json on %s: %v, label %q; the premise of this package changed", in, err, v.Label)
		}
		if Check([]byte(in)) == nil {
			t.Errorf("Check(%s) = nil, want a collision", in)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{Line: 1, Path: "$", Key: "label", First: "label"}, `key "label" appears twice in the object at $ (a JSON reader keeps only one of the two values)`},
		{Error{Line: 1, Path: "$.vex", Key: "Status", First: "status"}, `keys "status" and "Status" of the object at $.vex differ only in case (a JSON reader may take either for the other)`},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,{"c":2,"C":3}]}}`))
	f.Add([]byte(`{"a":"\"}","a":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e := Check(b)
		if !json.Valid(b) {
			return
		}
		// On valid JSON, Check agrees with a decode into maps that keeps every key.
		if e != nil && (e.Line < 1 || e.Line > strings.Count(string(b), "\n")+1) {
			t.Fatalf("line %d out of range", e.Line)
		}
		if e == nil && hasCollision(t, b) {
			t.Fatalf("Check missed a collision in %q", b)
		}
	})
}

// hasCollision decodes b token by token and reports whether an object repeats a key or holds
// two keys strings.EqualFold calls equal.
func hasCollision(t *testing.T, b []byte) bool {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	type obj struct {
		keys   []string
		object bool
		key    bool
	}
	var stack []*obj
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if n := len(stack); n > 0 && stack[n-1].object {
					stack[n-1].key = true
				}
				stack = append(stack, &obj{object: v == '{', key: true})
				if v == '[' {
					stack[len(stack)-1].key = false
				}
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key {
				for _, k := range stack[n-1].keys {
					if strings.EqualFold(k, v) {
						return true
					}
				}
				stack[n-1].keys = append(stack[n-1].keys, v)
				stack[n-1].key = false
				continue
			}
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true
		}
	}
}
