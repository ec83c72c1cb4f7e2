package sca

import (
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Kind is the sca subject kind.
func Kind() subject.Kind[Config, *SCA] {
	return subject.Kind[Config, *SCA]{
		Name: "sca", Usage: "sca", Kinds: []suite.Kind{suite.KindVEX}, Version: Version,
		Summary: "plain version matching on vex cases (--advisories, --repos): an affected version in a manifest is vulnerable, else code_not_present",
		Flags:   []subject.Flag{subject.AdvisoriesFlag()},
		Configure: func(_ string, v subject.Values) (Config, error) {
			return Config{Advisories: v.String("advisories")}, nil
		},
		New:        func(c Config, _ subject.Deps) (*SCA, error) { return New(c) },
		Repository: Config.NeedsRepository,
		Advisories: Config.NeedsAdvisories,
		Can:        subject.Can{Describe: true, Close: true},
	}
}
