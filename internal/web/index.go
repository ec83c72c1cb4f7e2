package web

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// The statuses and outcomes a case has in a run's table (its lowest repeat's scored verdict).
const (
	stMissing uint8 = iota
	stOK
	stFailed
	stError
)

var statusNames = []string{"missing", "ok", "failed", "error"}

const (
	labNone uint8 = iota
	labVul
	labBen
)

var labelNames = []string{"", "vul", "ben"}

// outcomeNames are the outcomes, indexed as outcome returns them.
var outcomeNames = []string{"missing", "tp", "fp", "tn", "fn", "failed", "error"}

// caseIndex is a run's cases as its table needs them: a few bytes a case, in suite order,
// held as columns so that a million cases cost tens of megabytes and a filter is one pass.
// The columns of the cases themselves (caseCols) are shared by the runs that judged the same
// cases; a run adds its verdicts' three.
type caseIndex struct {
	*caseCols
	status []uint8
	pred   []uint8
	tools  []int32 // nil when no verdict made a tool call

	mu    sync.Mutex
	sorts map[string][]uint32 // by the keys that depend on the verdicts
}

// caseCols are the columns of a run's cases: about 27 bytes a case.
type caseCols struct {
	n        int
	idBuf    []byte   // the case ids, one after the other
	idEnd    []uint32 // where each id ends in idBuf
	label    []uint8
	lang     []uint16
	langs    []string
	cwe      []uint32   // index into cweLists
	cweLists [][]string // distinct CWE lists; 0 is the empty one
	cwes     []string   // every CWE, sorted as report.CWECompare
	benMode  bool       // failed verdicts count as ben (a suite with jit cases)
	byID     []uint32   // positions, sorted by id (byte order, as the store sorts)

	mu    sync.Mutex
	sorts map[string][]uint32 // by the keys of the cases alone
}

// Index is what building a case index reads of a store.
type indexStore interface {
	CaseRows(ctx context.Context, runID string, fn func(store.CaseRow) error) error
	CaseCWEs(ctx context.Context, runID string, fn func(caseID, cwe string) error) error
	Labels(ctx context.Context, runID string, fn func(verdict.Verdict) error) error
}

