package web

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	"github.com/vulnbench/vulnbench/internal/report"
)

// idb is the id of case i, in the index's own memory.
func (ix *caseCols) idb(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = ix.idEnd[i-1]
	}
	return ix.idBuf[start:ix.idEnd[i]:ix.idEnd[i]]
}

// id is the id of case i.
func (ix *caseCols) id(i uint32) string { return string(ix.idb(i)) }

// toolCalls is the number of tool calls of case i's verdict.
func (ix *caseIndex) toolCalls(i uint32) int32 {
	if ix.tools == nil {
		return 0
	}
	return ix.tools[i]
}

// find returns the position of the case with id.
func (ix *caseCols) find(id string) (uint32, bool) {
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

// order returns the positions sorted by key (nil: suite order), computed once per key: in the
// shared case columns when the key is the cases' own.
func (ix *caseIndex) order(key string) []uint32 {
	if key == "id" {
		return ix.byID
	}
	if less := ix.caseCols.less(key); less != nil {
		return sortOnce(&ix.caseCols.mu, ix.caseCols.sorts, key, ix.n, less)
	}
	less := map[string]func(a, b uint32) int{
		"status":  func(a, b uint32) int { return int(ix.status[a]) - int(ix.status[b]) },
		"outcome": func(a, b uint32) int { return int(ix.outcome(a)) - int(ix.outcome(b)) },
		"tools":   func(a, b uint32) int { return int(ix.toolCalls(a) - ix.toolCalls(b)) },
	}[key]
	if less == nil {
		return nil
	}
	return sortOnce(&ix.mu, ix.sorts, key, ix.n, less)
}

// less is the order of the key of the cases alone; nil for another key.
func (ix *caseCols) less(key string) func(a, b uint32) int {
	switch key {
	case "label":
		return func(a, b uint32) int { return int(ix.label[a]) - int(ix.label[b]) }
	case "lang":
		return func(a, b uint32) int { return strings.Compare(ix.langs[ix.lang[a]], ix.langs[ix.lang[b]]) }
	case "cwe":
		return func(a, b uint32) int {
			return slices.CompareFunc(ix.cweLists[ix.cwe[a]], ix.cweLists[ix.cwe[b]], report.CWECompare)
		}
	}
	return nil
}

// sortOnce returns sorts[key], the positions 0..n-1 stably sorted by less, computing it the
// first time under mu.
func sortOnce(mu *sync.Mutex, sorts map[string][]uint32, key string, n int, less func(a, b uint32) int) []uint32 {
	mu.Lock()
	defer mu.Unlock()
	if o, ok := sorts[key]; ok {
		return o
	}
	o := make([]uint32, n)
	for i := range o {
		o[i] = uint32(i)
	}
	slices.SortStableFunc(o, less)
	sorts[key] = o
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
