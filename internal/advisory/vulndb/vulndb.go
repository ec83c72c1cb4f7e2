// Package vulndb writes OSV records as a local Go vulnerability database in the offline layout
// govulncheck reads with -db file://DIR (golang.org/x/vuln v1.9.0's client, the "v1" schema):
// index/db.json ({"modified"}), index/modules.json ([{"path", "vulns": [{"id", "modified"}]}])
// and ID/<id>.json, one record each in the Go database's OSV subset.
//
// Only the Go ecosystem's affected packages are written. Go's records name a module in
// package.name ("stdlib" for the standard library) and its packages and symbols in
// ecosystem_specific.imports; a record without imports means every package of the module.
// govulncheck's ranges know only introduced and fixed: a last_affected or limit event cannot be
// said, so such a range is written open-ended and the writer says so in Result.Notes.
package vulndb

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/advisory"
)

// Entry is one record as govulncheck reads it (the fields of x/vuln's osv.Entry it uses).
type Entry struct {
	ID        string     `json:"id"`
	Modified  time.Time  `json:"modified"`
	Published time.Time  `json:"published,omitempty"`
	Withdrawn *time.Time `json:"withdrawn,omitempty"`
	Aliases   []string   `json:"aliases,omitempty"`
	Summary   string     `json:"summary,omitempty"`
	Details   string     `json:"details,omitempty"`
	Affected  []Affected `json:"affected"`
}

// Affected is one affected Go module.
type Affected struct {
	Module            Module            `json:"package"`
	Ranges            []Range           `json:"ranges,omitempty"`
	EcosystemSpecific EcosystemSpecific `json:"ecosystem_specific"`
}

// Module is a module path in the Go ecosystem.
type Module struct {
	Path      string `json:"name"`
	Ecosystem string `json:"ecosystem"`
}

// Range is a SEMVER range of introduced / fixed events (versions without "v").
type Range struct {
	Type   string  `json:"type"`
	Events []Event `json:"events"`
}

// Event is one range event.
type Event struct {
	Introduced string `json:"introduced,omitempty"`
	Fixed      string `json:"fixed,omitempty"`
}

// EcosystemSpecific holds the vulnerable packages and symbols.
type EcosystemSpecific struct {
	Packages []Package `json:"imports,omitempty"`
}

// Package is a vulnerable package, optionally limited to symbols, operating systems and
// architectures.
type Package struct {
	Path    string   `json:"path"`
	GOOS    []string `json:"goos,omitempty"`
	GOARCH  []string `json:"goarch,omitempty"`
	Symbols []string `json:"symbols,omitempty"`
}

// Result says what Write wrote.
type Result struct {
	// IDs are the records written, sorted.
	IDs []string
	// Modules are the module paths the records affect, sorted.
	Modules []string
	// Notes are what could not be said exactly (a last_affected event, a record left out).
	Notes []string
}

// safeID is what an id must look like to be a file name under ID/.
var safeID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Convert is a record's Go part, or false when it names no Go package. Withdrawn records are
// converted too (govulncheck shows them); callers that do not want them leave them out.
func Convert(a *advisory.Advisory) (Entry, []string, bool) {
	e := Entry{ID: a.ID, Modified: a.Modified.UTC(), Published: a.Published.UTC(), Aliases: a.Aliases,
		Summary: a.Summary, Details: a.Details}
	if a.IsWithdrawn() {
		w := a.Withdrawn.UTC()
		e.Withdrawn = &w
	}
	var notes []string
	for i, af := range a.Affected {
		if af.Ecosystem != "Go" || af.Package == "" {
			continue
		}
		x := Affected{Module: Module{Path: af.Package, Ecosystem: "Go"}, EcosystemSpecific: EcosystemSpecific{Packages: imports(a, i)}}
		for _, r := range af.Ranges {
			if r.Type != "SEMVER" && r.Type != "ECOSYSTEM" {
				notes = append(notes, fmt.Sprintf("%s: %s: a %s range is left out (govulncheck reads SEMVER ranges)", a.ID, af.Package, r.Type))
				continue
			}
			g := Range{Type: "SEMVER"}
			for _, ev := range r.Events {
				switch {
				case ev.Introduced != "":
					g.Events = append(g.Events, Event{Introduced: bare(ev.Introduced)})
				case ev.Fixed != "":
					g.Events = append(g.Events, Event{Fixed: bare(ev.Fixed)})
				case ev.LastAffected != "":
					notes = append(notes, fmt.Sprintf("%s: %s: last_affected %s cannot be said to govulncheck; the range is left open after it", a.ID, af.Package, ev.LastAffected))
				case ev.Limit != "":
					notes = append(notes, fmt.Sprintf("%s: %s: limit %s cannot be said to govulncheck; the range is left open after it", a.ID, af.Package, ev.Limit))
				}
			}
			x.Ranges = append(x.Ranges, g)
		}
		e.Affected = append(e.Affected, x)
	}
	return e, notes, len(e.Affected) > 0
}

