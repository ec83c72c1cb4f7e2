// Package deps finds a project's dependency facts on a snapshot with osv-scalibr's offline
// extractors (go.mod, vendor/modules.txt, requirements*.txt, poetry.lock, Pipfile.lock,
// uv.lock, pyproject.toml, setup.py, pom.xml, Gradle lockfiles, each read whole up to MaxWhole)
// and its own streaming reader of npm lockfiles (package-lock.json, npm-shrinkwrap.json, of any
// size in bounded memory; npmLock): package,
// version or range, manifest and line, direct or indirect, in every module of a monorepo; and
// checks versions against OSV ranges with scalibr's semantic package, per ecosystem.
package deps

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
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

// Version is bumped whenever the facts found for the same tree may change.
const Version = "1"

// How a dependency is declared.
const (
	Direct   = "direct"   // the project's own manifest names it
	Indirect = "indirect" // only a lockfile (or go.mod's // indirect) names it
	Unknown  = ""         // the manifest does not say, and no manifest beside it does
)

// Dependency is one package a manifest or lockfile names.
type Dependency struct {
	Ecosystem string `json:"ecosystem"` // OSV's: Go, PyPI, Maven, npm
	Name      string `json:"name"`      // module path, PyPI name, group:artifact, npm name
	// Version is the pinned or resolved version; "" when the manifest gives only a range.
	Version string `json:"version,omitempty"`
	// Range is the requirement as written when it is not an exact pin (">=2.0,<3").
	Range    string `json:"range,omitempty"`
	Manifest string `json:"manifest"`       // slash path in the tree
	Line     int    `json:"line,omitempty"` // 0 when unknown
	Direct   string `json:"direct,omitempty"`
	// Module is the directory of the manifest: one module of a monorepo.
	Module    string   `json:"module"`
	Scopes    []string `json:"scopes,omitempty"` // dev, test, optional groups...
	Extractor string   `json:"extractor"`        // the osv-scalibr plugin
}

// Facts are the dependencies of a tree.
type Facts struct {
	Deps []Dependency
	// Problems are manifests that could not be read: FILE: msg (FILE:LINE when known).
	Problems []error
	// Manifests are the files read, sorted.
	Manifests []string
}

// Problem is a manifest that could not be read.
type Problem struct {
	File      string
	Extractor string // the osv-scalibr plugin that failed, when one did
	Err       error
}

func (p *Problem) Error() string {
	if p.Extractor != "" {
		msg := strings.TrimPrefix(p.Err.Error(), "could not extract: ")
		if strings.HasPrefix(msg, p.File+":") { // the parser placed it already: FILE:LINE:COL: msg
			return msg + " (" + p.Extractor + ")"
		}
		return fmt.Sprintf("%s: %s (%s)", p.File, msg, p.Extractor)
	}
	return fmt.Sprintf("%s: %v", p.File, p.Err)
}

func (p *Problem) Unwrap() error { return p.Err }

// quietScalibr silences osv-scalibr's logger, which is process-wide and writes to stderr by
// default: library code does not print, and what matters (a manifest that cannot be read)
// comes back as a Problem. This is the package's one global, because scalibr's logger is one.
var quietScalibr sync.Once

type discard struct{}

func (discard) Errorf(string, ...any) {}
func (discard) Warnf(string, ...any)  {}
func (discard) Infof(string, ...any)  {}
func (discard) Debugf(string, ...any) {}
func (discard) Error(...any)          {}
func (discard) Warn(...any)           {}
func (discard) Info(...any)           {}
func (discard) Debug(...any)          {}

// extractors are the scalibr plugins Extract runs, all offline.
func extractors() ([]filesystem.Extractor, error) {
	cfg := &cpb.PluginConfig{}
	var out []filesystem.Extractor
	for _, mk := range []func(*cpb.PluginConfig) (filesystem.Extractor, error){
		gomod.New, vendormodules.New, requirements.New, poetrylock.New, pipfilelock.New, uvlock.New,
		pyprojecttoml.New, setup.New, pomxml.New, gradlelockfile.New,
	} {
		e, err := mk(cfg)
		if err != nil {
			return nil, fmt.Errorf("osv-scalibr extractor: %w", err)
		}
		out = append(out, e)
	}
	return out, nil
}

// skipDirs are directories Extract does not enter: other projects' copies and tool state.
func skipDir(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "site-packages", "__pycache__", ".tox", "target", "build", ".gradle":
		return true
	}
	return false
}

// FS is what Extract reads: a tree with ReadDir and Stat (a snapshot's FS()).
type FS = scalibrfs.FS

// Extract finds the dependencies of every module under the root of fsys. Symbolic links are
// not followed; vendored trees are read only through vendor/modules.txt. A manifest that cannot
// be read is a Problem; only a failing walk or a cancelled ctx is an error.
func Extract(ctx context.Context, fsys FS) (*Facts, error) {
	quietScalibr.Do(func() { scalibrlog.SetLogger(discard{}) })
	exs, err := extractors()
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
					facts.read(ctx, fsys, exs, path.Join(p, "modules.txt"), nil)
				}
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		facts.read(ctx, fsys, exs, p, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dependencies: %w", err)
	}
	facts.settle(fsys)
	return facts, nil
}

