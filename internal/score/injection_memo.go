package score

import (
	"crypto/sha256"
	"sync"
)

// InjectionMemo remembers what ScanInjection saw in each distinct code, so that reports built
// one after another on the runs of one suite (the board builds one per run) scan each case's
// code once, not once a run. The scan is a function of the code alone: a memo never changes a
// result. Safe for concurrent use; the zero value is not: use NewInjectionMemo.
type InjectionMemo struct {
	mu   sync.Mutex
	seen map[[sha256.Size]byte]InjectionScan
}

// NewInjectionMemo is an empty memo.
func NewInjectionMemo() *InjectionMemo {
	return &InjectionMemo{seen: map[[sha256.Size]byte]InjectionScan{}}
}

// Scan is ScanInjection(code), from the memo when this code was scanned before. A nil memo
// scans every time.
func (m *InjectionMemo) Scan(code string) InjectionScan {
	if m == nil || code == "" {
		return ScanInjection(code)
	}
	key := sha256.Sum256([]byte(code))
	m.mu.Lock()
	sc, ok := m.seen[key]
	m.mu.Unlock()
	if ok {
		return sc
	}
	sc = ScanInjection(code)
	m.mu.Lock()
	m.seen[key] = sc
	m.mu.Unlock()
	return sc
}
