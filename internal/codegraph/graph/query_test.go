package graph

import (
	"testing"
)

func TestProximity(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a/b/c.c", "a/b/c.c", 1 << 20},
		{"a/b/x.c", "a/b/c.c", 1 << 19},
		{"x.c", "y.c", 1 << 19},
		{"a/x/y.c", "a/b/c.c", 1},
		{"a/b/c/d.c", "a/b/e/f.c", 2},
		{"ab/c.c", "a/c.c", 0},
		{"x.c", "a/b.c", 0},
		{"a/b.c", "", 0},
	}
	for _, tt := range tests {
		if got := proximity(tt.a, tt.b); got != tt.want {
			t.Errorf("proximity(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
