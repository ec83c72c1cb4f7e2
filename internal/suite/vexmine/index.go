package vexmine

import (
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/deps"
)

// Ecosystems are the OSV ecosystems the miner reads manifests of.
var Ecosystems = []string{"Go", "PyPI", "Maven", "npm"}

// record is what the miner keeps of one advisory: its ids and the ranges of one package.
type record struct {
	id        string
	aliases   []string
	key       string // the vulnerability it describes: its CVE, else GHSA, else its id
	cves      []string
	withdrawn bool
	affected  advisory.Affected
	m         *deps.Matcher // the ranges, parsed once
	merr      error         // why they could not be
}

// index finds the advisory records of a package.
type index struct {
	byPkg   map[string][]*record // ecosystem NUL normalised name
	records int
}

func pkgKey(eco, name string) string { return eco + "\x00" + deps.Normalize(eco, name) }

// newIndex reads every record of db once and keeps the packages of the four ecosystems; the
// problems are records the OSV bindings could not read.
func newIndex(db *advisory.DB) (*index, []error, error) {
	ix := &index{byPkg: map[string][]*record{}}
	problems, err := db.Each(func(a *advisory.Advisory) error {
		ix.records++
		ids := append([]string{a.ID}, a.Aliases...)
		var cves, ghsas []string
		for _, id := range ids {
			switch u := strings.ToUpper(id); {
			case strings.HasPrefix(u, "CVE-"):
				cves = append(cves, u)
			case strings.HasPrefix(u, "GHSA-"):
				ghsas = append(ghsas, strings.ToUpper(id[:4])+strings.ToLower(id[4:]))
			}
		}
		slices.Sort(cves)
		cves = slices.Compact(cves)
		slices.Sort(ghsas)
		key := a.ID
		switch {
		case len(cves) > 0:
			key = cves[0]
		case len(ghsas) > 0:
			key = ghsas[0]
		}
		for _, af := range a.Affected {
			if !slices.Contains(Ecosystems, af.Ecosystem) || af.Package == "" {
				continue
			}
			af.PURL, af.Symbols = "", nil // not needed; the imports are kept
			r := &record{id: a.ID, aliases: a.Aliases, key: key, cves: cves, withdrawn: a.IsWithdrawn(), affected: af}
			r.m, r.merr = deps.NewMatcher(af.Ecosystem, af)
			k := pkgKey(af.Ecosystem, af.Package)
			ix.byPkg[k] = append(ix.byPkg[k], r)
		}
		return nil
	})
	return ix, problems, err
}

// of lists the records of a package.
func (ix *index) of(eco, name string) []*record { return ix.byPkg[pkgKey(eco, name)] }
