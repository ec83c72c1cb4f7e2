package score

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// mapSlots is the definition pairSlots must meet, written the plain way: a map from pair
// number to its slot, slots in order of first appearance, the last vul and ben case of each kept.
func mapSlots(cases []Case) []pairSlot {
	ids := map[int32]int{}
	var slots []pairSlot
	for i, c := range cases {
		if c.Pair == 0 {
			continue
		}
		k, ok := ids[c.Pair]
		if !ok {
			k = len(slots)
			ids[c.Pair] = k
			slots = append(slots, pairSlot{vul: -1, ben: -1})
		}
		slots[k].n++
		if c.Vul {
			slots[k].vul = int32(i)
		} else {
			slots[k].ben = int32(i)
		}
	}
	return slots
}

func TestPairSlots(t *testing.T) {
	pairs := func(ps ...int32) []Case {
		cs := make([]Case, len(ps))
		for i, p := range ps {
			cs[i] = Case{Pair: p, Vul: true}
			if i%2 == 1 {
				cs[i].Vul = false
			}
		}
		return cs
	}
	rng := rand.New(rand.NewPCG(7, 8))
	shuffled := make([]Case, 2000)
	for i := range shuffled {
		// ids from few pairs, out of order: triples, lone cases, two of one label, no pair
		shuffled[i] = Case{Pair: int32(rng.IntN(900)) + 1, Vul: true}
		if rng.IntN(2) == 0 {
			shuffled[i].Vul = false
		}
		if rng.IntN(10) == 0 {
			shuffled[i].Pair = 0
		}
	}
	for name, cases := range map[string][]Case{
		"none":       pairs(0, 0),
		"sorted":     pairs(1, 1, 2, 2),
		"interleave": pairs(2, 1, 2, 1, 3),
		"triple":     pairs(7, 8, 7, 0, 7),
		"numbers":    pairs(10, 2, 10, 2),
		"shuffled":   shuffled,
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(mapSlots(cases), pairSlots(cases), cmp.AllowUnexported(pairSlot{})); diff != "" {
				t.Errorf("pairSlots (-want +got):\n%s", diff)
			}
		})
	}
}

// Scoring holds a Case and an Answer per case: their sizes decide what a million cases cost.
func TestSizes(t *testing.T) {
	if n := unsafe.Sizeof(Answer{}); n > 16 {
		t.Errorf("Answer takes %d bytes, more than 16", n)
	}
	if n := unsafe.Sizeof(Case{}); n > 40 {
		t.Errorf("Case takes %d bytes, more than 40", n)
	}
}
