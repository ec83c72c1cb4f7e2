package deps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/osv-scalibr/semantic"

	"github.com/vulnbench/vulnbench/internal/advisory"
)

// Affects reports whether version of a package of ecosystem (OSV's name: Go, PyPI, Maven,
// npm...) is affected according to af: it is one of af.Versions, or inside one of its SEMVER or
// ECOSYSTEM ranges, compared with osv-scalibr's semantic rules for the ecosystem (GIT ranges are
// not evaluated). A version or event the ecosystem cannot parse is an error.
func Affects(ecosystem, version string, af advisory.Affected) (bool, error) {
	m := &Matcher{ecosystem: ecosystem, versions: af.Versions}
	if v := strings.TrimPrefix(version, "v"); slices.Contains(af.Versions, v) || slices.Contains(af.Versions, "v"+v) {
		return true, nil
	}
	v, err := m.Parse(version)
	if err != nil {
		return false, err
	}
	if m, err = NewMatcher(ecosystem, af); err != nil {
		return false, err
	}
	return m.AffectsParsed(version, v)
}

// Matcher is an affected package's ranges with their versions parsed once, for many questions.
type Matcher struct {
	ecosystem string
	versions  []string
	ranges    [][]event // each SEMVER or ECOSYSTEM range's events, sorted by version
}

// NewMatcher parses af's ranges in ecosystem's version order. A range event the ecosystem
// cannot parse is an error naming the range.
func NewMatcher(ecosystem string, af advisory.Affected) (*Matcher, error) {
	m := &Matcher{ecosystem: ecosystem, versions: af.Versions}
	for _, r := range af.Ranges {
		if r.Type != "SEMVER" && r.Type != "ECOSYSTEM" {
			continue
		}
		evs, err := parseEvents(ecosystem, r.Events)
		if err != nil {
			return nil, fmt.Errorf("%s range of %s: %w", r.Type, af.Package, err)
		}
		m.ranges = append(m.ranges, evs)
	}
	return m, nil
}

// Parse reads a version in the matcher's ecosystem order (a leading v dropped).
func (m *Matcher) Parse(version string) (semantic.Version, error) {
	v, err := semantic.Parse(strings.TrimPrefix(version, "v"), m.ecosystem)
	if err != nil {
		return nil, fmt.Errorf("version %q of %s: %w", version, m.ecosystem, err)
	}
	return v, nil
}

// Affects is Affects of version against the matcher's package.
func (m *Matcher) Affects(version string) (bool, error) {
	version = strings.TrimPrefix(version, "v")
	if slices.Contains(m.versions, version) || slices.Contains(m.versions, "v"+version) {
		return true, nil
	}
	v, err := m.Parse(version)
	if err != nil {
		return false, err
	}
	return m.AffectsParsed(version, v)
}

// AffectsParsed is Affects of a version parsed with Parse (raw is its text, for the listed
// versions).
func (m *Matcher) AffectsParsed(raw string, v semantic.Version) (bool, error) {
	raw = strings.TrimPrefix(raw, "v")
	if slices.Contains(m.versions, raw) || slices.Contains(m.versions, "v"+raw) {
		return true, nil
	}
	for _, evs := range m.ranges {
		in, err := inRange(v, evs)
		if err != nil {
			return false, err
		}
		if in {
			return true, nil
		}
	}
	return false, nil
}

// event is one range event with its parsed version (nil for introduced "0").
type event struct {
	kind byte // 'i' introduced, 'f' fixed, 'l' last_affected, 'm' limit
	at   string
	ver  semantic.Version
}

// parseEvents parses one range's events and sorts them by version (introduced "0" first).
func parseEvents(ecosystem string, events []advisory.Event) ([]event, error) {
	evs := make([]event, 0, len(events))
	for _, e := range events {
		x := event{}
		switch {
		case e.Introduced != "":
			x.kind, x.at = 'i', e.Introduced
		case e.Fixed != "":
			x.kind, x.at = 'f', e.Fixed
		case e.LastAffected != "":
			x.kind, x.at = 'l', e.LastAffected
		case e.Limit != "":
			x.kind, x.at = 'm', e.Limit
		default:
			continue
		}
		if x.at != "0" {
			pv, err := semantic.Parse(strings.TrimPrefix(x.at, "v"), ecosystem)
			if err != nil {
				return nil, fmt.Errorf("event version %q: %w", x.at, err)
			}
			x.ver = pv
		}
		evs = append(evs, x)
	}
	var sortErr error
	slices.SortStableFunc(evs, func(a, b event) int {
		switch {
		case a.ver == nil && b.ver == nil:
			return 0
		case a.ver == nil:
			return -1
		case b.ver == nil:
			return 1
		}
		c, err := a.ver.Compare(b.ver)
		if err != nil {
			sortErr = err
		}
		return c
	})
	if sortErr != nil {
		return nil, sortErr
	}
	return evs, nil
}

// inRange is OSV's evaluation of one range, its events sorted: walking them up to v, an
// introduced event at or below v makes it affected, a fixed or limit event at or below v, or a
// last_affected event below v, makes it not.
func inRange(v semantic.Version, evs []event) (bool, error) {
	affected := false
	for _, e := range evs {
		c := 1 // v against the event's version; "0" is below everything
		if e.ver != nil {
			var err error
			if c, err = v.Compare(e.ver); err != nil {
				return false, err
			}
		}
		if c < 0 {
			break // this and every later event lie above v
		}
		switch e.kind {
		case 'i':
			affected = true
		case 'f', 'm':
			affected = false
		case 'l':
			if c > 0 {
				affected = false
			}
		}
	}
	return affected, nil
}
