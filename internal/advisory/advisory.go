// Package advisory reads OSV vulnerability records offline, from a directory tree (the GitHub
// Advisory Database layout, the Go vulnerability database layout, or any folder of .json files)
// or an osv.dev export zip (all.zip), and finds them by id or alias (CVE, GHSA, GO- ...).
//
// Open indexes every record (id, aliases, withdrawn) without decoding it whole; Find reads the
// records it returns with the OSV schema bindings. Records are untrusted input: a malformed one
// is a problem of its file (FILE:LINE), reported and skipped, never fatal.
package advisory

import (
	"time"

	"github.com/ossf/osv-schema/bindings/go/osvschema"
)

// Advisory is one OSV record as vulnbench uses it.
type Advisory struct {
	ID        string
	Aliases   []string
	Summary   string
	Details   string
	Published time.Time
	Modified  time.Time
	// Withdrawn is when the record was withdrawn; zero when it stands.
	Withdrawn  time.Time
	Affected   []Affected
	References []string
	// Source is where the record was read: FILE, or ZIP:ENTRY for a record in a zip.
	Source string
	// Record is the whole record, as the OSV schema bindings read it.
	Record *osvschema.Vulnerability
}

// IsWithdrawn reports whether the record was withdrawn.
func (a *Advisory) IsWithdrawn() bool { return !a.Withdrawn.IsZero() }

// Affected is one affected package with its ranges and listed versions.
type Affected struct {
	Ecosystem string // OSV's: Go, PyPI, Maven, npm, ...
	Package   string
	PURL      string
	Ranges    []Range
	Versions  []string
	// Symbols are the vulnerable functions the record names (the Go database's
	// ecosystem_specific.imports[].symbols, as path.Symbol), when it does.
	Symbols []string
}

// Range is one OSV range: its type (SEMVER, ECOSYSTEM, GIT) and events in order.
type Range struct {
	Type   string
	Events []Event
}

// Event is one OSV range event; exactly one field is set.
type Event struct {
	Introduced, Fixed, LastAffected, Limit string
}

// fromRecord converts a decoded record.
func fromRecord(v *osvschema.Vulnerability, source string) *Advisory {
	a := &Advisory{ID: v.GetId(), Aliases: v.GetAliases(), Summary: v.GetSummary(), Details: v.GetDetails(),
		Source: source, Record: v}
	if t := v.GetPublished(); t != nil {
		a.Published = t.AsTime()
	}
	if t := v.GetModified(); t != nil {
		a.Modified = t.AsTime()
	}
	if t := v.GetWithdrawn(); t != nil {
		a.Withdrawn = t.AsTime()
	}
	for _, r := range v.GetReferences() {
		a.References = append(a.References, r.GetUrl())
	}
	for _, af := range v.GetAffected() {
		x := Affected{Ecosystem: af.GetPackage().GetEcosystem(), Package: af.GetPackage().GetName(),
			PURL: af.GetPackage().GetPurl(), Versions: af.GetVersions()}
		for _, r := range af.GetRanges() {
			rg := Range{Type: r.GetType().String()}
			for _, e := range r.GetEvents() {
				rg.Events = append(rg.Events, Event{Introduced: e.GetIntroduced(), Fixed: e.GetFixed(),
					LastAffected: e.GetLastAffected(), Limit: e.GetLimit()})
			}
			x.Ranges = append(x.Ranges, rg)
		}
		x.Symbols = goSymbols(af)
		a.Affected = append(a.Affected, x)
	}
	return a
}

// goSymbols reads the Go database's ecosystem_specific: {"imports": [{"path": P, "symbols": [S]}]}.
func goSymbols(af *osvschema.Affected) []string {
	es := af.GetEcosystemSpecific()
	if es == nil {
		return nil
	}
	var out []string
	for _, imp := range es.GetFields()["imports"].GetListValue().GetValues() {
		f := imp.GetStructValue().GetFields()
		p := f["path"].GetStringValue()
		for _, s := range f["symbols"].GetListValue().GetValues() {
			out = append(out, p+"."+s.GetStringValue())
		}
	}
	return out
}