// imports reads the i-th affected package's ecosystem_specific.imports from the whole record.
func imports(a *advisory.Advisory, i int) []Package {
	if a.Record == nil || i >= len(a.Record.GetAffected()) {
		return nil
	}
	es := a.Record.GetAffected()[i].GetEcosystemSpecific()
	if es == nil {
		return nil
	}
	var out []Package
	for _, imp := range es.GetFields()["imports"].GetListValue().GetValues() {
		f := imp.GetStructValue().GetFields()
		p := Package{Path: f["path"].GetStringValue()}
		if p.Path == "" {
			continue
		}
		for _, k := range []struct {
			key string
			dst *[]string
		}{{"symbols", &p.Symbols}, {"goos", &p.GOOS}, {"goarch", &p.GOARCH}} {
			for _, s := range f[k.key].GetListValue().GetValues() {
				if s.GetStringValue() != "" {
					*k.dst = append(*k.dst, s.GetStringValue())
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// bare drops a leading "v" (the Go database writes 1.2.3; GitHub's sometimes v1.2.3).
func bare(v string) string {
	if len(v) > 1 && v[0] == 'v' && v[1] >= '0' && v[1] <= '9' {
		return v[1:]
	}
	return v
}

// Write writes the Go records of advs into dir (created; it must not hold another database),
// each id once (the first record of an id wins), and returns what it wrote.
func Write(dir string, advs []*advisory.Advisory) (Result, error) {
	var res Result
	var entries []Entry
	seen := map[string]bool{}
	for _, a := range advs {
		e, notes, ok := Convert(a)
		res.Notes = append(res.Notes, notes...)
		switch {
		case !ok:
			continue
		case !safeID.MatchString(e.ID):
			res.Notes = append(res.Notes, fmt.Sprintf("%s (%s): an id that is not a file name is left out", e.ID, a.Source))
			continue
		case seen[e.ID]:
			continue
		}
		seen[e.ID] = true
		entries = append(entries, e)
	}
	if err := os.MkdirAll(filepath.Join(dir, "ID"), 0o755); err != nil {
		return res, fmt.Errorf("vulndb: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "index"), 0o755); err != nil {
		return res, fmt.Errorf("vulndb: %w", err)
	}
	type vuln struct {
		ID       string    `json:"id"`
		Modified time.Time `json:"modified"`
	}
	type module struct {
		Path  string `json:"path"`
		Vulns []vuln `json:"vulns"`
	}
	mods := map[string]*module{}
	var last time.Time
	for _, e := range entries {
		if err := writeJSON(filepath.Join(dir, "ID", e.ID+".json"), e); err != nil {
			return res, err
		}
		res.IDs = append(res.IDs, e.ID)
		if e.Modified.After(last) {
			last = e.Modified
		}
		for _, af := range e.Affected {
			m := mods[af.Module.Path]
			if m == nil {
				m = &module{Path: af.Module.Path, Vulns: []vuln{}}
				mods[af.Module.Path] = m
			}
			if !slices.ContainsFunc(m.Vulns, func(v vuln) bool { return v.ID == e.ID }) {
				m.Vulns = append(m.Vulns, vuln{ID: e.ID, Modified: e.Modified})
			}
		}
	}
	list := make([]*module, 0, len(mods))
	for _, m := range mods {
		slices.SortFunc(m.Vulns, func(a, b vuln) int { return strings.Compare(a.ID, b.ID) })
		list = append(list, m)
		res.Modules = append(res.Modules, m.Path)
	}
	slices.SortFunc(list, func(a, b *module) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(res.IDs)
	slices.Sort(res.Modules)
	if err := writeJSON(filepath.Join(dir, "index", "modules.json"), list); err != nil {
		return res, err
	}
	if err := writeJSON(filepath.Join(dir, "index", "db.json"), struct {
		Modified time.Time `json:"modified"`
	}{last}); err != nil {
		return res, err
	}
	return res, nil
}

func writeJSON(p string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("vulndb: %s: %w", p, err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return fmt.Errorf("vulndb: %w", err)
	}
	return nil
}
