package baseline

import (
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// RandomKind is the random subject kind.
func RandomKind() subject.Kind[RandomConfig, Random] {
	return subject.Kind[RandomConfig, Random]{
		Name: "random", Usage: "random", Kinds: suite.Kinds, Version: Version,
		Summary: "seeded random guesser with a score in [0,1] (--seed); the floor every subject must beat",
		Flags:   []subject.Flag{{Name: "seed", Default: int64(42), Usage: "seed for subjects that draw random numbers"}},
		Configure: func(_ string, v subject.Values) (RandomConfig, error) {
			return RandomConfig{Seed: v.Int64("seed")}, nil
		},
		New:      func(c RandomConfig, _ subject.Deps) (Random, error) { return Random(c), nil },
		Settings: func(c RandomConfig) manifest.Settings { return manifest.Settings{Seed: &c.Seed} },
	}
}

// ConstantKind is the constant subject kind.
func ConstantKind() subject.Kind[ConstantConfig, Constant] {
	return subject.Kind[ConstantConfig, Constant]{
		Name: "constant", Usage: "constant:vul|ben", Kinds: suite.Kinds, ArgReq: true, Version: Version,
		Summary: "always answers the same label",
		Configure: func(arg string, _ subject.Values) (ConstantConfig, error) {
			return ConstantConfig{Label: suite.Label(arg)}, nil
		},
		New: func(c ConstantConfig, _ subject.Deps) (Constant, error) { return Constant(c), nil },
	}
}
