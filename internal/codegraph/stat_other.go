//go:build !unix

package codegraph

import (
	"io/fs"
	"os"
)

func inode(fs.FileInfo) uint64 { return 0 }

// contentArena is a no-op here: contents go to the Go heap.
type contentArena struct{}

func newContentArena(int64) *contentArena { return nil }
func (*contentArena) release()            {}

func readFile(name string, _ int64, _ *contentArena) ([]byte, error) { return os.ReadFile(name) }
