package curate

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func lcs(a, b []uint64) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				dp[i][j] = dp[i-1][j-1] + 1
			} else {
				dp[i][j] = max(dp[i-1][j], dp[i][j-1])
			}
		}
	}
	return dp[len(a)][len(b)]
}

func TestEditDistanceMatchesLCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 3000; it++ {
		a := make([]uint64, rng.IntN(12))
		b := make([]uint64, rng.IntN(12))
		for i := range a {
			a[i] = uint64(rng.IntN(3))
		}
		for i := range b {
			b[i] = uint64(rng.IntN(3))
		}
		want := len(a) + len(b) - 2*lcs(a, b)
		if got := editDistance(a, b, len(a)+len(b)); got != want {
			t.Fatalf("editDistance(%v, %v) = %d, want %d", a, b, got, want)
		}
		if want > 0 {
			if got := editDistance(a, b, want-1); got != -1 {
				t.Fatalf("editDistance(%v, %v, %d) = %d, want -1", a, b, want-1, got)
			}
		}
	}
}

func TestNormHash(t *testing.T) {
	if NormHash("int f(){\r\n\treturn 1;\n}") != NormHash("intf(){return1;}") {
		t.Error("formatting changed the hash")
	}
	if NormHash("int f(){return 1;}") == NormHash("int f(){return 2;}") {
		t.Error("different code, same hash")
	}
	long := strings.Repeat("a b\n", 5000)
	if NormHash(long) != NormHash(strings.Repeat("ab", 5000)) {
		t.Error("long text: formatting changed the hash")
	}
}

// words builds a text of n distinct identifier tokens, replacing the first k with other names.
func words(n, k int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i < k {
			b.WriteString("z")
		} else {
			b.WriteString("w")
		}
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a'+i%26)) + string(rune('a'+i/26)) + " ")
	}
	return b.String()
}

func TestSimilarityThreshold(t *testing.T) {
	a := Tokens(words(100, 0), nil)
	tests := []struct {
		k    int
		want float64 // 1 - 2k/200: each replaced token is one deletion and one insertion
		ok   bool
	}{{0, 1, true}, {19, 0.81, true}, {20, 0.80, true}, {21, 0.79, false}}
	for _, tt := range tests {
		b := Tokens(words(100, tt.k), nil)
		if got := Similarity(a, b); got < tt.want-1e-12 || got > tt.want+1e-12 {
			t.Errorf("k=%d: Similarity = %v, want %v", tt.k, got, tt.want)
		}
		if got := AtLeast(a, b, 0.8); got != tt.ok {
			t.Errorf("k=%d: AtLeast(0.8) = %v, want %v", tt.k, got, tt.ok)
		}
	}
	if got := len(Tokens("a_1+=b->c;", nil)); got != 8 { // a_1 + = b - > c ;
		t.Errorf("Tokens gave %d tokens, want 8", got)
	}
}
