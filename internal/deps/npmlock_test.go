package deps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/osv-scalibr/extractor/filesystem"
	"github.com/google/osv-scalibr/extractor/filesystem/language/javascript/packagelockjson"
	scalibrfs "github.com/google/osv-scalibr/fs"

	cpb "github.com/google/osv-scalibr/binary/proto/config_go_proto"
)

// entryKey is what both readers must agree on of an npm lockfile's package.
func entryKey(name, version string, line int, groups []string) string {
	g := slices.Clone(groups)
	slices.Sort(g)
	return fmt.Sprintf("%s@%s line %d %v", name, version, line, g)
}

// npmLock reads what osv-scalibr's extractor reads of the lockfiles nobody here wrote: one npm
// wrote (lockfileVersion 3, in testdata/npm-real) and osv-scalibr's own test lockfiles (versions
// 1, 2 and 3, aliases, nested and scoped packages, workspaces, bundled and optional ones), but
// for the packages resolved from a git commit or a file: path, whose version osv-scalibr takes
// from the commit and npmLock leaves empty (no version to compare with an advisory's ranges).
func TestNPMLockAgreesWithScalibr(t *testing.T) {
	files := []string{"testdata/npm-real/package-lock.json"}
	if out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/osv-scalibr").Output(); err == nil {
		dir := filepath.Join(strings.TrimSpace(string(out)), "extractor/filesystem/language/javascript/packagelockjson/testdata")
		m, _ := filepath.Glob(filepath.Join(dir, "*.v[123].json"))
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("%d lockfiles; osv-scalibr's testdata not found", len(files))
	}
	ex, err := packagelockjson.New(&cpb.PluginConfig{})
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inv, err := ex.Extract(context.Background(), &filesystem.ScanInput{FS: scalibrfs.DirFS(filepath.Dir(p)), Path: filepath.Base(p), Reader: strings.NewReader(string(b))})
		if err != nil {
			continue // osv-scalibr refuses it too: not a lockfile to compare on
		}
		// A package installed at several paths is one entry: osv-scalibr keeps the line of the
		// copy its map iteration meets last (any of them), npmLock the first; both must be a line
		// that opens one of that package's entries.
		lines := strings.Split(string(b), "\n")
		opens := func(name string, line int) bool {
			return line >= 1 && line <= len(lines) && strings.Contains(lines[line-1], name+`": {`)
		}
		var want []string
		skip := map[string]bool{}
		wantLine := map[string]int{}
		for _, pkg := range inv.Packages {
			if pkg.SourceCode != nil && pkg.SourceCode.Commit != "" || strings.HasPrefix(pkg.Version, "file:") || pkg.Version == "" {
				skip[pkg.Name] = true
				continue
			}
			want = append(want, entryKey(pkg.Name, pkg.Version, 0, pkg.Metadata.(interface{ DepGroups() []string }).DepGroups()))
			wantLine[pkg.Name+"@"+pkg.Version] = pkg.Location.Descriptor.File.LineNumber
		}
		got := []string{}
		deps, _, err := npmLock(strings.NewReader(string(b)), "package-lock.json")
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, d := range deps {
			if skip[d.Name] {
				continue
			}
			got = append(got, entryKey(d.Name, d.Version, 0, d.Scopes))
			if w := wantLine[d.Name+"@"+d.Version]; w != d.Line && !(opens(d.Name, w) && opens(d.Name, d.Line)) {
				t.Errorf("%s: %s@%s at line %d, osv-scalibr says %d", filepath.Base(p), d.Name, d.Version, d.Line, w)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if want == nil {
			want = []string{}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-scalibr +npmLock):\n%s", filepath.Base(p), d)
		}
		compared += len(want)
	}
	if compared < 150 {
		t.Errorf("compared %d packages; want the real lockfile's 146 and the rest", compared)
	}
}

