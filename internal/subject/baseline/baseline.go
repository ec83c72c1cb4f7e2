// Package baseline holds the reference subjects every result is compared with: a seeded random
// guesser and constant answers.
package baseline

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Random answers at random with a score in [0,1] and says vul when the score is at least 0.5.
// The answer is a pure function of (seed, case id, repeat), so a resumed or re-run run gives the
// same verdicts whatever the order or concurrency.
type Random struct{ Seed int64 }

// Version of the random and constant subjects' answers.
const Version = "1"

// RandomConfig is the random subject's configuration.
type RandomConfig struct {
	Seed int64 `json:"seed"`
}

// Validate implements subject.Config.
func (RandomConfig) Validate() error { return nil }

// ConstantConfig is the constant subject's configuration.
type ConstantConfig struct {
	Label suite.Label `json:"label"`
}

// Validate implements subject.Config.
func (c ConstantConfig) Validate() error {
	if !c.Label.Valid() {
		return fmt.Errorf("subject constant:%s: the label must be vul or ben", c.Label)
	}
	return nil
}

// Assess implements subject.Subject.
func (r Random) Assess(_ context.Context, u subject.Unit, _ *subject.Env) (verdict.Verdict, error) {
	c, repeat := u.Case, u.Repeat
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
	return verdict.Verdict{Status: verdict.OK, Label: label, Score: verdict.Float(score), ScoreSource: verdict.FromTool}, nil
}

// mix is SplitMix64's finaliser: it spreads FNV's bits evenly over the 64-bit range.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Constant always gives the same label, with no score.
type Constant struct{ Label suite.Label }

// Assess implements subject.Subject.
func (k Constant) Assess(context.Context, subject.Unit, *subject.Env) (verdict.Verdict, error) {
	return verdict.Verdict{Status: verdict.OK, Label: k.Label}, nil
}
