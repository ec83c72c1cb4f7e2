package lang

import (
	"testing"
)

func TestLangOf(t *testing.T) {
	tests := []struct {
		name string
		cpp  bool
		want Lang
	}{
		{"a/b.c", false, C}, {"x.h", false, C}, {"x.h", true, CPP}, {"x.cc", false, CPP}, {"X.CPP", false, CPP},
		{"A.java", false, Java}, {"m.py", false, Python}, {"m.go", false, Go}, {"m.mjs", false, JavaScript},
		{"m.jsx", false, JavaScript}, {"README", false, NoLang}, {"x.S", false, NoLang}, {"x.ts", false, NoLang},
	}
	for _, tt := range tests {
		if got := Of(tt.name, tt.cpp); got != tt.want {
			t.Errorf("Of(%q, %v) = %v, want %v", tt.name, tt.cpp, got, tt.want)
		}
	}
}
