// Package linediff finds the lines two versions of a file have in common: the equal blocks of a
// shortest edit script (Myers' O(ND) algorithm over whole lines), for the incremental code graph,
// which reuses the parse of the unchanged top-level regions of an edited file.
package linediff

import "bytes"

// Block is a run of N lines equal in both versions: old lines Old..Old+N-1 are new lines
// New..New+N-1 (0-based).
type Block struct{ Old, New, N int }

// Lines splits src into lines, each with its line break; a last line without one is a line too.
func Lines(src []byte) [][]byte {
	out := make([][]byte, 0, bytes.Count(src, []byte{'\n'})+1)
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			out = append(out, src)
			break
		}
		out = append(out, src[:i+1])
		src = src[i+1:]
	}
	return out
}

// Equal returns the blocks of lines that a and b share in a shortest edit script, in order and
// merged where they touch. ok is false when turning a into b takes more than maxEdits inserted
// and deleted lines beyond a common prefix and suffix: the caller then treats the files as
// unrelated (the search costs O(maxEdits²) memory).
func Equal(a, b [][]byte, maxEdits int) (blocks []Block, ok bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && bytes.Equal(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && bytes.Equal(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	// Lines as numbers, so that the search compares integers.
	ids := map[string]int32{}
	num := func(ls [][]byte) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, seen := ids[string(l)]
			if !seen {
				id = int32(len(ids))
				ids[string(l)] = id
			}
			out[i] = id
		}
		return out
	}
	mid, ok := myers(num(a[pre:len(a)-suf]), num(b[pre:len(b)-suf]), maxEdits)
	if !ok {
		return nil, false
	}
	add := func(blk Block) {
		if blk.N == 0 {
			return
		}
		if n := len(blocks); n > 0 && blocks[n-1].Old+blocks[n-1].N == blk.Old && blocks[n-1].New+blocks[n-1].N == blk.New {
			blocks[n-1].N += blk.N
			return
		}
		blocks = append(blocks, blk)
	}
	add(Block{0, 0, pre})
	for _, blk := range mid {
		add(Block{blk.Old + pre, blk.New + pre, blk.N})
	}
	add(Block{len(a) - suf, len(b) - suf, suf})
	return blocks, true
}

// myers returns the diagonals (equal runs) of a shortest edit script from a to b, or false when
// it needs more than maxD edits.
func myers(a, b []int32, maxD int) ([]Block, bool) {
	n, m := len(a), len(b)
	maxD = min(maxD, n+m)
	off := maxD + 1
	v := make([]int32, 2*maxD+3)
	var trace [][]int32 // trace[d][k+d] is the furthest x on diagonal k after d edits
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
				return backtrack(trace, n, m), true
			}
		}
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
	}
	return nil, false
}

// backtrack walks the trace back from (n, m) and returns the equal runs in order.
func backtrack(trace [][]int32, n, m int) []Block {
	var rev []Block
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1] // prev[k+d-1] for k in [-(d-1), d-1]
		k := x - y
		at := func(k int) int { return int(prev[k+d-1]) }
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1 // a line of b inserted
		} else {
			pk = k - 1 // a line of a deleted
		}
		px := at(pk)
		py := px - pk
		mx, my := px, py+1
		if pk == k-1 {
			mx, my = px+1, py
		}
		if x > mx {
			rev = append(rev, Block{mx, my, x - mx})
		}
		x, y = px, py
	}
	if x > 0 {
		rev = append(rev, Block{0, 0, x})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
