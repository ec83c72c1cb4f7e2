package deps_test

import (
	"fmt"
	"testing"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/deps"
)

func rng(typ string, evs ...string) advisory.Range {
	r := advisory.Range{Type: typ}
	for i := 0; i+1 < len(evs); i += 2 {
		var e advisory.Event
		switch evs[i] {
		case "i":
			e.Introduced = evs[i+1]
		case "f":
			e.Fixed = evs[i+1]
		case "l":
			e.LastAffected = evs[i+1]
		case "m":
			e.Limit = evs[i+1]
		}
		r.Events = append(r.Events, e)
	}
	return r
}

func TestAffects(t *testing.T) {
	two := advisory.Affected{Package: "p", Ranges: []advisory.Range{
		rng("ECOSYSTEM", "i", "0", "f", "1.2.3"), rng("ECOSYSTEM", "i", "2.0.0", "l", "2.0.5")}}
	for _, tc := range []struct {
		eco, version string
		af           advisory.Affected
		want         string
	}{
		{"PyPI", "1.2.2", two, "true"},
		{"PyPI", "1.2.3", two, "false"},
		{"PyPI", "1.10", two, "false"}, // not a string comparison
		{"PyPI", "2.0.0", two, "true"},
		{"PyPI", "2.0.5", two, "true"}, // last_affected is affected
		{"PyPI", "2.0.6", two, "false"},
		{"PyPI", "2.0.0rc1", two, "false"}, // a pre-release of 2.0.0 is below it
		{"Go", "v1.4.0", advisory.Affected{Ranges: []advisory.Range{rng("SEMVER", "i", "0", "f", "1.4.1")}}, "true"},
		{"Go", "1.4.1", advisory.Affected{Ranges: []advisory.Range{rng("SEMVER", "i", "0", "f", "1.4.1")}}, "false"},
		{"Go", "0.0.0-20200101000000-abcdef123456", advisory.Affected{Ranges: []advisory.Range{rng("SEMVER", "i", "0", "f", "0.1.0")}}, "true"},
		// Maven orders 2.9.10.4 after 2.9.10 and 2.9.8
		{"Maven", "2.9.8", advisory.Affected{Ranges: []advisory.Range{rng("ECOSYSTEM", "i", "2.9.0", "f", "2.9.10.4")}}, "true"},
		{"Maven", "2.9.10", advisory.Affected{Ranges: []advisory.Range{rng("ECOSYSTEM", "i", "2.9.0", "f", "2.9.10.4")}}, "true"},
		{"Maven", "2.10.0", advisory.Affected{Ranges: []advisory.Range{rng("ECOSYSTEM", "i", "2.9.0", "f", "2.9.10.4")}}, "false"},
		{"npm", "4.17.20", advisory.Affected{Ranges: []advisory.Range{rng("SEMVER", "i", "0", "f", "4.17.21")}}, "true"},
		// events out of order are sorted first; limit ends the range
		{"npm", "3.0.0", advisory.Affected{Ranges: []advisory.Range{rng("SEMVER", "m", "2.0.0", "i", "1.0.0")}}, "false"},
		{"npm", "1.5.0", advisory.Affected{Ranges: []advisory.Range{rng("SEMVER", "m", "2.0.0", "i", "1.0.0")}}, "true"},
		{"npm", "0.9.0", advisory.Affected{Ranges: []advisory.Range{rng("SEMVER", "m", "2.0.0", "i", "1.0.0")}}, "false"},
		// a listed version, and a GIT range that is not evaluated
		{"PyPI", "0.5", advisory.Affected{Versions: []string{"0.5"}, Ranges: []advisory.Range{rng("GIT", "i", "0")}}, "true"},
		{"PyPI", "0.6", advisory.Affected{Versions: []string{"0.5"}, Ranges: []advisory.Range{rng("GIT", "i", "0")}}, "false"},
		// PyPI's legacy versions sort below every PEP 440 version
		{"PyPI", "not a version!", two, "true"},
		{"Cobol", "1.0", two, `false version "1.0" of Cobol: unsupported ecosystem Cobol`},
	} {
		got, err := deps.Affects(tc.eco, tc.version, tc.af)
		s := fmt.Sprint(got)
		if err != nil {
			s += " " + err.Error()
		}
		if s != tc.want {
			t.Errorf("Affects(%s, %s) = %s; want %s", tc.eco, tc.version, s, tc.want)
		}
	}
}
