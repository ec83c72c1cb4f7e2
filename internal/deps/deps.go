// Package deps finds a project's dependency facts on a snapshot with readers of its own for the
// manifests and lockfiles of four ecosystems (go.mod with go.sum, vendor/modules.txt,
// requirements*.txt, poetry.lock, Pipfile.lock, uv.lock, pyproject.toml, setup.py, pom.xml with
// its local parents, Gradle lockfiles, each read whole up to MaxWhole; package-lock.json and
// npm-shrinkwrap.json read as a stream of any size in bounded memory: npmLock), reading what
// osv-scalibr v0.5.3's extractors read (tests compare the two on their own test files):
// package, version or range, manifest and line, direct or indirect, in every module of a
// monorepo; and checks versions against OSV ranges with scalibr's semantic package, per
// ecosystem (the one part of scalibr linked: its extractors brought disk-image readers, gRPC
// and cloud clients into the binary for this).
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

// skipDirs are directories Extract does not enter: other projects' copies and tool state.
func skipDir(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "site-packages", "__pycache__", ".tox", "target", "build", ".gradle":
		return true
	}
	return false
}

// FS is what Extract reads: a tree with ReadDir and Stat (a snapshot's FS()).
type FS interface {
	fs.FS
	fs.ReadDirFS
	fs.StatFS
}

// reader reads one kind of manifest: its name (the osv-scalibr extractor whose reading it
// follows, named in problems), the files it reads, and how.
type reader struct {
	name string
	want func(p string) bool
	read func(fsys fs.FS, p string, content []byte) ([]Dependency, error)
}

// plain is a reader of the file's content alone.
func plain(f func(p string, b []byte) ([]Dependency, error)) func(fs.FS, string, []byte) ([]Dependency, error) {
	return func(_ fs.FS, p string, b []byte) ([]Dependency, error) { return f(p, b) }
}

// readers are the manifest readers Extract runs, all offline.
func readers() []reader {
	base := func(names ...string) func(string) bool {
		return func(p string) bool { return slices.Contains(names, path.Base(p)) }
	}
	return []reader{
		{goMod, base("go.mod"), readGoMod},
		{goVendor, func(p string) bool { return p == "vendor/modules.txt" || strings.HasSuffix(p, "/vendor/modules.txt") }, plain(readVendorModules)},
		{pyRequirements, func(p string) bool { return path.Ext(p) == ".txt" && strings.Contains(path.Base(p), "requirements") }, readRequirements},
		{pyPoetryLock, base("poetry.lock"), plain(readPoetryLock)},
		{pyPipfileLock, base("Pipfile.lock"), plain(readPipfileLock)},
		{pyUVLock, base("uv.lock"), plain(readUVLock)},
		{pyProject, base("pyproject.toml"), plain(readPyProject)},
		{pySetup, base("setup.py"), plain(readSetupPy)},
		{javaPom, func(p string) bool { return path.Base(p) == "pom.xml" || path.Ext(p) == ".pom" }, readPOM},
		{javaGradle, base("buildscript-gradle.lockfile", "gradle.lockfile"), plain(readGradleLock)},
	}
}

// Extract finds the dependencies of every module under the root of fsys. Symbolic links are
// not followed; vendored trees are read only through vendor/modules.txt. A manifest that cannot
// be read is a Problem; only a failing walk or a cancelled ctx is an error.
func Extract(ctx context.Context, fsys FS) (*Facts, error) {
	rs := readers()
	facts := &Facts{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
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
					facts.read(fsys, rs, path.Join(p, "modules.txt"), nil)
				}
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			facts.read(fsys, rs, p, d)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dependencies: %w", err)
	}
	facts.settle(fsys)
	return facts, nil
}

// read runs the reader that wants file p (d nil: a file the walk did not list, read if it is
// there).
func (facts *Facts) read(fsys FS, rs []reader, p string, d fs.DirEntry) {
	if isNPMLock(p) {
		facts.readNPMLock(fsys, p)
		return
	}
	for _, r := range rs {
		if !r.want(p) {
			continue
		}
		info, err := fs.Stat(fsys, p)
		if d == nil && errors.Is(err, fs.ErrNotExist) {
			return // a vendor directory without modules.txt
		}
		if err != nil {
			facts.Problems = append(facts.Problems, &Problem{File: p, Err: err})
			return
		}
		if !slices.Contains(facts.Manifests, p) {
			facts.Manifests = append(facts.Manifests, p)
		}
		if info.Size() > MaxWhole {
			facts.Problems = append(facts.Problems, &Problem{File: p, Extractor: r.name,
				Err: fmt.Errorf("not read: %s, over the %s a manifest of this kind is read whole", mib(info.Size()), mib(MaxWhole))})
			return
		}
		b, err := readWhole(fsys, p)
		if err != nil {
			facts.Problems = append(facts.Problems, &Problem{File: p, Err: err})
			return
		}
		deps, err := r.read(fsys, p, b)
		if err != nil {
			facts.Problems = append(facts.Problems, &Problem{File: p, Extractor: r.name, Err: err})
			continue
		}
		facts.Deps = append(facts.Deps, deps...)
	}
}

// MaxWhole is the largest manifest Extract reads whole into memory; a larger one is a Problem
// saying so. npm lockfiles, the manifests that grow that large, are read as a stream whatever
// their size (npmLock).
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

// readWhole reads p (at most MaxWhole bytes) through open.
func readWhole(fsys FS, p string) ([]byte, error) {
	f, err := open(fsys, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxWhole))
}

// isNPMLock reports whether p is an npm lockfile of the project (not one inside node_modules).
func isNPMLock(p string) bool {
	base := path.Base(p)
	return (base == "package-lock.json" || base == "npm-shrinkwrap.json") && !slices.Contains(strings.Split(path.Dir(p), "/"), "node_modules")
}

// readNPMLock reads an npm lockfile as a stream (npmLock). npm-shrinkwrap.json wins over a
// package-lock.json beside it. A lockfile read only in part says how much.
func (facts *Facts) readNPMLock(fsys FS, p string) {
	if path.Base(p) == "package-lock.json" {
		if _, err := fs.Stat(fsys, path.Join(path.Dir(p), "npm-shrinkwrap.json")); err == nil {
			return
		}
	}
	info, err := fs.Stat(fsys, p)
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

// readNPMLockFile is npmLock over a lockfile's content (ExtractFile).
func readNPMLockFile(p string, content []byte) ([]Dependency, error) {
	deps, _, err := npmLock(bytes.NewReader(content), p)
	return deps, err
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

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
		case pyRequirements, pyProject, pySetup, javaPom:
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
		case goMod:
			if d.Name != "stdlib" && d.Line > 0 && d.Line <= len(lines(d.Manifest)) {
				d.Direct = Direct
				if strings.Contains(lines(d.Manifest)[d.Line-1], "// indirect") {
					d.Direct = Indirect
				}
			}
		case pyRequirements, pySetup, javaPom:
			d.Direct = Direct
		case npmLockName:
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
		case pyPoetryLock, pyPipfileLock, pyUVLock, javaGradle:
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
