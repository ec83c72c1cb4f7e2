package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
