package deps

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// scalibrTestdata copies osv-scalibr v0.5.3's own test files for the extractors deps follows
// (manifests nobody here wrote: real projects' shapes, malformed ones among them) into a tree
// where each is found under its manifest's name, and returns the tree's root.
func scalibrTestdata(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/osv-scalibr").Output()
	if err != nil {
		t.Skipf("osv-scalibr's module is not downloaded (go mod download): %v", err)
	}
	lang := filepath.Join(strings.TrimSpace(string(out)), "extractor", "filesystem", "language")
	root := t.TempDir()
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// each names a test directory and, for each of its files, where it goes in the tree ("" : the
	// file as it is there).
	for _, m := range []struct {
		dir  string
		name func(rel string) string
	}{
		{"golang/gomod", func(rel string) string {
			ext := filepath.Ext(rel)
			return strings.TrimSuffix(rel, ext) + "/go" + ext
		}},
		{"golang/vendormodules", func(rel string) string { return rel }},
		{"python/requirements", func(rel string) string { return rel }},
		{"python/requirements", func(rel string) string { return "requirements-" + rel }},
		{"python/poetrylock", func(rel string) string { return rel + "/poetry.lock" }},
		{"python/pipfilelock", func(rel string) string { return rel + "/Pipfile.lock" }},
		{"python/uvlock", func(rel string) string { return rel + "/uv.lock" }},
		{"python/pyprojecttoml", func(rel string) string { return rel + "/pyproject.toml" }},
		{"python/setup", func(rel string) string { return rel + "/setup.py" }},
		{"java/pomxml", func(rel string) string { return strings.TrimSuffix(rel, ".xml") + ".pom" }},
		{"java/pomxml", func(rel string) string { return "as-is/" + rel }},
		{"java/gradlelockfile", func(rel string) string { return rel + "/gradle.lockfile" }},
		{"javascript/packagelockjson", func(rel string) string {
			if filepath.Dir(rel) != "." {
				return rel
			}
			return rel + "/package-lock.json"
		}},
	} {
		base := filepath.Join(lang, filepath.FromSlash(m.dir), "testdata")
		err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(base, p)
			copyFile(p, filepath.Join(root, filepath.FromSlash(m.dir), filepath.FromSlash(m.name(filepath.ToSlash(rel)))))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestSameAsScalibr: deps' own readers find what osv-scalibr v0.5.3's extractors found, on
// scalibr's test files for them: every dependency (ecosystem, name, version or range, manifest,
// line, direct or indirect, module, scopes, reader), the manifests read, and which files are
// problems, and with which reader.
func TestSameAsScalibr(t *testing.T) {
	root := scalibrTestdata(t)
	fsys := os.DirFS(root).(FS)
	ctx := context.Background()
	got, err := Extract(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	want, err := scalibrExtract(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	// scalibr keeps, of an npm package a lockfile names at several places, the line its map
	// iteration gives last: read it 20 times to see the lines it gives, and take deps' line (the
	// first place) where scalibr gives several and none before it.
	lines := map[string]map[int]bool{}
	key := func(d Dependency) string { return d.Manifest + " " + d.Name + "@" + d.Version }
	for i := 0; i < 20; i++ {
		again, err := scalibrExtract(ctx, fsys)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range again.Deps {
			if lines[key(d)] == nil {
				lines[key(d)] = map[int]bool{}
			}
			lines[key(d)][d.Line] = true
		}
	}
	once := map[string]int{} // keys one dependency has in a run
	for _, d := range want.Deps {
		once[key(d)]++
	}
	for i, d := range want.Deps {
		for _, g := range got.Deps {
			if key(g) == key(d) && once[key(d)] == 1 && d.Extractor == npmLockName && len(lines[key(d)]) > 1 && firstOf(g.Line, lines[key(d)]) {
				want.Deps[i].Line = g.Line
			}
		}
	}
	if len(want.Deps) < 100 || len(want.Manifests) < 100 {
		t.Fatalf("scalibr found %d dependencies in %d manifests: its test files were not laid out", len(want.Deps), len(want.Manifests))
	}
	facts := func(f *Facts) []string {
		var out []string
		for _, d := range f.Deps {
			if d.Extractor == npmLockName && strings.Contains(d.Manifest, "/commits.") {
				// A package resolved from a git commit: scalibr versions it by the commit,
				// npmLock leaves it unversioned (TestNPMLockAgreesWithScalibr says why).
				continue
			}
			out = append(out, fmt.Sprintf("%s %s %s %q %q line %d %s module %s scopes %v (%s)", d.Manifest, d.Ecosystem, d.Name, d.Version, d.Range,
				d.Line, d.Direct, d.Module, d.Scopes, d.Extractor))
		}
		sort.Strings(out)
		return out
	}
	problems := func(f *Facts) []string {
		var out []string
		for _, p := range f.Problems {
			if pr, ok := p.(*Problem); ok {
				out = append(out, pr.File+" ("+pr.Extractor+")")
			}
		}
		sort.Strings(out)
		return out
	}
	if d := cmp.Diff(facts(want), facts(got), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("dependencies (-scalibr +deps):\n%s", d)
	}
	// scalibr lists a package-lock.json beside an npm-shrinkwrap.json, which it does not read
	// (the shrinkwrap wins); deps lists only the files it read.
	want.Manifests = slices.DeleteFunc(want.Manifests, func(m string) bool {
		return path.Base(m) == "package-lock.json" && slices.Contains(want.Manifests, path.Join(path.Dir(m), "npm-shrinkwrap.json"))
	})
	if d := cmp.Diff(want.Manifests, got.Manifests); d != "" {
		t.Errorf("manifests (-scalibr +deps):\n%s", d)
	}
	if d := cmp.Diff(problems(want), problems(got)); d != "" {
		t.Errorf("problems (-scalibr +deps):\n%s", d)
	}
	t.Logf("%d dependencies in %d manifests, %d problems, as scalibr", len(got.Deps), len(got.Manifests), len(got.Problems))
}

// firstOf says whether line is at or before every line of seen.
func firstOf(line int, seen map[int]bool) bool {
	for l := range seen {
		if l < line {
			return false
		}
	}
	return line > 0
}