// fileAPI is what an extractor's FileRequired sees.
type fileAPI struct {
	fsys fs.FS
	path string
	d    fs.DirEntry
}

func (f fileAPI) Path() string { return f.path }
func (f fileAPI) Stat() (fs.FileInfo, error) {
	if f.d != nil {
		return f.d.Info()
	}
	return fs.Stat(f.fsys, f.path)
}

// MaxWhole is the largest manifest Extract hands osv-scalibr's extractors, which read a file
// whole into memory; a larger one is a Problem saying so. npm lockfiles, the manifests that
// grow that large, are read as a stream whatever their size (npmLock).
const MaxWhole = 32 << 20

// Streamer opens a file of any size as a stream, with its size: a snapshot's FS has it (its
// reads charged to the unit's budget), where Open refuses files over the per-file read limit.
type Streamer interface {
	Stream(name string) (io.ReadCloser, int64, error)
}

// open opens p for reading whatever its size when fsys can stream, else through Open.
func open(fsys FS, p string) (io.ReadCloser, error) {
	if s, ok := fsys.(Streamer); ok {
		f, _, err := s.Stream(p)
		return f, err
	}
	return fsys.Open(p)
}

// read runs the extractors that want file p.
func (facts *Facts) read(ctx context.Context, fsys FS, exs []filesystem.Extractor, p string, d fs.DirEntry) {
	api := fileAPI{fsys: fsys, path: p, d: d}
	if isNPMLock(p) {
		facts.readNPMLock(fsys, api, p)
		return
	}
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
		if info.Size() > MaxWhole {
			facts.Problems = append(facts.Problems, &Problem{File: p, Extractor: e.Name(),
				Err: fmt.Errorf("not read: %s, over the %s a manifest of this kind is read whole", mib(info.Size()), mib(MaxWhole))})
			return
		}
		f, err := open(fsys, p)
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
			facts.Deps = append(facts.Deps, fromPackage(pkg, p, e.Name())...)
		}
	}
}

// isNPMLock reports whether p is an npm lockfile of the project (not one inside node_modules).
func isNPMLock(p string) bool {
	base := path.Base(p)
	return (base == "package-lock.json" || base == "npm-shrinkwrap.json") && !slices.Contains(strings.Split(path.Dir(p), "/"), "node_modules")
}

