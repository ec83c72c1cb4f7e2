package walk

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReadFileSizeChanged reads files whose size differs from the one the walk saw: all of the
// content comes back, whether the file grew or shrank, with and without the content arena.
func TestReadFileSizeChanged(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f.c")
	content := bytes.Repeat([]byte("int f (void) { return 0; }\n"), 10000)
	if err := os.WriteFile(name, content, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, seen := range []int64{int64(len(content)), 0, 10, int64(len(content)) - 1, int64(len(content)) + 5000} {
		for _, a := range []*Arena{nil, NewArena(1 << 20)} {
			got, err := ReadFile(name, seen, a)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, content) {
				t.Errorf("size seen %d, arena %v: read %d bytes, want %d", seen, a != nil, len(got), len(content))
			}
			a.Release()
		}
	}
}
