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
type caseIndex struct {
	n        int
	idBuf    []byte   // the case ids, one after the other
	idEnd    []uint32 // where each id ends in idBuf
	label    []uint8
	lang     []uint16
	langs    []string
	cwe      []uint32   // index into cweLists
	cweLists [][]string // distinct CWE lists; 0 is the empty one
	cwes     []string   // every CWE, sorted as report.CWECompare
	status   []uint8
	pred     []uint8
	tools    []int32
	benMode  bool     // failed verdicts count as ben (a suite with jit cases)
	byID     []uint32 // positions, sorted by id (byte order, as the store sorts)

	mu    sync.Mutex
	sorts map[string][]uint32
}

// Index is what building a case index reads of a store.
type indexStore interface {
	CaseRows(ctx context.Context, runID string, fn func(store.CaseRow) error) error
	CaseCWEs(ctx context.Context, runID string, fn func(caseID, cwe string) error) error
	Labels(ctx context.Context, runID string, fn func(verdict.Verdict) error) error
}

func buildIndex(ctx context.Context, st indexStore, runID string) (*caseIndex, error) {
	ix := &caseIndex{cweLists: [][]string{nil}, sorts: map[string][]uint32{}}
	langs := map[string]uint16{}
	jit := false
	err := st.CaseRows(ctx, runID, func(r store.CaseRow) error {
		ix.idBuf = append(ix.idBuf, r.ID...)
		ix.idEnd = append(ix.idEnd, uint32(len(ix.idBuf)))
		l := labBen
		if r.Label == suite.Vul {
			l = labVul
		}
		ix.label = append(ix.label, l)
		li, ok := langs[r.Language]
		if !ok {
			li = uint16(len(ix.langs))
			langs[r.Language] = li
			ix.langs = append(ix.langs, r.Language)
		}
		ix.lang = append(ix.lang, li)
		jit = jit || r.Kind == suite.KindJIT
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ix.idBuf) > 1<<32-1 {
		return nil, fmt.Errorf("run %s: its case ids take more than 4 GiB", runID)
	}
	n := len(ix.idEnd)
	ix.n = n
	ix.idBuf = slices.Clip(ix.idBuf)
	ix.benMode = jit
	ix.cwe = make([]uint32, n)
	ix.status, ix.pred, ix.tools = make([]uint8, n), make([]uint8, n), make([]int32, n)
	ix.byID = make([]uint32, n)
	for i := range ix.byID {
		ix.byID[i] = uint32(i)
	}
	slices.SortFunc(ix.byID, func(a, b uint32) int { return bytes.Compare(ix.idb(a), ix.idb(b)) })

	lists := map[string]uint32{"": 0}
	seen := map[string]bool{}
	if err := st.CaseCWEs(ctx, runID, func(id, cwe string) error {
		p, ok := ix.find(id)
		if !ok {
			return nil
		}
		if !seen[cwe] {
			seen[cwe] = true
			ix.cwes = append(ix.cwes, cwe)
		}
		list := append(slices.Clone(ix.cweLists[ix.cwe[p]]), cwe)
		key := strings.Join(list, ",")
		li, ok := lists[key]
		if !ok {
			li = uint32(len(ix.cweLists))
			lists[key] = li
			ix.cweLists = append(ix.cweLists, list)
		}
		ix.cwe[p] = li
		return nil
	}); err != nil {
		return nil, err
	}
	slices.SortFunc(ix.cwes, report.CWECompare)

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
		ix.tools[p] = int32(min(v.Usage.ToolCalls, 1<<30))
		return nil
	}); err != nil {
		return nil, err
	}
	return ix, nil
}

// idb is the id of case i, in the index's own memory.
func (ix *caseIndex) idb(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = ix.idEnd[i-1]
	}
	return ix.idBuf[start:ix.idEnd[i]:ix.idEnd[i]]
}

// id is the id of case i.
func (ix *caseIndex) id(i uint32) string { return string(ix.idb(i)) }

// find returns the position of the case with id.
func (ix *caseIndex) find(id string) (uint32, bool) {
	b := []byte(id)
	k, ok := slices.BinarySearchFunc(ix.byID, b, func(p uint32, b []byte) int { return bytes.Compare(ix.idb(p), b) })
	if !ok {
		return 0, false
	}
	return ix.byID[k], true
}

