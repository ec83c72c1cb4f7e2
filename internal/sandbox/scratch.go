package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// copyTree copies the tree at src into the existing directory dst for a process that may write:
// regular files and directories made writable by their owner, symbolic links copied as links
// (never followed), anything else left out.
func copyTree(src, dst string) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		target := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case t.IsDir():
			return os.Mkdir(target, 0o755)
		case t&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case t.IsRegular():
			return copyFile(p, target)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sandbox: scratch copy of %s: %w", src, err)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()|0o200)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeAll removes a scratch directory, making its directories writable first (the process
// may have made some read-only).
func removeAll(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// Unit folders: every host folder vulnbench makes for one sandboxed process (a scratch copy of
// its project; under ModeNone its home, tmp, out and advisories) is inside one folder of the
// scratch directory, vulnbench-unit-PID-RANDOM, locked (flock) for as long as it is in use and
// removed at the process's end, whatever the end. A folder whose lock is free belongs to a
// vulnbench that died (kill -9): New removes it (Swept names it). A folder is made under another
// name and locked before it is renamed to vulnbench-unit-*, so a sweep never sees one unlocked
// while it is being made.
const (
	unitPrefix    = "vulnbench-unit-"
	newUnitPrefix = "vulnbench-newunit-"
)

// TempDir is a host folder of the caller's own for one unit (a gateway's socket, say): locked
// while in use, removed by release, and by the next New when this process died first. It is for
// what vulnbench writes, never for what a sandboxed process writes.
func (s *Sandbox) TempDir() (dir string, release func(), err error) {
	return newUnit(s.scratch)
}

// unitDir is p's own host folder, made on first use and removed when p ends.
func (s *Sandbox) unitDir(p *Process) (string, error) {
	if p.unit != "" {
		return p.unit, nil
	}
	dir, release, err := newUnit(s.scratch)
	if err != nil {
		return "", err
	}
	p.unit = dir
	p.cleanups = append(p.cleanups, release)
	return dir, nil
}

func newUnit(scratch string) (string, func(), error) {
	tmp, err := os.MkdirTemp(scratch, newUnitPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: a folder for the unit: %w", err)
	}
	lock, err := os.Open(tmp)
	if err == nil {
		err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	dir := filepath.Join(scratch, unitPrefix+strings.TrimPrefix(filepath.Base(tmp), newUnitPrefix))
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		_ = removeAll(tmp)
		return "", nil, fmt.Errorf("sandbox: a folder for the unit: %w", err)
	}
	var once sync.Once
	return dir, func() {
		once.Do(func() {
			_ = removeAll(dir)
			lock.Close()
		})
	}, nil
}

// sweep removes the unit folders under scratch that no live process holds, and folders being
// made that were left more than an hour ago, and returns them.
func sweep(scratch string) []string {
	var out []string
	entries, err := os.ReadDir(scratch)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(scratch, name)
		switch {
		case !e.IsDir():
		case strings.HasPrefix(name, unitPrefix):
			f, err := os.Open(p)
			if err != nil {
				continue
			}
			if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
				if removeAll(p) == nil {
					out = append(out, p)
				}
			}
			f.Close()
		case strings.HasPrefix(name, newUnitPrefix):
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour && removeAll(p) == nil {
				out = append(out, p)
			}
		}
	}
	return out
}
