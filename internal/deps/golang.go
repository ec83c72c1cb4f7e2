package deps

import (
	"bufio"
	"bytes"
	"fmt"
	"go/version"
	"io/fs"
	"path"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// The readers of Go manifests: go.mod (with go.sum below go 1.17) and vendor/modules.txt.

const (
	goMod         = "go/gomod"
	goVendor      = "go/vendormodules"
	goSumBelowGo  = "go1.17" // from this version on go.mod lists every module the build needs
	goStdlib      = "stdlib"
	goLocalPrefix = "./"
)

// goModKey is a module at a version, one dependency each.
type goModKey struct{ name, version string }

// readGoMod reads go.mod: its requirements (at the line of each), each replaced where a replace
// directive names it (at the replace's line), and the Go release it asks for (stdlib, at the go
// or toolchain line). A go.mod below go 1.17 does not list every module its build needs: the
// modules go.sum names beside it are added, as go.sum's, at their lines there.
func readGoMod(fsys fs.FS, p string, content []byte) ([]Dependency, error) {
	f, err := modfile.Parse(p, content, nil)
	if err != nil {
		return nil, err
	}
	mods := map[goModKey]Dependency{}
	dep := func(name, version, manifest string, line int) Dependency {
		return Dependency{Ecosystem: "Go", Name: name, Version: version, Manifest: manifest, Line: line, Module: path.Dir(p), Extractor: goMod}
	}
	for _, r := range f.Require {
		v := strings.TrimPrefix(r.Mod.Version, "v")
		mods[goModKey{r.Mod.Path, v}] = dep(r.Mod.Path, v, p, r.Syntax.Start.Line)
	}
	for _, r := range f.Replace {
		var keys []goModKey
		if r.Old.Version == "" {
			for k, d := range mods {
				if d.Name == r.Old.Path {
					keys = append(keys, k)
				}
			}
		} else if k := (goModKey{r.Old.Path, strings.TrimPrefix(r.Old.Version, "v")}); hasKey(mods, k) {
			keys = append(keys, k)
		}
		for _, k := range keys {
			mods[k] = dep(r.New.Path, strings.TrimPrefix(r.New.Version, "v"), p, r.Syntax.Start.Line)
		}
	}
	goVersion, line := "", 0
	if f.Go != nil && f.Go.Version != "" {
		goVersion, line = f.Go.Version, f.Go.Syntax.Start.Line
	}
	if f.Toolchain != nil && f.Toolchain.Name != "" {
		v, _, _ := strings.Cut(f.Toolchain.Name, "-")
		goVersion, line = strings.TrimPrefix(v, "go"), f.Toolchain.Syntax.Start.Line
	}
	if goVersion != "" {
		mods[goModKey{name: goStdlib}] = dep(goStdlib, goVersion, p, line)
	}
	deduped := map[goModKey]Dependency{} // a replacement may name what another entry names
	for _, d := range mods {
		deduped[goModKey{d.Name, d.Version}] = d
	}
	if goVersion != "" && version.Compare("go"+goVersion, goSumBelowGo) < 0 {
		sum := strings.TrimSuffix(p, ".mod") + ".sum"
		if b, err := fs.ReadFile(fsys, sum); err == nil {
			if sums, err := readGoSum(b); err == nil {
				for k, line := range sums {
					if _, ok := deduped[k]; !ok {
						d := dep(k.name, k.version, sum, line)
						d.Direct = Indirect // go.mod would require it
						deduped[k] = d
					}
				}
			}
		}
	}
	out := make([]Dependency, 0, len(deduped))
	for _, d := range deduped {
		out = append(out, d)
	}
	return out, nil
}

func hasKey(m map[goModKey]Dependency, k goModKey) bool { _, ok := m[k]; return ok }

// readGoSum reads go.sum's modules (their go.mod lines left out) and the line of each; a line
// that is not three fields makes the file unreadable.
func readGoSum(b []byte) (map[goModKey]int, error) {
	out := map[goModKey]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		if sc.Text() == "" {
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			return nil, fmt.Errorf("error reading line: %d", n)
		}
		v := strings.TrimPrefix(f[1], "v")
		if strings.Contains(v, "/go.mod") {
			continue
		}
		out[goModKey{f[0], v}] = n
	}
	return out, sc.Err()
}

// readVendorModules reads vendor/modules.txt: each "# module version" (or its replacement)
// header followed by a package line is a module the vendored build uses, at the header's line.
func readVendorModules(p string, content []byte) ([]Dependency, error) {
	type entry struct {
		name, version string
		line          int
	}
	seen := map[goModKey]bool{}
	var out []Dependency
	var pending *entry
	sc := bufio.NewScanner(bytes.NewReader(content))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "# ") {
			pending = nil
			if name, version, ok := vendorHeader(line); ok {
				pending = &entry{name, version, n}
			}
			continue
		}
		if pending == nil || line == "" || strings.HasPrefix(line, "#") || module.CheckImportPath(line) != nil {
			continue
		}
		if k := (goModKey{pending.name, pending.version}); !seen[k] {
			seen[k] = true
			out = append(out, Dependency{Ecosystem: "Go", Name: pending.name, Version: pending.version, Manifest: p, Line: pending.line,
				Module: path.Dir(path.Dir(p)), Extractor: goVendor})
		}
		pending = nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Dependency) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Version, b.Version)
	})
	return out, nil
}

// vendorHeader reads "# module version [=> replacement version | => ./local]".
func vendorHeader(line string) (string, string, bool) {
	fields := strings.Fields(strings.TrimSpace(strings.TrimPrefix(line, "#")))
	if len(fields) < 2 {
		return "", "", false
	}
	arrow := slices.Index(fields, "=>")
	if arrow < 0 {
		return vendorModule(fields)
	}
	if name, version, ok := vendorModule(fields[arrow+1:]); ok {
		return name, version, true
	}
	if rest := fields[arrow+1:]; len(rest) == 1 && isLocalPath(rest[0]) {
		return vendorModule(fields[:arrow])
	}
	return "", "", false
}

func vendorModule(fields []string) (string, string, bool) {
	if len(fields) != 2 || module.Check(fields[0], fields[1]) != nil {
		return "", "", false
	}
	return fields[0], strings.TrimPrefix(fields[1], "v"), true
}

func isLocalPath(p string) bool {
	for _, pre := range []string{goLocalPrefix, "../", "/", `.\`, `..\`} {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
