package engine

import "sync"

// Budget caps what a run may spend, in USD. A unit is started only while the cost spent plus an
// estimate of the units in flight (their number times the mean cost of the units finished so
// far) stays under the cap, so a run stops within one in-flight batch of it.
type Budget struct {
	Cap float64

	mu       sync.Mutex
	prior    float64 // spent before this invocation (a resumed run)
	spent    float64 // spent by the units finished here
	finished int     // units finished here with a known cost
	inflight int
}

// NewBudget caps spending at limit, counting spent as already used (a resumed run's cost).
func NewBudget(limit, spent float64) *Budget {
	return &Budget{Cap: limit, prior: spent}
}

// Spent returns the cost counted so far.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.prior + b.spent
}

// admit reserves a place for one more unit, or says the cap is reached.
func (b *Budget) admit() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	est := 0.0
	if b.finished > 0 {
		est = b.spent / float64(b.finished)
	}
	if b.prior+b.spent+float64(b.inflight)*est >= b.Cap {
		return false
	}
	b.inflight++
	return true
}

// release ends a unit admitted before, adding its cost when known. Safe on a nil Budget.
func (b *Budget) release(cost *float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight--
	if cost != nil {
		b.spent += *cost
		b.finished++
	}
}
