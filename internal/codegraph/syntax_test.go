package codegraph

import (
	"strings"
	"testing"
)

func TestCheckSyntax(t *testing.T) {
	tests := []struct {
		lang Lang
		src  string
		want string // "" for valid
	}{
		{C, "int f(int a) { return a + 1; }\n", ""},
		{C, "int f(int a) { return a + ; }\n", "line 1"},
		{Java, "class A { int f() { return 1; } }\n", ""},
		{Java, "class A { int f() { return 1 }\n", "line 1"},
		{Python, "def f(x):\n    return x\n", ""},
		{Python, "def f(x)\n    return x\n", "line 1"},
		{JavaScript, "function f(x) { return x * 2; }\n", ""},
		{JavaScript, "function f(x) { return x * ; }\n", "line 1"},
		{CPP, "int main() { std::vector<int> v; return 0; }\n", ""},
		{Go, "package p\nfunc f() {\n\treturn\n", "line"},
	}
	for _, tt := range tests {
		err := CheckSyntax(tt.lang, []byte(tt.src))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %q: %v, want valid", tt.lang, tt.src, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %q: %v, want an error with %q", tt.lang, tt.src, err, tt.want)
		}
	}
}
