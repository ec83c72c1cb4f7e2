package extract

import (
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

func TestCheckSyntax(t *testing.T) {
	tests := []struct {
		lang lang.Lang
		src  string
		want string // "" for valid
	}{
		{lang.C, "int f(int a) { return a + 1; }\n", ""},
		{lang.C, "int f(int a) { return a + ; }\n", "line 1"},
		{lang.Java, "class A { int f() { return 1; } }\n", ""},
		{lang.Java, "class A { int f() { return 1 }\n", "line 1"},
		{lang.Python, "def f(x):\n    return x\n", ""},
		{lang.Python, "def f(x)\n    return x\n", "line 1"},
		{lang.JavaScript, "function f(x) { return x * 2; }\n", ""},
		{lang.JavaScript, "function f(x) { return x * ; }\n", "line 1"},
		{lang.CPP, "int main() { std::vector<int> v; return 0; }\n", ""},
		{lang.Go, "package p\nfunc f() {\n\treturn\n", "line"},
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
