package linediff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLines(t *testing.T) {
	got := Lines([]byte("a\nb\n\nc"))
	want := [][]byte{[]byte("a\n"), []byte("b\n"), []byte("\n"), []byte("c")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lines (-want +got):\n%s", diff)
	}
	if n := len(Lines(nil)); n != 0 {
		t.Errorf("Lines(nil) has %d lines", n)
	}
}

func TestEqualExamples(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want []Block
	}{
		{"a\nb\nc\n", "a\nb\nc\n", []Block{{0, 0, 3}}},
		{"a\nb\nc\n", "a\nX\nc\n", []Block{{0, 0, 1}, {2, 2, 1}}},
		{"a\nb\nc\n", "a\nb\nnew\nc\n", []Block{{0, 0, 2}, {2, 3, 1}}},
		{"a\nb\nc\nd\n", "a\nd\n", []Block{{0, 0, 1}, {3, 1, 1}}},
		{"", "a\n", nil},
		{"a\nb", "a\nb\n", []Block{{0, 0, 1}}}, // a last line without its break differs
	} {
		got, ok := Equal(Lines([]byte(tc.a)), Lines([]byte(tc.b)), 100)
		if !ok {
			t.Fatalf("%q -> %q: over the limit", tc.a, tc.b)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q -> %q (-want +got):\n%s", tc.a, tc.b, diff)
		}
	}
}

// TestEqualIsLongest: on random texts the blocks are equal lines, in order, and as many as a
// longest common subsequence holds (a shortest edit script keeps exactly that many).
func TestEqualIsLongest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		a, b := randLines(r), randLines(r)
		got, ok := Equal(a, b, len(a)+len(b))
		if !ok {
			t.Fatalf("round %d: over a limit of n+m", round)
		}
		kept, lastOld, lastNew := 0, 0, 0
		for _, blk := range got {
			if blk.N <= 0 || blk.Old < lastOld || blk.New < lastNew {
				t.Fatalf("round %d: block %+v out of order in %+v", round, blk, got)
			}
			for i := range blk.N {
				if !bytes.Equal(a[blk.Old+i], b[blk.New+i]) {
					t.Fatalf("round %d: block %+v pairs %q with %q", round, blk, a[blk.Old+i], b[blk.New+i])
				}
			}
			lastOld, lastNew = blk.Old+blk.N, blk.New+blk.N
			kept += blk.N
		}
		if want := lcs(a, b); kept != want {
			t.Fatalf("round %d: %d equal lines, the longest common subsequence has %d", round, kept, want)
		}
	}
}

func TestEqualLimit(t *testing.T) {
	a := Lines([]byte("1\n2\n3\n4\n5\n6\n"))
	b := Lines([]byte("1\nx\ny\nz\n6\n"))
	if _, ok := Equal(a, b, 7); !ok {
		t.Error("7 edits refused at a limit of 7")
	}
	if _, ok := Equal(a, b, 6); ok {
		t.Error("7 edits accepted at a limit of 6")
	}
}

func randLines(r *rand.Rand) [][]byte {
	out := make([][]byte, r.IntN(30))
	for i := range out {
		out[i] = fmt.Appendf(nil, "%d\n", r.IntN(5))
	}
	return out
}

func lcs(a, b [][]byte) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if bytes.Equal(a[i], b[j]) {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}
