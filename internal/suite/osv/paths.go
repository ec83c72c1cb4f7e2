package osv

import (
	"path"
	"strings"
)

// Role is what a file of a repository is for, judged by its path alone.
type Role int

// The roles. Source is everything the others are not.
const (
	Source Role = iota
	Test        // tests and their data
	Fuzz        // fuzzing harnesses, corpora, dictionaries
	Build       // build, packaging and CI files
	Doc         // documentation, change logs
)

func (r Role) String() string {
	return [...]string{"source", "test", "fuzz", "build", "doc"}[r]
}

// testDirs, fuzz words, build names and doc names: the conventions of the projects OSV
// records name (C projects' tests/ and fuzz/, Go's _test.go and testdata, Java's src/test).
var (
	testDirs   = map[string]bool{"test": true, "tests": true, "testing": true, "testdata": true, "testsuite": true, "unittest": true, "unittests": true, "t": true, "spec": true, "__tests__": true, "regress": true, "regression": true}
	buildNames = map[string]bool{"makefile": true, "gnumakefile": true, "cmakelists.txt": true, "meson.build": true, "meson_options.txt": true,
		"meson.options": true, "configure": true, "configure.ac": true, "configure.in": true, "build": true, "build.bazel": true, "workspace": true,
		"module.bazel": true, "sconstruct": true, "sconscript": true, "dockerfile": true, "project.yaml": true, "build.sh": true, "go.mod": true,
		"go.sum": true, "pom.xml": true, "build.gradle": true, "settings.gradle": true, "cargo.toml": true, "cargo.lock": true,
		"package.json": true, "package-lock.json": true, "setup.py": true, "setup.cfg": true, "pyproject.toml": true, "tox.ini": true,
		".travis.yml": true, ".gitignore": true, ".gitattributes": true, "appveyor.yml": true, ".cirrus.yml": true, "vcpkg.json": true}
	buildExts = map[string]bool{".mk": true, ".am": true, ".in": true, ".m4": true, ".cmake": true, ".bzl": true, ".gradle": true, ".gyp": true,
		".gypi": true, ".vcxproj": true, ".sln": true, ".pro": true, ".pri": true, ".spec": true, ".nix": true}
	docExts  = map[string]bool{".md": true, ".rst": true, ".txt": true, ".adoc": true, ".texi": true, ".1": true, ".3": true, ".5": true, ".man": true, ".pod": true}
	docNames = map[string]bool{"readme": true, "changelog": true, "changes": true, "news": true, "authors": true, "copying": true,
		"license": true, "thanks": true, "todo": true, "history": true, "contributors": true}
)

// RoleOf classifies p (slash-separated, relative to the repository root). Fuzzing wins over
// tests (tests/fuzz/x.c is a harness), tests over build and docs.
func RoleOf(p string) Role {
	p = strings.ToLower(p)
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	if strings.Contains(strings.ReplaceAll(p, "fuzzy", ""), "fuzz") || strings.Contains(base, "corpus") {
		return Fuzz
	}
	for _, d := range parts {
		if testDirs[d] || strings.HasSuffix(d, "_test") || strings.HasSuffix(d, "-tests") || strings.HasSuffix(d, "_tests") {
			return Test
		}
	}
	switch {
	case strings.HasSuffix(base, "_test.go"), strings.HasPrefix(base, "test_") && ext == ".py", strings.HasSuffix(stem, "_test"),
		strings.HasSuffix(stem, "_unittest"), strings.HasSuffix(stem, "test") && (ext == ".java" || ext == ".kt") && len(stem) > 4,
		strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec"):
		return Test
	}
	for _, d := range parts {
		if d == ".github" || d == ".circleci" || d == ".gitlab" || d == "cmake" || d == "m4" || d == "build-aux" || d == "packaging" || d == "debian" {
			return Build
		}
	}
	if buildNames[base] || buildExts[ext] || strings.HasPrefix(base, "makefile") || strings.HasPrefix(base, "dockerfile") {
		return Build
	}
	for _, d := range parts {
		if d == "doc" || d == "docs" || d == "man" || d == "documentation" {
			return Doc
		}
	}
	if docExts[ext] || docNames[stem] || docNames[base] {
		return Doc
	}
	return Source
}
