// Package advisory reads OSV vulnerability records offline, from a directory tree (the GitHub
// Advisory Database layout, the Go vulnerability database layout, or any folder of .json files)
// or an osv.dev export zip (all.zip), and finds them by id or alias (CVE, GHSA, GO- ...).
//
// Open indexes every record (id, aliases, withdrawn) without decoding it whole; Find reads the
// records it returns with the OSV schema bindings. Records are untrusted input: a malformed one
// is a problem of its file (FILE:LINE), reported and skipped, never fatal.
package advisory

import (
	"strings"
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
	// Refs are the references with their types (FIX, WEB, ADVISORY, REPORT, ...), in order.
	Refs []Reference
	// CWEs are the record's database_specific.cwe_ids (the GitHub Advisory Database's), in order.
	CWEs []string
	// Source is where the record was read: FILE, or ZIP:ENTRY for a record in a zip.
	Source string
	// Record is the whole record, as the OSV schema bindings read it.
	Record *osvschema.Vulnerability
}

// IsWithdrawn reports whether the record was withdrawn.
func (a *Advisory) IsWithdrawn() bool { return !a.Withdrawn.IsZero() }

// Reference is one of a record's references.
type Reference struct {
	Type string // OSV's: FIX, WEB, ADVISORY, REPORT, PACKAGE, ...
	URL  string
}

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
	// Imports are the same symbols by package: the import path and its symbols (functions,
	// and methods as Type.Method).
	Imports []Import
	// IntroducedRange and FixedRange are OSS-Fuzz's "A:B" commit ranges (in ecosystem_specific
	// or database_specific) when bisection stopped at a range instead of one commit: the
	// commit is one of A..B (A excluded, B included). A may be "unknown".
	IntroducedRange, FixedRange string
}

// Import is one package of the Go database's ecosystem_specific.imports.
type Import struct {
	Path    string
	Symbols []string
}

// Range is one OSV range: its type (SEMVER, ECOSYSTEM, GIT) and events in order.
type Range struct {
	Type   string
	Repo   string // the repository of a GIT range
	Events []Event
}

// Event is one OSV range event; exactly one field is set.
type Event struct {
	Introduced, Fixed, LastAffected, Limit string
}

// EventsText writes a range's events in order: "introduced 0, fixed 1.3.0".
func (r Range) EventsText() string {
	var evs []string
	for _, e := range r.Events {
		switch {
		case e.Introduced != "":
			evs = append(evs, "introduced "+e.Introduced)
		case e.Fixed != "":
			evs = append(evs, "fixed "+e.Fixed)
		case e.LastAffected != "":
			evs = append(evs, "last affected "+e.LastAffected)
		case e.Limit != "":
			evs = append(evs, "limit "+e.Limit)
		}
	}
	return strings.Join(evs, ", ")
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
		a.Refs = append(a.Refs, Reference{Type: r.GetType().String(), URL: r.GetUrl()})
	}
	for _, c := range v.GetDatabaseSpecific().GetFields()["cwe_ids"].GetListValue().GetValues() {
		if s := c.GetStringValue(); s != "" {
			a.CWEs = append(a.CWEs, s)
		}
	}
	for _, af := range v.GetAffected() {
		x := Affected{Ecosystem: af.GetPackage().GetEcosystem(), Package: af.GetPackage().GetName(),
			PURL: af.GetPackage().GetPurl(), Versions: af.GetVersions()}
		for _, r := range af.GetRanges() {
			rg := Range{Type: r.GetType().String(), Repo: r.GetRepo()}
			for _, e := range r.GetEvents() {
				rg.Events = append(rg.Events, Event{Introduced: e.GetIntroduced(), Fixed: e.GetFixed(),
					LastAffected: e.GetLastAffected(), Limit: e.GetLimit()})
			}
			x.Ranges = append(x.Ranges, rg)
		}
		x.Imports = goImports(af)
		for _, imp := range x.Imports {
			for _, sym := range imp.Symbols {
				x.Symbols = append(x.Symbols, imp.Path+"."+sym)
			}
		}
		x.IntroducedRange = specific(af, "introduced_range")
		x.FixedRange = specific(af, "fixed_range")
		a.Affected = append(a.Affected, x)
	}
	return a
}

// goImports reads the Go database's ecosystem_specific: {"imports": [{"path": P, "symbols": [S]}]}.
func goImports(af *osvschema.Affected) []Import {
	var out []Import
	for _, imp := range af.GetEcosystemSpecific().GetFields()["imports"].GetListValue().GetValues() {
		f := imp.GetStructValue().GetFields()
		x := Import{Path: f["path"].GetStringValue()}
		for _, s := range f["symbols"].GetListValue().GetValues() {
			x.Symbols = append(x.Symbols, s.GetStringValue())
		}
		out = append(out, x)
	}
	return out
}

// specific is a string field of an affected package's ecosystem_specific, else of its
// database_specific (OSS-Fuzz has written its ranges in both).
func specific(af *osvschema.Affected, name string) string {
	if s := af.GetEcosystemSpecific().GetFields()[name].GetStringValue(); s != "" {
		return s
	}
	return af.GetDatabaseSpecific().GetFields()[name].GetStringValue()
}
