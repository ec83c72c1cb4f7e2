package deps

// osv-scalibr v0.5.3's extractors as deps read manifests with them before it had readers of its
// own: the reference TestSameAsScalibr compares the readers with. Test code only: scalibr is
// not linked into vulnbench.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	cpb "github.com/google/osv-scalibr/binary/proto/config_go_proto"
	"github.com/google/osv-scalibr/extractor"
	"github.com/google/osv-scalibr/extractor/filesystem"
	"github.com/google/osv-scalibr/extractor/filesystem/language/golang/gomod"
	"github.com/google/osv-scalibr/extractor/filesystem/language/golang/vendormodules"
	"github.com/google/osv-scalibr/extractor/filesystem/language/java/gradlelockfile"
	"github.com/google/osv-scalibr/extractor/filesystem/language/java/gradleversioncatalog"
	"github.com/google/osv-scalibr/extractor/filesystem/language/java/javalockfile"
	"github.com/google/osv-scalibr/extractor/filesystem/language/java/pomxml"
	"github.com/google/osv-scalibr/extractor/filesystem/language/javascript/packagelockjson"
	"github.com/google/osv-scalibr/extractor/filesystem/language/javascript/pnpmlock"
	"github.com/google/osv-scalibr/extractor/filesystem/language/javascript/yarnlock"
	"github.com/google/osv-scalibr/extractor/filesystem/language/python/pipfilelock"
	"github.com/google/osv-scalibr/extractor/filesystem/language/python/poetrylock"
	"github.com/google/osv-scalibr/extractor/filesystem/language/python/pyprojecttoml"
	"github.com/google/osv-scalibr/extractor/filesystem/language/python/requirements"
	"github.com/google/osv-scalibr/extractor/filesystem/language/python/setup"
	"github.com/google/osv-scalibr/extractor/filesystem/language/python/uvlock"
	scalibrfs "github.com/google/osv-scalibr/fs"
	scalibrlog "github.com/google/osv-scalibr/log"
)

// oldQuiet silences osv-scalibr's logger, which is process-wide and writes to stderr by
// default: library code does not print, and what matters (a manifest that cannot be read)
// comes back as a Problem. This is the package's one global, because scalibr's logger is one.
var oldQuiet sync.Once

type oldDiscard struct{}

func (oldDiscard) Errorf(string, ...any) {}
func (oldDiscard) Warnf(string, ...any)  {}
func (oldDiscard) Infof(string, ...any)  {}
func (oldDiscard) Debugf(string, ...any) {}
func (oldDiscard) Error(...any)          {}
func (oldDiscard) Warn(...any)           {}
func (oldDiscard) Info(...any)           {}
func (oldDiscard) Debug(...any)          {}