// outcome is the case's outcome, an index of outcomeNames.
func (ix *caseIndex) outcome(i uint32) uint8 {
	switch ix.status[i] {
	case stMissing:
		return 0
	case stError:
		return 6
	case stFailed:
		return 5
	}
	switch {
	case ix.pred[i] == labVul && ix.label[i] == labVul:
		return 1
	case ix.pred[i] == labVul:
		return 2
	case ix.label[i] == labBen:
		return 3
	}
	return 4
}

// correct says whether the case was answered right (judged false for errors and missing
// verdicts); a failed verdict is wrong, or a ben answer on a suite with jit cases, as scoring
// counts it by default.
func (ix *caseIndex) correct(i uint32) (right, judged bool) {
	switch ix.status[i] {
	case stOK:
		return ix.pred[i] == ix.label[i], true
	case stFailed:
		return ix.benMode && ix.label[i] == labBen, true
	}
	return false, false
}

// order returns the positions sorted by key (nil: suite order), computed once per key.
func (ix *caseIndex) order(key string) []uint32 {
	less := map[string]func(a, b uint32) int{
		"id":      func(a, b uint32) int { return bytes.Compare(ix.idb(a), ix.idb(b)) },
		"label":   func(a, b uint32) int { return int(ix.label[a]) - int(ix.label[b]) },
		"status":  func(a, b uint32) int { return int(ix.status[a]) - int(ix.status[b]) },
		"outcome": func(a, b uint32) int { return int(ix.outcome(a)) - int(ix.outcome(b)) },
		"lang":    func(a, b uint32) int { return strings.Compare(ix.langs[ix.lang[a]], ix.langs[ix.lang[b]]) },
		"cwe": func(a, b uint32) int {
			return slices.CompareFunc(ix.cweLists[ix.cwe[a]], ix.cweLists[ix.cwe[b]], report.CWECompare)
		},
		"tools": func(a, b uint32) int { return int(ix.tools[a] - ix.tools[b]) },
	}[key]
	if key == "id" {
		return ix.byID
	}
	if less == nil {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if o, ok := ix.sorts[key]; ok {
		return o
	}
	o := make([]uint32, ix.n)
	for i := range o {
		o[i] = uint32(i)
	}
	slices.SortStableFunc(o, less)
	ix.sorts[key] = o
	return o
}

// filter is what a cases table shows.
type filter struct {
	label, status, outcome uint8 // 0: any; else index + 1
	cwe                    string
	lang                   int // -1: any
	flip                   *caseIndex
	sort                   string
	desc                   bool
	offset, limit          int
}

func (ix *caseIndex) match(f *filter, i uint32) bool {
	if f.label != 0 && ix.label[i] != f.label-1 {
		return false
	}
	if f.status != 0 && ix.status[i] != f.status-1 {
		return false
	}
	if f.outcome != 0 && ix.outcome(i) != f.outcome-1 {
		return false
	}
	if f.lang >= 0 && int(ix.lang[i]) != f.lang {
		return false
	}
	if f.cwe != "" && !slices.Contains(ix.cweLists[ix.cwe[i]], f.cwe) {
		return false
	}
	if f.flip != nil && !ix.flipped(f.flip, i) {
		return false
	}
	return true
}

// flipped says whether case i was answered right in one run and wrong in the other (both
// judged it).
func (ix *caseIndex) flipped(o *caseIndex, i uint32) bool {
	j := i
	if int(i) >= o.n || !bytes.Equal(o.idb(i), ix.idb(i)) {
		var ok bool
		if j, ok = o.find(ix.id(i)); !ok {
			return false
		}
	}
	a, ja := ix.correct(i)
	b, jb := o.correct(j)
	return ja && jb && a != b
}

// query returns the positions of one page of the cases f matches, and how many match.
func (ix *caseIndex) query(f *filter) (page []uint32, total int) {
	o := ix.order(f.sort)
	n := ix.n
	for k := range n {
		kk := k
		if f.desc {
			kk = n - 1 - k
		}
		i := uint32(kk)
		if o != nil {
			i = o[kk]
		}
		if !ix.match(f, i) {
			continue
		}
		if total >= f.offset && len(page) < f.limit {
			page = append(page, i)
		}
		total++
	}
	return page, total
}
