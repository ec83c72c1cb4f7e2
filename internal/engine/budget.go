package engine

import "sync"

// Budget caps what a run may spend, in USD. It is checked twice: a unit is started only while
// the cost spent plus an estimate of the units in flight (their number times the mean cost of the
// units finished so far) stays under the cap, and every model call reserves the mean cost of a
// call before it is sent (Reserve) and settles what it really cost after (Settle), so a run stops
// within one in-flight batch of calls of its cap, whatever a unit makes.
type Budget struct {
	Cap float64

	mu       sync.Mutex
	prior    float64 // spent before this invocation (a resumed run)
	spent    float64 // spent here
	reserved float64 // estimates of the calls in flight
	calls    int     // calls settled here
	finished int     // units finished here
	inflight int
	refused  bool // a call was refused: no new unit starts
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
	if b.refused || b.prior+b.spent+b.reserved+float64(b.inflight)*est >= b.Cap {
		return false
	}
	b.inflight++
	return true
}

// release ends a unit admitted before, adding cost when it is known and no call settled it
// already (a subject that reports its own cost). Safe on a nil Budget.
func (b *Budget) release(cost *float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight--
	b.finished++
	if cost != nil {
		b.spent += *cost
	}
}

// abandon ends a unit admitted before that was not done (stopped, cancelled). Safe on nil.
func (b *Budget) abandon() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight--
}

// Reserve is called before a model call: it reserves the mean cost of a call so far, or says
// (false) that the cap is reached. Safe on a nil Budget, which always admits.
func (b *Budget) Reserve() (float64, bool) {
	if b == nil {
		return 0, true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	est := 0.0
	if b.calls > 0 {
		est = b.spent / float64(b.calls)
	}
	if b.prior+b.spent+b.reserved+est >= b.Cap {
		b.refused = true
		return 0, false
	}
	b.reserved += est
	return est, true
}

// Settle replaces a call's reservation by what it cost (nil: unpriced, nothing is added).
func (b *Budget) Settle(reserved float64, cost *float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved -= reserved
	if cost != nil {
		b.spent += *cost
		b.calls++
	}
}