// bigLockfile writes a lockfileVersion 3 file of about size bytes shaped like npm's (entries of
// 2-3 KB: resolved URL, integrity, dependencies, engines, funding), with lodash 4.17.20 among
// the last entries; it returns the line of lodash's entry.
func bigLockfile(w io.Writer, size int) (int, error) {
	var b strings.Builder
	line := 1
	write := func(s string) {
		b.WriteString(s)
		line += strings.Count(s, "\n")
	}
	write("{\n  \"name\": \"app\",\n  \"version\": \"1.0.0\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {\n    \"\": {\n      \"name\": \"app\",\n      \"version\": \"1.0.0\",\n      \"dependencies\": {\n        \"lodash\": \"4.17.20\"\n      }\n    }")
	lodash := 0
	for i := 0; ; i++ {
		if _, err := io.WriteString(w, b.String()); err != nil {
			return 0, err
		}
		size -= b.Len()
		b.Reset()
		if size < 0 {
			break
		}
		if size < 4000 && lodash == 0 {
			write(",\n    \"node_modules/lodash\": {\n")
			lodash = line - 1
			write("      \"version\": \"4.17.20\",\n      \"resolved\": \"https://registry.npmjs.org/lodash/-/lodash-4.17.20.tgz\",\n      \"license\": \"MIT\"\n    }")
			continue
		}
		var deps []string
		for j := 1; j <= 40; j++ {
			deps = append(deps, fmt.Sprintf("        \"dep-%d-%d\": \"^%d.%d.0\"", i, j, j%7, j%13))
		}
		write(fmt.Sprintf(",\n    \"node_modules/@scope%d/pkg-%d\": {\n      \"version\": \"%d.%d.%d\",\n      \"resolved\": \"https://registry.npmjs.org/@scope%d/pkg-%d/-/pkg-%d-%d.%d.%d.tgz\",\n"+
			"      \"integrity\": \"sha512-%s==\",\n      \"dev\": %v,\n      \"license\": \"MIT\",\n      \"dependencies\": {\n%s\n      },\n"+
			"      \"engines\": {\n        \"node\": \">=14\"\n      },\n      \"funding\": {\n        \"url\": \"https://github.com/sponsors/someone\"\n      }\n    }",
			i%97, i, i%5, i%11, i%17, i%97, i, i, i%5, i%11, i%17, strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldY", 3), i%3 == 0, strings.Join(deps, ",\n")))
	}
	_, err := io.WriteString(w, "\n  }\n}\n")
	return lodash, err
}

// peakHeap runs fn and samples the live heap meanwhile: the most it grew by.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > base && v-base > peak.Load() {
				peak.Store(v - base)
			}
		}
	}()
	fn()
	close(done)
	return peak.Load()
}

// A 50 MB lockfile is read whole in bounded memory (issue 35 item 8): every package found,
// lodash's entry at its line, and the heap never grows by as much as half the file.
func TestNPMLock50MB(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	lodashLine, err := bigLockfile(f, 50<<20)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "app", "dependencies": {"lodash": "4.17.20"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "package-lock.json"))
	var facts *Facts
	peak := peakHeap(func() {
		facts, err = Extract(context.Background(), scalibrfs.DirFS(dir).(FS))
	})
	if err != nil || len(facts.Problems) > 0 {
		t.Fatal(err, facts.Problems)
	}
	t.Logf("%.1f MiB lockfile: %d dependencies, heap grew by at most %.1f MiB", float64(fi.Size())/(1<<20), len(facts.Deps), float64(peak)/(1<<20))
	got := facts.Find("lodash")
	if len(got) != 1 || got[0].Version != "4.17.20" || got[0].Line != lodashLine || got[0].Direct != Direct {
		t.Errorf("lodash: %+v; want 4.17.20 at line %d, direct", got, lodashLine)
	}
	if len(facts.Deps) < 15000 {
		t.Errorf("%d dependencies; the file holds over 15,000", len(facts.Deps))
	}
	if peak > uint64(fi.Size()/2) {
		t.Errorf("the heap grew by %.1f MiB reading a %.1f MiB file: not bounded", float64(peak)/(1<<20), float64(fi.Size())/(1<<20))
	}
}

// budgetFS streams files that stop after n bytes with an error, as a snapshot whose unit has
// spent its read budget does.
type budgetFS struct {
	FS
	n int64
}

func (b budgetFS) Stream(name string) (io.ReadCloser, int64, error) {
	f, err := b.Open(name)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(io.LimitReader(f, b.n), errReader{}), f}, fi.Size(), nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) {
	return 0, errors.New("this unit has read its bytes of repository content")
}

// A lockfile read only in part says how much was read, and keeps what it found before.
func TestNPMLockReadInPart(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bigLockfile(f, 3<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	facts, err := Extract(context.Background(), budgetFS{FS: scalibrfs.DirFS(dir).(FS), n: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts.Problems) != 1 || !strings.Contains(facts.Problems[0].Error(), "package-lock.json: read the first 1.0 MiB of 3.0 MiB, then: packages: ") ||
		!strings.Contains(facts.Problems[0].Error(), "this unit has read its bytes") {
		t.Errorf("problems %v", facts.Problems)
	}
	if len(facts.Deps) < 100 || len(facts.Find("lodash")) != 0 {
		t.Errorf("%d dependencies kept from the first MiB, lodash %v", len(facts.Deps), facts.Find("lodash"))
	}
}
