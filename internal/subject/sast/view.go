package sast

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxScanFile is the largest file a repository scan reads; a larger one is skipped.
const MaxScanFile = 8 << 20

// sourceExt are the extensions of the files the scanners read as source: those must be UTF-8.
var sourceExt = map[string]bool{".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".hpp": true, ".hh": true,
	".py": true, ".go": true, ".js": true, ".jsx": true, ".mjs": true, ".cjs": true, ".ts": true, ".tsx": true, ".java": true, ".php": true, ".rb": true}

// skip is a file of a snapshot a scan leaves out, and why.
type skip struct{ path, why string }

// skips lists what a scan of root must leave out: symbolic links (in the sandbox one out of the
// snapshot resolves to nothing, and a scanner given a dangling link fails the whole scan), files
// over MaxScanFile and source files that are not UTF-8.
func skips(root string) ([]skip, error) {
	var out []skip
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			out = append(out, skip{rel, "a symbolic link"})
		case !d.Type().IsRegular():
		default:
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.Size() > MaxScanFile {
				out = append(out, skip{rel, fmt.Sprintf("%d bytes, over %d", info.Size(), MaxScanFile)})
			} else if sourceExt[strings.ToLower(filepath.Ext(p))] && !utf8File(p) {
				out = append(out, skip{rel, "not UTF-8"})
			}
		}
		return nil
	})
	return out, err
}

func utf8File(p string) bool {
	b, err := os.ReadFile(p)
	return err == nil && utf8.Valid(b)
}

// view is a tree to scan in place of root: root itself when nothing is skipped, else a copy
// (hard links where the file system allows) without the skipped files. done removes it.
func view(root string, sk []skip) (dir string, done func(), err error) {
	if len(sk) == 0 {
		return root, func() {}, nil
	}
	left := make(map[string]bool, len(sk))
	for _, s := range sk {
		left[s.path] = true
	}
	dir, err = os.MkdirTemp("", "vulnbench-scan-")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(dir) }
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		dst := filepath.Join(dir, rel)
		switch {
		case left[rel]:
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type().IsRegular():
			if os.Link(p, dst) != nil {
				return copyFile(p, dst)
			}
		}
		return nil
	})
	if err != nil {
		done()
		return "", nil, err
	}
	return dir, done, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// skipNote says what a scan left out, for the trace and the verdict.
func skipNote(sk []skip) string {
	if len(sk) == 0 {
		return ""
	}
	parts := make([]string, 0, min(len(sk), 20))
	for i, s := range sk {
		if i == 20 {
			parts = append(parts, fmt.Sprintf("and %d more", len(sk)-20))
			break
		}
		parts = append(parts, s.path+" ("+s.why+")")
	}
	return fmt.Sprintf("%d files not scanned: %s", len(sk), strings.Join(parts, ", "))
}
