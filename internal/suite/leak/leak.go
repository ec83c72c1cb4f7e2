// Package leak finds cases of one suite that are copies of another's: exact duplicates (the same
// normalised-text MD5 as curation uses) and near duplicates (Jaccard similarity of token shingle
// sets at or above a threshold). Near duplicates are found with MinHash signatures and LSH
// banding, then every candidate pair is confirmed with the exact Jaccard of the two shingle sets,
// so no reported pair is a MinHash estimate. Memory holds the shingle sets and signatures of the
// second suite (the one tested, usually the smaller) only; the first is streamed.
package leak

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/curate"
)

// Defaults.
const (
	DefaultThreshold = 0.9
	DefaultShingle   = 5 // tokens per shingle
	// Bands x Rows hash functions. With 16 bands of 8 rows a pair at Jaccard 0.9 becomes a
	// candidate with probability 1-(1-0.9^8)^16 > 0.9999, one at 0.5 with probability 0.06.
	Bands = 16
	Rows  = 8
)

// Options are the choices of Find.
type Options struct {
	Threshold float64 // 0 means DefaultThreshold
	Shingle   int     // 0 means DefaultShingle
	Seed      uint64  // of the MinHash functions
}

// Match is a case of B with a copy in A.
type Match struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Jaccard float64 `json:"jaccard"`
	Exact   bool    `json:"exact"`
}

// Result summarises the leakage of A into B.
type Result struct {
	CasesA     int     `json:"cases_a"`
	CasesB     int     `json:"cases_b"`
	ExactB     int     `json:"exact_b"`    // cases of B with an exact copy in A
	NearB      int     `json:"near_b"`     // cases of B with a near copy (exact ones included)
	ExactRate  float64 `json:"exact_rate"` // ExactB / CasesB
	NearRate   float64 `json:"near_rate"`  // NearB / CasesB
	Threshold  float64 `json:"threshold"`
	Shingle    int     `json:"shingle"`
	Candidates int     `json:"candidates"` // LSH candidate pairs checked
	// Matches lists, per case of B, its most similar copy in A (ties: the first in A), sorted by B id.
	Matches []Match `json:"matches"`
}

type entry struct {
	id   string
	hash [16]byte
	set  []uint64 // sorted distinct shingle hashes
	best Match
	has  bool
}

