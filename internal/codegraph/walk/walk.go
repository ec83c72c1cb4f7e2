// Package walk lists the source files of a snapshot's tree and hashes their contents: the rules
// that leave out vendored directories, symbolic links, oversized and generated files; a stat
// cache so that a second look at an unchanged tree reads no file; the snapshot hash that keys
// the code graph's cache. It reads files without following links and parses nothing.
package walk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Options control a walk. The zero value lists every regular file.
type Options struct {
	// Match keeps the files whose base name it accepts (nil keeps all); it runs before any
	// system call on the file.
	Match func(name string) bool
	// MaxFileSize skips larger files as oversized; zero or negative means no limit.
	MaxFileSize int64
	// Workers is how many goroutines read directories and hash files. Default: GOMAXPROCS.
	Workers int
}

func workers(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// File is a file the walk found and the rules did not exclude by name or size.
type File struct {
	Path  string // slash-separated, relative to the root
	Size  int64
	MTime int64 // UnixNano
	Ino   uint64
	Hash  [32]byte // sha256 of the content, filled in by Hash
	// Data is the content, when Hash read it and the memory budget allowed keeping it (the
	// slices point into the Arena given to Hash); nil otherwise.
	Data []byte
}

// Skipped is a file or directory left out, and why.
type Skipped struct {
	Path   string
	Reason string
}

// KeepBudget is how many bytes of file contents Hash keeps for parsing, so that a first index
// reads each file once.
const KeepBudget = 512 << 20

// dirRule says whether the walk enters a directory: version-control and tool caches are skipped
// silently, vendored code is skipped and reported.
func dirRule(name string) (skip bool, reason string) {
	switch name {
	case ".git", ".hg", ".svn", ".bzr", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache":
		return true, ""
	case "vendor", "node_modules", "bower_components", "third_party", "third-party", "thirdparty", "3rdparty",
		"site-packages", ".venv", "venv", "Pods":
		return true, "vendored directory"
	}
	return false, ""
}

// generatedName reports whether a file name says the file is generated.
func generatedName(name string) bool {
	base := path.Base(name)
	for _, suf := range []string{".min.js", "-min.js", ".pb.go", "_pb2.py", "_pb2_grpc.py", ".pb.cc", ".pb.h"} {
		if strings.HasSuffix(base, suf) {
			return true
		}
	}
	return false
}

// List lists the files under root that opts.Match keeps and what the rules skip. Directories
// are read by several goroutines (a tree of 20,000 files costs a few hundred system calls a
// directory otherwise done one after the other); both lists are sorted by path.
func List(ctx context.Context, root string, opts Options) ([]File, []Skipped, error) {
	if _, err := os.ReadDir(root); err != nil {
		return nil, nil, fmt.Errorf("walk %s: %w", root, err)
	}
	type dirResult struct {
		files   []File
		skipped []Skipped
		subdirs []string
	}
	// readDir lists one directory (rel is "" for the root).
	readDir := func(rel string) dirResult {
		var r dirResult
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			r.skipped = append(r.skipped, Skipped{rel + "/", "unreadable: " + ErrText(err)})
		}
		for _, d := range entries {
			name := d.Name()
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			if d.IsDir() {
				if skip, reason := dirRule(name); skip {
					if reason != "" {
						r.skipped = append(r.skipped, Skipped{p + "/", reason})
					}
				} else {
					r.subdirs = append(r.subdirs, p)
				}
				continue
			}
			if opts.Match != nil && !opts.Match(name) {
				continue
			}
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				r.skipped = append(r.skipped, Skipped{p, "symbolic link"})
				continue
			case !d.Type().IsRegular():
				continue
			case generatedName(p):
				r.skipped = append(r.skipped, Skipped{p, "generated file (by its name)"})
				continue
			}
			info, err := d.Info()
			if err != nil {
				r.skipped = append(r.skipped, Skipped{p, "unreadable: " + ErrText(err)})
				continue
			}
			if opts.MaxFileSize > 0 && info.Size() > opts.MaxFileSize {
				r.skipped = append(r.skipped, Skipped{p, fmt.Sprintf("oversized (%d bytes, limit %d)", info.Size(), opts.MaxFileSize)})
				continue
			}
			r.files = append(r.files, File{Path: p, Size: info.Size(), MTime: info.ModTime().UnixNano(), Ino: inode(info)})
		}
		return r
	}

	var (
		mu      sync.Mutex
		files   []File
		skipped []Skipped
		queue   = []string{""}
		pending = 1 // directories queued or being read
		cond    = sync.NewCond(&mu)
		wg      sync.WaitGroup
	)
	for range max(4, workers(opts.Workers)*2) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			for {
				for len(queue) == 0 && pending > 0 {
					cond.Wait()
				}
				if pending == 0 {
					cond.Broadcast()
					return
				}
				dir := queue[len(queue)-1]
				queue = queue[:len(queue)-1]
				mu.Unlock()
				var r dirResult
				if ctx.Err() == nil {
					r = readDir(dir)
				}
				mu.Lock()
				files = append(files, r.files...)
				skipped = append(skipped, r.skipped...)
				queue = append(queue, r.subdirs...)
				pending += len(r.subdirs) - 1
				cond.Broadcast()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	return files, skipped, nil
}

// ErrText is err without the path a *fs.PathError repeats.
func ErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// SnapshotHash is sha256 over the sorted (path, size, content hash) of the files.
func SnapshotHash(files []File) string {
	h := sha256.New()
	var line []byte
	for _, c := range files {
		line = fmt.Appendf(line[:0], "%s\x00%d\x00%x\n", c.Path, c.Size, c.Hash)
		h.Write(line)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Hash fills in the files' content hashes, in parallel, reusing the stat cache's hash of a file
// whose size, modification time and inode did not change (sc may be nil). The contents it reads,
// up to KeepBudget bytes in all, are kept in Data, in arena's memory when it has room.
func Hash(ctx context.Context, root string, cands []File, sc *StatCache, arena *Arena, nworkers int) error {
	var next, kept atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range workers(nworkers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 256<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(cands) || ctx.Err() != nil {
					return
				}
				c := &cands[i]
				if h, ok := sc.Lookup(c); ok {
					c.Hash = h
					continue
				}
				name := filepath.Join(root, filepath.FromSlash(c.Path))
				if kept.Add(c.Size) <= KeepBudget {
					data, err := ReadFile(name, c.Size, arena)
					if err != nil {
						once.Do(func() { firstErr = fmt.Errorf("hash %s: %w", c.Path, err) })
						return
					}
					c.Hash, c.Data = sha256.Sum256(data), data
					continue
				}
				h, err := hashFile(name, buf)
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("hash %s: %w", c.Path, err) })
					return
				}
				c.Hash = h
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func hashFile(name string, buf []byte) ([32]byte, error) {
	var sum [32]byte
	f, err := os.Open(name)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// build parses the candidates in parallel, each distinct (content, language) once, and merges
