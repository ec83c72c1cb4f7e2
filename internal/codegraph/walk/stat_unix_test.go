//go:build unix

package walk

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadFileNoFollow: a file the walk saw as regular but that is a symbolic link by the time
// it is read is not followed.
func TestReadFileNoFollow(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.c")
	if err := os.WriteFile(secret, []byte("int secret;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.c")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	for _, a := range []*Arena{nil, NewArena(1 << 20)} {
		b, err := ReadFile(link, 12, a)
		if !errors.Is(err, syscall.ELOOP) {
			t.Errorf("ReadFile of a symbolic link: %q, %v; want ELOOP", b, err)
		}
		a.Release()
	}
	if b, err := ReadFile(secret, 12, nil); err != nil || string(b) != "int secret;\n" {
		t.Errorf("ReadFile of the file itself: %q, %v", b, err)
	}
}