// extractors are the scalibr plugins Extract runs, all offline.
func oldExtractors() ([]filesystem.Extractor, error) {
	cfg := &cpb.PluginConfig{}
	var out []filesystem.Extractor
	for _, mk := range []func(*cpb.PluginConfig) (filesystem.Extractor, error){
		gomod.New, vendormodules.New, requirements.New, poetrylock.New, pipfilelock.New, uvlock.New,
		pyprojecttoml.New, setup.New, pomxml.New, gradlelockfile.New, packagelockjson.New,
	} {
		e, err := mk(cfg)
		if err != nil {
			return nil, fmt.Errorf("osv-scalibr extractor: %w", err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Extract finds the dependencies of every module under the root of fsys. Symbolic links are
// not followed; vendored trees are read only through vendor/modules.txt. A manifest that cannot
// be read is a Problem; only a failing walk or a cancelled ctx is an error.
func scalibrExtract(ctx context.Context, fsys scalibrfs.FS) (*Facts, error) {
	oldQuiet.Do(func() { scalibrlog.SetLogger(oldDiscard{}) })
	exs, err := oldExtractors()
	if err != nil {
		return nil, err
	}
	facts := &Facts{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			facts.Problems = append(facts.Problems, &Problem{File: p, Err: err})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if d.IsDir() {
			if p != "." && (skipDir(d.Name()) || d.Name() == "vendor") {
				if d.Name() == "vendor" {
					facts.oldRead(ctx, fsys, exs, path.Join(p, "modules.txt"), nil)
				}
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		facts.oldRead(ctx, fsys, exs, p, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dependencies: %w", err)
	}
	facts.settle(fsys)
	return facts, nil
}

// fileAPI is what an extractor's FileRequired sees.
type oldFileAPI struct {
	fsys fs.FS
	path string
	d    fs.DirEntry
}

func (f oldFileAPI) Path() string { return f.path }
func (f oldFileAPI) Stat() (fs.FileInfo, error) {
	if f.d != nil {
		return f.d.Info()
	}
	return fs.Stat(f.fsys, f.path)
}

// read runs the extractors that want file p.
func (facts *Facts) oldRead(ctx context.Context, fsys scalibrfs.FS, exs []filesystem.Extractor, p string, d fs.DirEntry) {
	api := oldFileAPI{fsys: fsys, path: p, d: d}
	for _, e := range exs {
		if !e.FileRequired(api) {
			continue
		}
		info, err := api.Stat()
		if err != nil {
			if d == nil && errors.Is(err, fs.ErrNotExist) {
				return // a vendor directory without modules.txt
			}
			facts.Problems = append(facts.Problems, &Problem{File: p, Err: err})
			return
		}
		if !slices.Contains(facts.Manifests, p) {
			facts.Manifests = append(facts.Manifests, p)
		}
		f, err := fsys.Open(p)
		if err != nil {
			facts.Problems = append(facts.Problems, &Problem{File: p, Err: err})
			return
		}
		inv, err := e.Extract(ctx, &filesystem.ScanInput{FS: fsys, Path: p, Info: info, Reader: f})
		f.Close()
		if err != nil {
			facts.Problems = append(facts.Problems, &Problem{File: p, Extractor: e.Name(), Err: err})
			continue
		}
		for _, pkg := range inv.Packages {
			facts.Deps = append(facts.Deps, oldFromPackage(pkg, p, e.Name())...)
		}
	}
}

// fromPackage turns one scalibr package into dependencies (pyproject.toml's project package
// into the dependencies it declares).
func oldFromPackage(pkg *extractor.Package, manifest, plugin string) []Dependency {
	d := Dependency{Name: pkg.Name, Version: pkg.Version, Manifest: manifest, Module: path.Dir(manifest), Extractor: plugin}
	if loc := pkg.Location.Descriptor; loc != nil && loc.File != nil {
		d.Line = loc.File.LineNumber
		// Below go 1.17 scalibr completes go.mod with go.sum's modules: such a module is named
		// by go.sum (at that line), and it is indirect, or go.mod would require it.
		if plugin == gomod.Name && path.Base(loc.File.Path) == "go.sum" {
			d.Manifest, d.Direct = loc.File.Path, Indirect
		}
	}
	switch plugin {
	case gomod.Name, vendormodules.Name:
		d.Ecosystem = "Go"
		if plugin == vendormodules.Name {
			d.Module = path.Dir(d.Module)
		}
	case pomxml.Name, gradlelockfile.Name, gradleversioncatalog.Name:
		d.Ecosystem = "Maven"
	case packagelockjson.Name, yarnlock.Name, pnpmlock.Name:
		d.Ecosystem = "npm"
	default:
		d.Ecosystem = "PyPI"
	}
	switch m := pkg.Metadata.(type) {
	case *requirements.Metadata:
		if m.VersionComparator != "==" && m.VersionComparator != "===" {
			d.Range, d.Version = strings.TrimSpace(strings.TrimPrefix(m.Requirement, pkg.Name)), ""
		}
	case *javalockfile.Metadata:
		d.Scopes = m.DepGroups()
	case *pyprojecttoml.Metadata:
		var out []Dependency
		add := func(req, scope string) {
			name, rng := splitRequirement(req)
			if name == "" {
				return
			}
			x := Dependency{Ecosystem: "PyPI", Name: name, Range: rng, Manifest: manifest, Module: path.Dir(manifest),
				Direct: Direct, Extractor: plugin}
			if v, ok := strings.CutPrefix(rng, "=="); ok && !strings.ContainsAny(v, ",*;") {
				x.Version, x.Range = strings.TrimSpace(v), ""
			}
			if scope != "" {
				x.Scopes = []string{scope}
			}
			out = append(out, x)
		}
		for _, r := range m.Dependencies {
			add(r, "")
		}
		for g, rs := range m.OptionalDependencies {
			for _, r := range rs {
				add(r, g)
			}
		}
		slices.SortStableFunc(out, func(a, b Dependency) int { return strings.Compare(a.Name, b.Name) })
		return out
	}
	if sc, ok := pkg.Metadata.(interface{ DepGroups() []string }); ok && d.Scopes == nil {
		d.Scopes = sc.DepGroups()
	}
	return []Dependency{d}
}
