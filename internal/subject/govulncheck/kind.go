package govulncheck

import (
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Kind is the govulncheck subject kind.
func Kind() subject.Kind[Config, *Subject] {
	return subject.Kind[Config, *Subject]{
		Name: "govulncheck", Usage: "govulncheck", Kinds: []suite.Kind{suite.KindVEX}, Languages: []string{"go"}, Version: Version,
		Summary: "symbol-level reachability on Go vex cases: govulncheck, offline, against a local Go vulnerability database written from --advisories (a project that does not build is an error)",
		Needs:   subject.Needs{Binaries: []subject.Binary{{Name: Binary, Install: Install}}},
		Flags:   []subject.Flag{subject.AdvisoriesFlag()},
		Configure: func(_ string, v subject.Values) (Config, error) {
			return Config{Advisories: v.String("advisories")}, nil
		},
		New:        func(c Config, d subject.Deps) (*Subject, error) { return New(c, d.Sandbox) },
		Repository: Config.NeedsRepository,
		Advisories: Config.NeedsAdvisories,
		Can:        subject.Can{Describe: true, Close: true},
	}
}
