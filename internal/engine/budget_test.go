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
	b.release(nil) // abandoned: no cost, one fewer in flight: 0.45 + 2*0.2 = 0.85
	if !b.admit() {
		t.Fatal("refused after an abandoned unit freed its place")
	}
	if got := b.Spent(); got != 0.45 {
		t.Errorf("Spent = %v, want 0.45 (0.25 before + 0.2)", got)
	}
	var nilBudget *Budget
	nilBudget.release(cost(1)) // must not panic
}
