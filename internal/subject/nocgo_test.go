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
// presenting side does).
func TestBuildsWithoutCgo(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	watchSources(t, "../..")
	cmd := exec.Command(goTool, "build", "./internal/subject/...", "./internal/engine/...")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./internal/subject/... ./internal/engine/...: %v\n%s", err, out)
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
