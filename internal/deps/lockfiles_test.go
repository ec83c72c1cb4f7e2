package deps

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	cpb "github.com/google/osv-scalibr/binary/proto/config_go_proto"
	"github.com/google/osv-scalibr/extractor/filesystem"
	"github.com/google/osv-scalibr/extractor/filesystem/language/java/gradleversioncatalog"
	"github.com/google/osv-scalibr/extractor/filesystem/language/javascript/pnpmlock"
	"github.com/google/osv-scalibr/extractor/filesystem/language/javascript/yarnlock"
	scalibrlog "github.com/google/osv-scalibr/log"
)

// TestFileReadersSameAsScalibr: the readers of yarn.lock, pnpm-lock.yaml and Gradle version
// catalogs, which only ExtractFile runs, find what osv-scalibr v0.5.3's extractors find on each
// of scalibr's own test files for them (every package: ecosystem, name, version, line, scopes),
// and refuse the files scalibr refuses.
func TestFileReadersSameAsScalibr(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/osv-scalibr").Output()
	if err != nil {
		t.Skipf("osv-scalibr's module is not downloaded (go mod download): %v", err)
	}
	oldQuiet.Do(func() { scalibrlog.SetLogger(oldDiscard{}) })
	lang := filepath.Join(strings.TrimSpace(string(out)), "extractor", "filesystem", "language")
	files, refused := 0, 0
	for _, c := range []struct {
		dir, kind, as string
		mk            func(*cpb.PluginConfig) (filesystem.Extractor, error)
	}{
		{"javascript/yarnlock", KindYarnLock, "yarn.lock", yarnlock.New},
		{"javascript/pnpmlock", KindPnpmLock, "pnpm-lock.yaml", pnpmlock.New},
		{"java/gradleversioncatalog", KindVersionCatalog, "gradle/libs.versions.toml", gradleversioncatalog.New},
	} {
		base := filepath.Join(lang, filepath.FromSlash(c.dir), "testdata")
		entries, err := os.ReadDir(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, ent := range entries {
			content, err := os.ReadFile(filepath.Join(base, ent.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files++
			p := "repo/" + c.as
			want, wantErr := scalibrFile(c.mk, p, content)
			got, gotErr := readFile(c.kind, p, content)
			if (wantErr != nil) != (gotErr != nil) {
				t.Errorf("%s/%s: scalibr's error %v, ours %v", c.dir, ent.Name(), wantErr, gotErr)
				continue
			}
			if wantErr != nil {
				refused++
				continue
			}
			if d := cmp.Diff(depLines(want), depLines(got)); d != "" {
				t.Errorf("%s/%s (-scalibr +deps):\n%s", c.dir, ent.Name(), d)
			}
		}
	}
	if files < 60 {
		t.Fatalf("%d test files of scalibr's read: its test files were not found", files)
	}
	t.Logf("%d files as scalibr reads them, %d of them refused by both", files, refused)
}

// scalibrFile runs one scalibr extractor on content shown as the one file p of a tree.
func scalibrFile(mk func(*cpb.PluginConfig) (filesystem.Extractor, error), p string, content []byte) ([]Dependency, error) {
	e, err := mk(&cpb.PluginConfig{})
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{p: &fstest.MapFile{Data: content, Mode: 0o644, ModTime: time.Unix(0, 0)}}
	info, err := fs.Stat(fsys, p)
	if err != nil {
		return nil, err
	}
	inv, err := e.Extract(context.Background(), &filesystem.ScanInput{FS: oldMapFS{fsys}, Path: p, Info: info, Reader: bytes.NewReader(content)})
	if err != nil {
		return nil, err
	}
	var out []Dependency
	for _, pkg := range inv.Packages {
		out = append(out, oldFromPackage(pkg, p, e.Name())...)
	}
	return out, nil
}

type oldMapFS struct{ fstest.MapFS }

func (m oldMapFS) ReadDir(name string) ([]fs.DirEntry, error) { return m.MapFS.ReadDir(name) }
func (m oldMapFS) Stat(name string) (fs.FileInfo, error)      { return m.MapFS.Stat(name) }

func depLines(ds []Dependency) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s %s %q line %d scopes %v module %s (%s)", d.Ecosystem, d.Name, d.Version, d.Line, d.Scopes, d.Module, d.Extractor))
	}
	sort.Strings(out)
	return out
}
