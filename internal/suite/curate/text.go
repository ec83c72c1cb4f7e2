package curate

import (
	"crypto/md5"
	"math"
)

// NormHash is the MD5 of text with its formatting characters (spaces, tabs, newlines, carriage
// returns) removed: PrimeVul's de-duplication key.
func NormHash(text string) [16]byte {
	h := md5.New()
	var buf [4096]byte
	n := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case ' ', '\t', '\n', '\r':
		default:
			buf[n] = c
			n++
			if n == len(buf) {
				h.Write(buf[:n])
				n = 0
			}
		}
	}
	h.Write(buf[:n])
	var out [16]byte
	h.Sum(out[:0])
	return out
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Tokens appends to dst the tokens of C-like source text, each as a 64-bit FNV-1a hash: a run of
// letters, digits and underscores is one token, any other byte except white space is a token
// of its own, and white space separates tokens.
func Tokens(text string, dst []uint64) []uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case isIdent(c):
			h := uint64(offset)
			for i < len(text) && isIdent(text[i]) {
				h = (h ^ uint64(text[i])) * prime
				i++
			}
			dst = append(dst, h)
		default:
			dst = append(dst, (uint64(offset)^uint64(c)^0xff00)*prime)
			i++
		}
	}
	return dst
}

// Similarity is the share of text two versions have in common: 2*LCS / (len(a)+len(b)) over
// their tokens (see Tokens), where LCS is the length of a longest common subsequence. It equals
// 1 - D/(len(a)+len(b)) with D the fewest token insertions and deletions turning a into b, which
// is how it is computed (Myers' O((N+M)D) algorithm). It is difflib's ratio() with an exact
// longest common subsequence instead of difflib's matching-block heuristic, and token-based so
// that formatting does not count. Two empty texts have similarity 1.
func Similarity(a, b []uint64) float64 {
	t := len(a) + len(b)
	if t == 0 {
		return 1
	}
	return 1 - float64(editDistance(a, b, t))/float64(t)
}

// AtLeast reports whether Similarity(a, b) >= min, stopping early once it cannot be.
func AtLeast(a, b []uint64, min float64) bool {
	t := len(a) + len(b)
	if t == 0 {
		return true
	}
	dmax := int(math.Floor((1-min)*float64(t) + 1e-9))
	if dmax < 0 {
		return false
	}
	return editDistance(a, b, dmax) >= 0
}

// editDistance is the fewest insertions and deletions turning a into b, or -1 when above dmax.
func editDistance(a, b []uint64, dmax int) int {
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	n, m := len(a), len(b)
	if n+m <= dmax && (n == 0 || m == 0) {
		return n + m
	}
	dmax = min(dmax, n+m)
	off := dmax + 1
	v := make([]int, 2*dmax+3)
	for d := 0; d <= dmax; d++ {
		for k := -d; k <= d; k += 2 {
			if k < -m || k > n { // the diagonal leaves the grid
				continue
			}
			var x int
			if k == -d || k == -m || (k != d && k != n && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return d
			}
		}
	}
	return -1
}