// buildIndex builds the case index of a run. like, when not nil, is the case columns of a run
// that may have judged the same cases: they are shared when the run's cases and CWEs are the
// same, row for row (checked as they are read, without holding a copy).
func buildIndex(ctx context.Context, st indexStore, runID string, like *caseCols) (*caseIndex, error) {
	cols, err := readCols(ctx, st, runID, like)
	if err != nil {
		return nil, err
	}
	ix := &caseIndex{caseCols: cols, sorts: map[string][]uint32{}}
	n := cols.n
	ix.status, ix.pred = make([]uint8, n), make([]uint8, n)

	// Labels come ordered by case id and repeat: the first of a case is its lowest repeat. The
	// walk follows byID, in the same order.
	j := 0
	last := ""
	if err := st.Labels(ctx, runID, func(v verdict.Verdict) error {
		if v.CaseID == last {
			return nil
		}
		last = v.CaseID
		for j < n && string(ix.idb(ix.byID[j])) < v.CaseID {
			j++
		}
		if j == n || string(ix.idb(ix.byID[j])) != v.CaseID {
			return nil // a verdict about a case not stored with the run
		}
		p := ix.byID[j]
		switch v.Status {
		case verdict.OK:
			ix.status[p] = stOK
		case verdict.Failed:
			ix.status[p] = stFailed
		default:
			ix.status[p] = stError
		}
		switch v.Label {
		case suite.Vul:
			ix.pred[p] = labVul
		case suite.Ben:
			ix.pred[p] = labBen
		}
		if v.Status == verdict.OK && ix.pred[p] == labNone {
			ix.status[p] = stFailed // an ok verdict without a label is invalid: scored as failed
		}
		if v.Usage.ToolCalls > 0 {
			if ix.tools == nil {
				ix.tools = make([]int32, n)
			}
			ix.tools[p] = int32(min(v.Usage.ToolCalls, 1<<30))
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return ix, nil
}

// colsBuilder reads a run's case rows into columns, or, while they match like's row for row,
// only counts them.
type colsBuilder struct {
	c     *caseCols
	like  *caseCols // nil once a row differs
	k     int       // rows read
	langs map[string]uint16
	jit   bool
}

func (b *colsBuilder) row(r store.CaseRow) {
	l := labBen
	if r.Label == suite.Vul {
		l = labVul
	}
	b.jit = b.jit || r.Kind == suite.KindJIT
	if lk := b.like; lk != nil {
		if b.k < lk.n && lk.label[b.k] == l && lk.langs[lk.lang[b.k]] == r.Language && string(lk.idb(uint32(b.k))) == r.ID {
			b.k++
			return
		}
		b.own()
	}
	b.c.idBuf = append(b.c.idBuf, r.ID...)
	b.c.idEnd = append(b.c.idEnd, uint32(len(b.c.idBuf)))
	b.c.label = append(b.c.label, l)
	li, ok := b.langs[r.Language]
	if !ok {
		li = uint16(len(b.c.langs))
		b.langs[r.Language] = li
		b.c.langs = append(b.c.langs, r.Language)
	}
	b.c.lang = append(b.c.lang, li)
	b.k++
}

// own stops sharing: the columns get copies of like's first rows read.
func (b *colsBuilder) own() {
	lk, k := b.like, b.k
	b.like = nil
	end := uint32(0)
	if k > 0 {
		end = lk.idEnd[k-1]
	}
	b.c.idBuf = append([]byte(nil), lk.idBuf[:end]...)
	b.c.idEnd = slices.Clone(lk.idEnd[:k])
	b.c.label = slices.Clone(lk.label[:k])
	b.c.lang = slices.Clone(lk.lang[:k])
	b.c.langs = slices.Clone(lk.langs)
	for i, l := range b.c.langs {
		b.langs[l] = uint16(i)
	}
}

func readCols(ctx context.Context, st indexStore, runID string, like *caseCols) (*caseCols, error) {
	b := &colsBuilder{c: &caseCols{sorts: map[string][]uint32{}}, like: like, langs: map[string]uint16{}}
	if err := st.CaseRows(ctx, runID, func(r store.CaseRow) error { b.row(r); return nil }); err != nil {
		return nil, err
	}
	if b.like != nil && (b.k != b.like.n || b.jit != b.like.benMode) {
		b.own()
	}
	c := b.c
	if b.like == nil {
		if len(c.idBuf) > 1<<32-1 {
			return nil, fmt.Errorf("run %s: its case ids take more than 4 GiB", runID)
		}
		c.n = len(c.idEnd)
		c.idBuf = slices.Clip(c.idBuf)
		c.benMode = b.jit
		c.byID = make([]uint32, c.n)
		for i := range c.byID {
			c.byID[i] = uint32(i)
		}
		slices.SortFunc(c.byID, func(a, b uint32) int { return bytes.Compare(c.idb(a), c.idb(b)) })
	} else {
		c = b.like // the ids, labels and languages are like's; the CWEs are checked below
	}
	cwe, lists, cwes, err := readCWEs(ctx, st, runID, c)
	if err != nil {
		return nil, err
	}
	if c == like {
		if slices.Equal(cwe, like.cwe) && slices.EqualFunc(lists, like.cweLists, slices.Equal) && slices.Equal(cwes, like.cwes) {
			return like, nil
		}
		b.own()
		c = b.c
		c.n, c.benMode, c.byID = like.n, like.benMode, like.byID
	}
	c.cwe, c.cweLists, c.cwes = cwe, lists, cwes
	return c, nil
}

// readCWEs reads the CWEs of the run's cases as c's positions: each case's index into lists
// (distinct lists, 0 the empty one) and every CWE, sorted.
func readCWEs(ctx context.Context, st indexStore, runID string, c *caseCols) (cwe []uint32, lists [][]string, cwes []string, err error) {
	cwe, lists = make([]uint32, c.n), [][]string{nil}
	byKey := map[string]uint32{"": 0}
	seen := map[string]bool{}
	err = st.CaseCWEs(ctx, runID, func(id, w string) error {
		p, ok := c.find(id)
		if !ok {
			return nil
		}
		if !seen[w] {
			seen[w] = true
			cwes = append(cwes, w)
		}
		list := append(slices.Clone(lists[cwe[p]]), w)
		key := strings.Join(list, ",")
		li, ok := byKey[key]
		if !ok {
			li = uint32(len(lists))
			byKey[key] = li
			lists = append(lists, list)
		}
		cwe[p] = li
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	slices.SortFunc(cwes, report.CWECompare)
	return cwe, lists, cwes, nil
}
