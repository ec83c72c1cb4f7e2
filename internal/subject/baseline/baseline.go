// Package baseline holds the reference subjects every result is compared with: a seeded random
// guesser and constant answers.
package baseline

import (
	"context"
	"encoding/binary"
	"hash/fnv"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Random answers at random with a score in [0,1] and says vul when the score is at least 0.5.
// The answer is a pure function of (seed, case id, repeat), so a resumed or re-run run gives the
// same verdicts whatever the order or concurrency.
type Random struct{ Seed int64 }

// Assess implements subject.Subject.
func (r Random) Assess(_ context.Context, c *suite.Case, repeat int) (verdict.Verdict, error) {
	h := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(r.Seed))
	binary.LittleEndian.PutUint64(b[8:], uint64(repeat))
	h.Write(b[:])
	h.Write([]byte(c.ID))
	x := mix(h.Sum64())
	score := float64(x>>11) / float64(1<<53)
	label := suite.Ben
	if score >= 0.5 {
		label = suite.Vul
	}
	return verdict.Verdict{Status: verdict.OK, Label: label, Score: verdict.Float(score)}, nil
}

// Describe implements subject.Describer.
func (r Random) Describe() map[string]any { return map[string]any{"seed": r.Seed} }

// mix is SplitMix64's finaliser: it spreads FNV's bits evenly over the 64-bit range.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Constant always gives the same label, with no score.
type Constant struct{ Label suite.Label }

// Assess implements subject.Subject.
func (k Constant) Assess(context.Context, *suite.Case, int) (verdict.Verdict, error) {
	return verdict.Verdict{Status: verdict.OK, Label: k.Label}, nil
}