// readNPMLock reads an npm lockfile as a stream (npmLock). npm-shrinkwrap.json wins over a
// package-lock.json beside it. A lockfile read only in part says how much.
func (facts *Facts) readNPMLock(fsys FS, api fileAPI, p string) {
	if path.Base(p) == "package-lock.json" {
		if _, err := fs.Stat(fsys, path.Join(path.Dir(p), "npm-shrinkwrap.json")); err == nil {
			return
		}
	}
	info, err := api.Stat()
	if err != nil {
		facts.Problems = append(facts.Problems, &Problem{File: p, Err: err})
		return
	}
	facts.Manifests = append(facts.Manifests, p)
	f, err := open(fsys, p)
	if err != nil {
		facts.Problems = append(facts.Problems, &Problem{File: p, Err: err})
		return
	}
	defer f.Close()
	deps, read, err := npmLock(f, p)
	if err != nil {
		if read < info.Size() {
			err = fmt.Errorf("read the first %s of %s, then: %w", mib(read), mib(info.Size()), err)
		}
		facts.Problems = append(facts.Problems, &Problem{File: p, Extractor: npmLockName, Err: err})
	}
	facts.Deps = append(facts.Deps, deps...)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// fromPackage turns one scalibr package into dependencies (pyproject.toml's project package
// into the dependencies it declares).
func fromPackage(pkg *extractor.Package, manifest, plugin string) []Dependency {
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

// requirementRE splits a PEP 508 requirement into its name and the rest.
func splitRequirement(req string) (string, string) {
	re := regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$`)
	m := re.FindStringSubmatch(req)
	if m == nil {
		return "", ""
	}
	rest := m[3]
	if i := strings.IndexByte(rest, ';'); i >= 0 { // environment markers
		rest = rest[:i]
	}
	return m[1], strings.TrimSpace(rest)
}

// settle fills what the extractors leave out: lines (found in the manifest's text), and
// direct or indirect from the manifest kind and the manifests beside a lockfile.
func (facts *Facts) settle(fsys fs.FS) {
	declared := map[string]map[string]bool{} // module -> normalised names its manifests declare
	hasManifest := map[string]bool{}
	for _, d := range facts.Deps {
		switch d.Extractor {
		case requirements.Name, pyprojecttoml.Name, setup.Name, pomxml.Name:
			if declared[d.Module] == nil {
				declared[d.Module] = map[string]bool{}
			}
			declared[d.Module][Normalize(d.Ecosystem, d.Name)] = true
			hasManifest[d.Module] = true
		}
	}
	for _, m := range facts.Manifests {
		if path.Base(m) == "package.json" || path.Base(m) == "Pipfile" {
			hasManifest[path.Dir(m)] = true
		}
	}
	texts := map[string][]string{}
	lines := func(p string) []string {
		if t, ok := texts[p]; ok {
			return t
		}
		b, err := fs.ReadFile(fsys, p)
		var out []string
		if err == nil {
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				out = append(out, sc.Text())
			}
		}
		texts[p] = out
		return out
	}
	pkgJSON := map[string]map[string]bool{}
	for i := range facts.Deps {
		d := &facts.Deps[i]
		if d.Line == 0 {
			d.Line = findLine(lines(d.Manifest), d)
		}
		if d.Direct != Unknown {
			continue
		}
		switch d.Extractor {
		case gomod.Name:
			if d.Name != "stdlib" && d.Line > 0 && d.Line <= len(lines(d.Manifest)) {
				d.Direct = Direct
				if strings.Contains(lines(d.Manifest)[d.Line-1], "// indirect") {
					d.Direct = Indirect
				}
			}
		case requirements.Name, setup.Name, pomxml.Name:
			d.Direct = Direct
		case packagelockjson.Name:
			names, ok := pkgJSON[d.Module]
			if !ok {
				names = packageJSONDeps(fsys, path.Join(d.Module, "package.json"))
				pkgJSON[d.Module] = names
			}
			if names != nil {
				d.Direct = Indirect
				if names[d.Name] {
					d.Direct = Direct
				}
			}
		case poetrylock.Name, pipfilelock.Name, uvlock.Name, gradlelockfile.Name:
			if hasManifest[d.Module] {
				d.Direct = Indirect
				if declared[d.Module][Normalize(d.Ecosystem, d.Name)] {
					d.Direct = Direct
				}
			}
		}
	}
	slices.Sort(facts.Manifests)
	slices.SortStableFunc(facts.Deps, func(a, b Dependency) int {
		if c := strings.Compare(a.Manifest, b.Manifest); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// findLine is the first line of the manifest that names the dependency (0 when none does).
func findLine(lines []string, d *Dependency) int {
	name := d.Name
	if d.Ecosystem == "Maven" {
		if _, a, ok := strings.Cut(name, ":"); ok {
			name = a // pom.xml has <artifactId>a</artifactId>
		}
	}
	if d.Ecosystem == "npm" {
		for i, l := range lines {
			if strings.Contains(l, `"node_modules/`+d.Name+`"`) {
				return i + 1
			}
		}
	}
	if d.Ecosystem == "PyPI" {
		// A requirement names the package followed by its extras, a version specifier, a marker
		// or a URL: that line, before any other line that merely mentions the name (a quoted
		// "starlette" in a linter's settings further down pyproject.toml, say).
		req := regexp.MustCompile(`(?i)(^|["'\s,\[])` + regexp.QuoteMeta(name) + `\s*(\[[^\]]*\])?\s*(==|>=|<=|~=|!=|<|>|;|@)`)
		for i, l := range lines {
			if req.MatchString(l) {
				return i + 1
			}
		}
	}
	for i, l := range lines {
		if strings.Contains(l, `"`+name+`"`) || strings.Contains(l, ">"+name+"<") {
			return i + 1
		}
	}
	low := strings.ToLower(name)
	for i, l := range lines {
		if strings.Contains(strings.ToLower(l), low) {
			return i + 1
		}
	}
	return 0
}

// packageJSONDeps are the names package.json declares (dependencies of every kind); nil when
// there is no readable package.json.
func packageJSONDeps(fsys fs.FS, p string) map[string]bool {
	f, err := fsys.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var pj map[string]json.RawMessage
	if err := json.NewDecoder(io.LimitReader(f, 8<<20)).Decode(&pj); err != nil {
		return nil
	}
	names := map[string]bool{}
	for _, k := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"} {
		var m map[string]string
		if json.Unmarshal(pj[k], &m) == nil {
			for n := range m {
				names[n] = true
			}
		}
	}
	return names
}

// Normalize is a package name as its ecosystem compares them: PyPI's PEP 503 form
// (lower case, runs of -_. as -), Maven and npm as written, Go as written.
func Normalize(ecosystem, name string) string {
	if ecosystem == "PyPI" {
		var b strings.Builder
		dash := false
		for _, r := range strings.ToLower(name) {
			if r == '-' || r == '_' || r == '.' {
				if !dash {
					b.WriteByte('-')
				}
				dash = true
				continue
			}
			dash = false
			b.WriteRune(r)
		}
		return b.String()
	}
	return name
}

// Find returns the dependencies named name (any ecosystem, names compared as Normalize does;
// a Maven name may be group:artifact or the artifact alone).
func (facts *Facts) Find(name string) []Dependency {
	var out []Dependency
	for _, d := range facts.Deps {
		if Normalize(d.Ecosystem, d.Name) == Normalize(d.Ecosystem, name) ||
			(d.Ecosystem == "Maven" && !strings.Contains(name, ":") && strings.HasSuffix(d.Name, ":"+name)) {
			out = append(out, d)
		}
	}
	return out
}
