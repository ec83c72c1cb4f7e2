package engine

import "testing"

func TestBudgetStopsWithinOneBatch(t *testing.T) {
	cost := func(x float64) *float64 { return &x }
	b := NewBudget(1.0, 0.25)
	// Nothing finished yet: the estimate is 0, so a first batch of 3 is admitted.
	for i := 0; i < 3; i++ {
		if !b.admit() {
			t.Fatalf("unit %d refused before any cost is known", i)
		}
	}
	b.release(cost(0.2)) // spent 0.25+0.2 = 0.45, mean 0.2, 2 in flight: 0.85 < 1
	if !b.admit() {      // 3 in flight now: 0.45 + 3*0.2 = 1.05
		t.Fatal("refused at 0.85 of 1.00")
	}
	if b.admit() {
		t.Fatal("admitted with spent + in-flight estimate 1.05 >= 1.00")
	}
	b.abandon() // abandoned: no cost, one fewer in flight: 0.45 + 2*0.2 = 0.85
	if !b.admit() {
		t.Fatal("refused after an abandoned unit freed its place")
	}
	if got := b.Spent(); got != 0.45 {
		t.Errorf("Spent = %v, want 0.45 (0.25 before + 0.2)", got)
	}
	var nilBudget *Budget
	nilBudget.release(cost(1)) // must not panic
}

// The cap is checked before every model call, not once per unit: an agent that makes many calls
// in one unit stops at the cap.
func TestBudgetReservesEveryCall(t *testing.T) {
	cost := func(x float64) *float64 { return &x }
	b := NewBudget(1.0, 0)
	if !b.admit() {
		t.Fatal("first unit refused")
	}
	var calls int
	for {
		est, ok := b.Reserve()
		if !ok {
			break
		}
		calls++
		b.Settle(est, cost(0.3))
		if calls > 10 {
			t.Fatal("the calls of one unit were never stopped")
		}
	}
	// 0.3, 0.6, 0.9 spent; a fourth call would be estimated at 0.3: 1.2 >= 1.
	if calls != 3 || b.Spent() < 0.899 || b.Spent() > 0.901 {
		t.Errorf("%d calls, spent %v; want 3 calls and 0.9", calls, b.Spent())
	}
	// Two calls in flight at once: the second reserves on top of the first.
	b2 := NewBudget(1.0, 0)
	e, _ := b2.Reserve()
	b2.Settle(e, cost(0.4))
	e1, ok1 := b2.Reserve() // 0.4 + 0.4 reserved = 0.8 < 1
	_, ok2 := b2.Reserve()  // 0.4 + 0.8 = 1.2
	if !ok1 || ok2 {
		t.Errorf("concurrent reservations: %v, %v; want true, false", ok1, ok2)
	}
	b2.Settle(e1, nil) // unpriced: reservation returned, nothing spent
	if _, ok := b2.Reserve(); !ok {
		t.Error("a settled reservation still held its place")
	}
	if b2.admit() {
		t.Error("a unit was admitted after a call was refused for the budget")
	}
	var nilBudget *Budget
	if _, ok := nilBudget.Reserve(); !ok {
		t.Error("a nil budget refused a call")
	}
}
