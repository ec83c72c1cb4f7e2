package score

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// mapSlots is the definition pairSlots must meet, written the plain way: a map from pair id
// to its slot, slots in order of first appearance, the last vul and ben case of each kept.
func mapSlots(cases []Case) []pairSlot {
	ids := map[string]int{}
	var slots []pairSlot
	for i, c := range cases {
		if c.Pair == "" {
			continue
		}
		k, ok := ids[c.Pair]
		if !ok {
			k = len(slots)
			ids[c.Pair] = k
			slots = append(slots, pairSlot{vul: -1, ben: -1})
		}
		slots[k].n++
		if c.Label == suite.Vul {
			slots[k].vul = int32(i)
		} else {
			slots[k].ben = int32(i)
		}
	}
	return slots
}

func TestPairSlots(t *testing.T) {
	pairs := func(ps ...string) []Case {
		cs := make([]Case, len(ps))
		for i, p := range ps {
			cs[i] = Case{Pair: p, Label: suite.Vul}
			if i%2 == 1 {
				cs[i].Label = suite.Ben
			}
		}
		return cs
	}
	rng := rand.New(rand.NewPCG(7, 8))
	shuffled := make([]Case, 2000)
	for i := range shuffled {
		// ids from few pairs, out of order: triples, lone cases, two of one label, no pair
		shuffled[i] = Case{Pair: fmt.Sprintf("p%d", rng.IntN(900)), Label: suite.Vul}
		if rng.IntN(2) == 0 {
			shuffled[i].Label = suite.Ben
		}
		if rng.IntN(10) == 0 {
			shuffled[i].Pair = ""
		}
	}
	for name, cases := range map[string][]Case{
		"none":       pairs("", ""),
		"sorted":     pairs("a", "a", "b", "b"),
		"interleave": pairs("b", "a", "b", "a", "c"),
		"triple":     pairs("x", "y", "x", "", "x"),
		"numbers":    pairs("pair-10", "pair-2", "pair-10", "pair-2"),
		"shuffled":   shuffled,
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(mapSlots(cases), pairSlots(cases), cmp.AllowUnexported(pairSlot{})); diff != "" {
				t.Errorf("pairSlots (-want +got):\n%s", diff)
			}
		})
	}
}
