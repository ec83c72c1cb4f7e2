package subject_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Subjects and the engine link no cgo: the code graph reaches them as query.Graph, an interface
// of a package without tree-sitter, so they build with CGO_ENABLED=0 (as the scoring and
// presenting side does). The test lists their dependencies with cgo on (no compiling) and
// fails on any package outside the standard library that has cgo files.
func TestBuildsWithoutCgo(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	watchSources(t, "../..")
	pkgs := []string{"./internal/subject/...", "./internal/engine/..."}
	cmd := exec.Command(goTool, append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{.CgoFiles}}{{end}}"}, pkgs...)...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", strings.Join(pkgs, " "), err, stderr.String())
	}
	var listed int
	for line := range strings.Lines(string(out)) {
		imp, files, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		listed++
		if files != "[]" {
			t.Errorf("%s has cgo files %s and is a dependency of %s", imp, files, strings.Join(pkgs, " "))
		}
	}
	if listed == 0 {
		t.Fatalf("go list -deps %s listed no package:\n%s", strings.Join(pkgs, " "), out)
	}
}

// watchSources stats the module's Go files and go.mod, so that go test's cache, which sees only
// what the test process itself opens, reruns the test when any of them changes.
func watchSources(t *testing.T, root string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		_, err = os.Stat(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
