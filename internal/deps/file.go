package deps

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing/fstest"
	"time"
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

// fileReaders are the readers of each kind ExtractFile reads with Extract's readers, or its own.
var fileReaders = map[string]struct {
	name string
	read func(fsys fs.FS, p string, content []byte) ([]Dependency, error)
}{
	KindGoMod:          {goMod, readGoMod},
	KindRequirements:   {pyRequirements, readRequirements},
	KindPyproject:      {pyProject, plain(readPyProject)},
	KindPoetryLock:     {pyPoetryLock, plain(readPoetryLock)},
	KindPipfileLock:    {pyPipfileLock, plain(readPipfileLock)},
	KindUVLock:         {pyUVLock, plain(readUVLock)},
	KindSetupPy:        {pySetup, plain(readSetupPy)},
	KindPom:            {javaPom, readPOM},
	KindGradleLock:     {javaGradle, plain(readGradleLock)},
	KindVersionCatalog: {javaVersionCatalog, plain(readVersionCatalog)},
	KindPackageLock:    {npmLockName, plain(readNPMLockFile)},
	KindYarnLock:       {npmYarnLock, plain(readYarnLock)},
	KindPnpmLock:       {npmPnpmLock, plain(readPnpmLock)},
}

// ExtractFile reads the dependencies that one manifest or lockfile declares, from its content
// alone (p, its slash path in the tree, picks the parser: ManifestKind). Lines are found in the
// content where the reader gives none; Direct is only what the file itself says (the rest needs
// the files beside it).
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
		out, err = readFile(kind, p, content)
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

// readFile runs kind's reader on the content, shown to it as the one file of a tree.
func readFile(kind, p string, content []byte) ([]Dependency, error) {
	r := fileReaders[kind]
	fsys := fstest.MapFS{p: &fstest.MapFile{Data: content, Mode: 0o644, ModTime: time.Unix(0, 0)}}
	out, err := r.read(fsys, p, content)
	if err != nil {
		return nil, &Problem{File: p, Extractor: r.name, Err: err}
	}
	return out, nil
}

func splitLines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
