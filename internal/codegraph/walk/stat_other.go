//go:build !unix

package walk

import (
	"io/fs"
	"os"
)

func inode(fs.FileInfo) uint64 { return 0 }

// Arena is a no-op here: contents go to the Go heap.
type Arena struct{}

func NewArena(int64) *Arena { return nil }
func (*Arena) Release()     {}

func ReadFile(name string, _ int64, _ *Arena) ([]byte, error) { return os.ReadFile(name) }
