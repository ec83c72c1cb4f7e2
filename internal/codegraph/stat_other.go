//go:build !unix

package codegraph

import (
	"io/fs"
	"os"
)

func inode(fs.FileInfo) uint64 { return 0 }

func readFile(name string) ([]byte, error) { return os.ReadFile(name) }