// Find reports the cases of suite b that are exact or near copies of cases of suite a.
func Find(ctx context.Context, a, b string, opt Options) (*Result, error) {
	if opt.Threshold == 0 {
		opt.Threshold = DefaultThreshold
	}
	if opt.Shingle <= 0 {
		opt.Shingle = DefaultShingle
	}
	mh := newMinHash(opt.Seed)
	res := &Result{Threshold: opt.Threshold, Shingle: opt.Shingle, Matches: []Match{}}

	var es []*entry
	exact := map[[16]byte][]int32{}
	buckets := make([]map[uint64][]int32, Bands)
	for i := range buckets {
		buckets[i] = map[uint64][]int32{}
	}
	var toks []uint64
	sig := make([]uint64, Bands*Rows)
	_, problems, err := suite.Scan(b, nil, false, func(c *suite.Case, _ int) error {
		e := &entry{id: c.ID, hash: curate.NormHash(c.Code)}
		toks = curate.Tokens(c.Code, toks[:0])
		e.set = shingles(toks, opt.Shingle)
		k := int32(len(es))
		es = append(es, e)
		exact[e.hash] = append(exact[e.hash], k)
		if len(e.set) > 0 {
			mh.signature(e.set, sig)
			for band := 0; band < Bands; band++ {
				key := bandKey(sig[band*Rows : (band+1)*Rows])
				buckets[band][key] = append(buckets[band][key], k)
			}
		}
		return nil
	})
	if err := scanErr(b, problems, err); err != nil {
		return nil, err
	}
	res.CasesB = len(es)

	seen := map[int32]bool{}
	nA := 0
	_, problems, err = suite.Scan(a, nil, false, func(c *suite.Case, _ int) error {
		nA++
		if nA%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		h := curate.NormHash(c.Code)
		for _, k := range exact[h] {
			es[k].offer(Match{A: c.ID, B: es[k].id, Jaccard: 1, Exact: true})
		}
		toks = curate.Tokens(c.Code, toks[:0])
		set := shingles(toks, opt.Shingle)
		if len(set) == 0 {
			return nil
		}
		mh.signature(set, sig)
		clear(seen)
		for band := 0; band < Bands; band++ {
			for _, k := range buckets[band][bandKey(sig[band*Rows:(band+1)*Rows])] {
				if seen[k] {
					continue
				}
				seen[k] = true
				res.Candidates++
				if j := jaccard(set, es[k].set); j >= opt.Threshold {
					es[k].offer(Match{A: c.ID, B: es[k].id, Jaccard: j, Exact: es[k].hash == h})
				}
			}
		}
		return nil
	})
	if err := scanErr(a, problems, err); err != nil {
		return nil, err
	}
	res.CasesA = nA
	for _, e := range es {
		if !e.has {
			continue
		}
		res.NearB++
		if e.best.Exact {
			res.ExactB++
		}
		res.Matches = append(res.Matches, e.best)
	}
	sort.Slice(res.Matches, func(i, j int) bool { return res.Matches[i].B < res.Matches[j].B })
	if res.CasesB > 0 {
		res.ExactRate = float64(res.ExactB) / float64(res.CasesB)
		res.NearRate = float64(res.NearB) / float64(res.CasesB)
	}
	return res, nil
}

// offer keeps the best match: exact first, then the highest Jaccard, then the first seen.
func (e *entry) offer(m Match) {
	if !e.has || (m.Exact && !e.best.Exact) || (m.Exact == e.best.Exact && m.Jaccard > e.best.Jaccard) {
		e.best, e.has = m, true
	}
}

func scanErr(path string, problems []error, err error) error {
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w (%d problems in %s: vulnbench suite validate %s)", problems[0], len(problems), path, path)
	}
	return nil
}

// shingles is the sorted set of hashes of every run of k consecutive tokens (the whole text
// when it has fewer than k tokens).
func shingles(toks []uint64, k int) []uint64 {
	if len(toks) == 0 {
		return nil
	}
	n := max(1, len(toks)-k+1)
	set := make([]uint64, 0, n)
	for i := 0; i < n; i++ {
		h := uint64(0x9e3779b97f4a7c15)
		for _, t := range toks[i:min(i+k, len(toks))] {
			h = mix(h ^ t)
		}
		set = append(set, h)
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// jaccard is |a ∩ b| / |a ∪ b| of two sorted sets.
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	i, j, inter := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func mix(x uint64) uint64 { // splitmix64's finaliser
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

type minHash struct{ a, b []uint64 }

func newMinHash(seed uint64) *minHash {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	m := &minHash{a: make([]uint64, Bands*Rows), b: make([]uint64, Bands*Rows)}
	for i := range m.a {
		m.a[i], m.b[i] = rng.Uint64()|1, rng.Uint64()
	}
	return m
}

// signature sets sig[i] to the least of hash_i over the set.
func (m *minHash) signature(set []uint64, sig []uint64) {
	for i := range sig {
		sig[i] = ^uint64(0)
	}
	for _, x := range set {
		for i := range sig {
			if h := mix(x*m.a[i] + m.b[i]); h < sig[i] {
				sig[i] = h
			}
		}
	}
}

func bandKey(rows []uint64) uint64 {
	var buf [8]byte
	h := uint64(14695981039346656037)
	for _, r := range rows {
		binary.LittleEndian.PutUint64(buf[:], r)
		for _, c := range buf {
			h = (h ^ uint64(c)) * 1099511628211
		}
	}
	return h
}
