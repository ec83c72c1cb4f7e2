package deps

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	cpb "github.com/google/osv-scalibr/binary/proto/config_go_proto"
	"github.com/google/osv-scalibr/extractor/filesystem"
	"github.com/google/osv-scalibr/extractor/filesystem/language/golang/gomod"
	"github.com/google/osv-scalibr/extractor/filesystem/language/java/gradlelockfile"
	"github.com/google/osv-scalibr/extractor/filesystem/language/java/gradleversioncatalog"
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
	scalibrlog "github.com/google/osv-scalibr/log"
)

// The manifest and lockfile kinds ExtractFile reads, by the name ManifestKind gives them.
const (
	KindGoMod          = "go.mod"
	KindRequirements   = "requirements"   // pip requirements files (requirements*.txt, requirements/*.txt, *.in)
	KindPyproject      = "pyproject.toml" // PEP 621 dependencies
	KindPoetryLock     = "poetry.lock"
	KindPipfileLock    = "Pipfile.lock"
	KindUVLock         = "uv.lock"
	KindSetupCfg       = "setup.cfg" // [options] install_requires and extras_require
	KindSetupPy        = "setup.py"
	KindPom            = "pom.xml"
	KindGradle         = "build.gradle" // build.gradle and build.gradle.kts: "group:artifact:version" literals
	KindGradleLock     = "gradle.lockfile"
	KindVersionCatalog = "libs.versions.toml" // Gradle's version catalogs
	KindPackageJSON    = "package.json"       // dependencies of every kind, as ranges
	KindPackageLock    = "package-lock.json"
	KindYarnLock       = "yarn.lock"
	KindPnpmLock       = "pnpm-lock.yaml"
)

// ManifestKind says which manifest or lockfile p (a slash path in a tree) is, "" when it is none
// ExtractFile reads. Files inside node_modules, vendor or site-packages are other projects' and
// are none.
func ManifestKind(p string) string {
	dir, base := path.Split(p)
	for _, el := range strings.Split(strings.Trim(dir, "/"), "/") {
		if el == "node_modules" || el == "vendor" || el == "site-packages" || el == ".git" {
			return ""
		}
	}
	switch base {
	case "go.mod", "pyproject.toml", "poetry.lock", "Pipfile.lock", "uv.lock", "setup.cfg", "setup.py", "pom.xml",
		"gradle.lockfile", "libs.versions.toml", "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml":
		return base
	case "build.gradle", "build.gradle.kts":
		return KindGradle
	}
	if strings.HasSuffix(base, ".versions.toml") && path.Base(strings.TrimSuffix(dir, "/")) == "gradle" {
		return KindVersionCatalog
	}
	if ext := path.Ext(base); ext == ".txt" || ext == ".in" {
		low := strings.ToLower(base)
		parent := path.Base(strings.TrimSuffix(dir, "/"))
		if strings.Contains(low, "requirements") || strings.Contains(low, "constraints") || parent == "requirements" {
			return KindRequirements
		}
	}
	return ""
}

// fileExtractors are the scalibr plugins of each kind ExtractFile reads with scalibr.
var fileExtractors = map[string]struct {
	name string
	mk   func(*cpb.PluginConfig) (filesystem.Extractor, error)
}{
	KindGoMod:          {gomod.Name, gomod.New},
	KindRequirements:   {requirements.Name, requirements.New},
	KindPyproject:      {pyprojecttoml.Name, pyprojecttoml.New},
	KindPoetryLock:     {poetrylock.Name, poetrylock.New},
	KindPipfileLock:    {pipfilelock.Name, pipfilelock.New},
	KindUVLock:         {uvlock.Name, uvlock.New},
	KindSetupPy:        {setup.Name, setup.New},
	KindPom:            {pomxml.Name, pomxml.New},
	KindGradleLock:     {gradlelockfile.Name, gradlelockfile.New},
	KindVersionCatalog: {gradleversioncatalog.Name, gradleversioncatalog.New},
	KindPackageLock:    {packagelockjson.Name, packagelockjson.New},
	KindYarnLock:       {yarnlock.Name, yarnlock.New},
	KindPnpmLock:       {pnpmlock.Name, pnpmlock.New},
}

// ExtractFile reads the dependencies that one manifest or lockfile declares, from its content
// alone (p, its slash path in the tree, picks the parser: ManifestKind). Lines are found in the
// content where the parser gives none; Direct is left unknown (it needs the files beside it).
// A file that is no manifest gives nothing; one its parser refuses is a *Problem.
func ExtractFile(ctx context.Context, p string, content []byte) ([]Dependency, error) {
	kind := ManifestKind(p)
	var out []Dependency
	var err error
	switch kind {
	case "":
		return nil, nil
	case KindPackageJSON:
		out, err = packageJSON(p, content)
	case KindGradle:
		out = gradleBuild(p, content)
	case KindSetupCfg:
		out = setupCfg(p, content)
	default:
		out, err = scalibrFile(ctx, kind, p, content)
	}
	if err != nil {
		return nil, err
	}
	lines := splitLines(content)
	for i := range out {
		if out[i].Line == 0 {
			out[i].Line = findLine(lines, &out[i])
		}
	}
	slices.SortStableFunc(out, func(a, b Dependency) int { // scalibr's order is a map's
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// scalibrFile runs kind's scalibr extractor on the content, shown to it as the one file of a tree.
func scalibrFile(ctx context.Context, kind, p string, content []byte) ([]Dependency, error) {
	quietScalibr.Do(func() { scalibrlog.SetLogger(discard{}) })
	ex := fileExtractors[kind]
	e, err := ex.mk(&cpb.PluginConfig{})
	if err != nil {
		return nil, fmt.Errorf("osv-scalibr extractor: %w", err)
	}
	fsys := fstest.MapFS{p: &fstest.MapFile{Data: content, Mode: 0o644, ModTime: time.Unix(0, 0)}}
	info, err := fs.Stat(fsys, p)
	if err != nil {
		return nil, &Problem{File: p, Err: err}
	}
	inv, err := e.Extract(ctx, &filesystem.ScanInput{FS: mapFS{fsys}, Path: p, Info: info, Reader: bytes.NewReader(content)})
	if err != nil {
		return nil, &Problem{File: p, Extractor: e.Name(), Err: err}
	}
	var out []Dependency
	for _, pkg := range inv.Packages {
		out = append(out, fromPackage(pkg, p, e.Name())...)
	}
	return out, nil
}

// mapFS is a MapFS with the ReadDir and Stat scalibr's FS asks for.
type mapFS struct{ fstest.MapFS }

func (m mapFS) ReadDir(name string) ([]fs.DirEntry, error) { return m.MapFS.ReadDir(name) }
func (m mapFS) Stat(name string) (fs.FileInfo, error)      { return m.MapFS.Stat(name) }

func splitLines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
