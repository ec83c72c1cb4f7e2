package vexmine

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/google/osv-scalibr/semantic"
	"github.com/vulnbench/vulnbench/internal/deps"
)

// testDirs are directory names that make a manifest a test's or an example's.
var testDirs = map[string]bool{"test": true, "tests": true, "testing": true, "testdata": true, "test-data": true,
	"__tests__": true, "spec": true, "e2e": true, "integration-tests": true, "integration_tests": true, "it": true,
	"fixtures": true, "example": true, "examples": true, "_examples": true, "sample": true, "samples": true,
	"demo": true, "demos": true}

// testOnly reports whether every manifest lies in a test or example directory.
func testOnly(ms []ManifestChange) bool {
	for _, x := range ms {
		dir := path.Dir(x.Path)
		in := false
		for _, el := range strings.Split(dir, "/") {
			if testDirs[strings.ToLower(el)] {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return len(ms) > 0
}

// versioned is one package's versions in one manifest version, with the line of each.
type versioned struct {
	eco, name string
	ranged    bool
	scopes    []string
	lines     map[string]int // version -> line
}

func byPackage(x *parsed) map[string]*versioned {
	out := map[string]*versioned{}
	for _, d := range x.deps {
		if !slices.Contains(Ecosystems, d.Ecosystem) || d.Name == "" || d.Ecosystem == "Go" && d.Name == "stdlib" && !toolchainLine(x.lines, d.Line) {
			continue
		}
		v, ranged := deps.Floor(d)
		if v == "" {
			continue
		}
		k := pkgKey(d.Ecosystem, d.Name)
		p := out[k]
		if p == nil {
			p = &versioned{eco: d.Ecosystem, name: d.Name, lines: map[string]int{}}
			out[k] = p
		}
		p.ranged = p.ranged || ranged
		for _, s := range d.Scopes {
			if !slices.Contains(p.scopes, s) {
				p.scopes = append(p.scopes, s)
			}
		}
		if _, ok := p.lines[v]; !ok {
			p.lines[v] = d.Line
		}
	}
	return out
}

// toolchainLine reports whether line n of a go.mod is its toolchain directive: the Go release
// that builds the module, whose standard library it runs. The go directive is the language
// version the code needs, not the one it is built with, and does not count as the stdlib's.
func toolchainLine(lines []string, n int) bool {
	return n > 0 && n <= len(lines) && strings.HasPrefix(strings.TrimSpace(lines[n-1]), "toolchain")
}

// fileBumps are the packages whose versions one manifest change moved: a version gone and
// another come (the highest gone, the lowest come). A package added or removed is no bump.
func fileBumps(p string, old, nw *parsed) ([]*Bump, []lone) {
	before, after := byPackage(old), byPackage(nw)
	var out []*Bump
	var lones []lone
	gone, come := changedLines(old.lines, nw.lines)
	for k, b := range after {
		if before[k] == nil && len(before) > 0 { // a package added (not a whole file added)
			vs := versionsOf(b)
			v := vs[0]
			mc := ManifestChange{Path: p}
			mc.NewLine, mc.New = lineOf(nw.lines, come, b.name, v, b.lines[v])
			lones = append(lones, lone{eco: b.eco, name: b.name, version: v, ranged: b.ranged, mc: mc})
		}
	}
	for k, a := range before {
		b := after[k]
		if b == nil {
			if len(after) > 0 { // a package removed (not a whole file removed)
				vs := versionsOf(a)
				v := vs[len(vs)-1]
				mc := ManifestChange{Path: p}
				mc.OldLine, mc.Old = lineOf(old.lines, gone, a.name, v, a.lines[v])
				lones = append(lones, lone{eco: a.eco, name: a.name, version: v, ranged: a.ranged, gone: true, mc: mc})
			}
			continue
		}
		var removed, added []string
		for v := range a.lines {
			if _, ok := b.lines[v]; !ok {
				removed = append(removed, v)
			}
		}
		for v := range b.lines {
			if _, ok := a.lines[v]; !ok {
				added = append(added, v)
			}
		}
		if len(removed) == 0 || len(added) == 0 {
			continue
		}
		sortVersions(a.eco, removed)
		sortVersions(a.eco, added)
		ov, nv := removed[len(removed)-1], added[0]
		mc := ManifestChange{Path: p}
		mc.OldLine, mc.Old = lineOf(old.lines, gone, a.name, ov, a.lines[ov])
		mc.NewLine, mc.New = lineOf(nw.lines, come, b.name, nv, b.lines[nv])
		scopes := append(slices.Clone(a.scopes), b.scopes...)
		slices.Sort(scopes)
		out = append(out, &Bump{Ecosystem: a.eco, Package: b.name, Old: ov, New: nv, Ranged: a.ranged || b.ranged,
			Scopes: slices.Compact(scopes), Manifests: []ManifestChange{mc}})
	}
	slices.SortFunc(out, func(x, y *Bump) int { return strings.Compare(x.Package, y.Package) })
	slices.SortFunc(lones, func(x, y lone) int { return strings.Compare(x.name, y.name) })
	return out, lones
}

// lone is a package one manifest change removed (gone) or added, at its version there.
type lone struct {
	eco, name, version string
	ranged, gone       bool
	mc                 ManifestChange
}

// versionsOf are a package's versions in a manifest, in the ecosystem's order.
func versionsOf(x *versioned) []string {
	vs := make([]string, 0, len(x.lines))
	for v := range x.lines {
		vs = append(vs, v)
	}
	sortVersions(x.eco, vs)
	return vs
}

// changedLines are the line numbers (1-based) present on one side only, by text.
func changedLines(old, nw []string) (gone, come []int) {
	count := map[string]int{}
	for _, l := range nw {
		count[l]++
	}
	for i, l := range old {
		if count[l] > 0 {
			count[l]--
			continue
		}
		gone = append(gone, i+1)
	}
	count = map[string]int{}
	for _, l := range old {
		count[l]++
	}
	for i, l := range nw {
		if count[l] > 0 {
			count[l]--
			continue
		}
		come = append(come, i+1)
	}
	return gone, come
}

// lineOf is the manifest line that states version v of package name: a changed line holding
// both (a version on its own line, as a pom.xml property's, when none does), else the parser's
// line for the package.
func lineOf(lines []string, changed []int, name, v string, fallback int) (int, string) {
	names := nameForms(name)
	var versionOnly int
	for _, n := range changed {
		l := lines[n-1]
		if !statesVersion(l, v) {
			continue
		}
		low := strings.ToLower(l)
		for _, f := range names {
			if strings.Contains(low, f) {
				return n, strings.TrimSpace(l)
			}
		}
		if versionOnly == 0 {
			versionOnly = n
		}
	}
	if fallback > 0 && fallback <= len(lines) && statesVersion(lines[fallback-1], v) {
		return fallback, strings.TrimSpace(lines[fallback-1])
	}
	if versionOnly > 0 {
		return versionOnly, strings.TrimSpace(lines[versionOnly-1])
	}
	if fallback > 0 && fallback <= len(lines) {
		return fallback, strings.TrimSpace(lines[fallback-1])
	}
	return 0, ""
}

// statesVersion reports whether line holds version v as a whole (optionally after a v): not
// 1.2.30 for 1.2.3, nor 11.2.3.
func statesVersion(line, v string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], v)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(v)
		before := at
		if before > 0 && line[before-1] == 'v' {
			before--
		}
		if (before == 0 || !versionChar(line[before-1])) && (end == len(line) || !versionChar(line[end])) {
			return true
		}
		i = at + 1
	}
}

func versionChar(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '.'
}

// nameForms are the lower-case ways a manifest line may write a package name: as given, a
// Maven artifact alone, a PyPI name with - and _ swapped.
func nameForms(name string) []string {
	low := strings.ToLower(name)
	out := []string{low}
	if _, a, ok := strings.Cut(low, ":"); ok {
		out = append(out, a)
	}
	if strings.ContainsAny(low, "-_") {
		out = append(out, strings.ReplaceAll(low, "-", "_"), strings.ReplaceAll(low, "_", "-"))
	}
	return out
}

// mergeBumps adds bs to acc, one bump per package and versions with every manifest that made it.
func mergeBumps(acc []*Bump, bs []*Bump) []*Bump {
	for _, b := range bs {
		i := slices.IndexFunc(acc, func(a *Bump) bool {
			return a.Ecosystem == b.Ecosystem && deps.Normalize(a.Ecosystem, a.Package) == deps.Normalize(b.Ecosystem, b.Package) && a.Old == b.Old && a.New == b.New
		})
		if i < 0 {
			acc = append(acc, b)
			continue
		}
		acc[i].Manifests = append(acc[i].Manifests, b.Manifests...)
		acc[i].Ranged = acc[i].Ranged || b.Ranged
		acc[i].Scopes = slices.Compact(slices.Sorted(slices.Values(append(acc[i].Scopes, b.Scopes...))))
	}
	return acc
}

// sortVersions sorts versions in the ecosystem's order (those it cannot read by text, first).
func sortVersions(eco string, vs []string) {
	slices.SortFunc(vs, func(a, b string) int {
		c, err := compare(eco, a, b)
		if err != nil {
			return strings.Compare(a, b)
		}
		return c
	})
}

// compare orders two versions of ecosystem eco.
func compare(eco, a, b string) (int, error) {
	va, err := semantic.Parse(strings.TrimPrefix(a, "v"), eco)
	if err != nil {
		return 0, fmt.Errorf("version %q of %s: %w", a, eco, err)
	}
	return va.CompareStr(strings.TrimPrefix(b, "v"))
}
