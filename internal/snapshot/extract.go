package snapshot

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// extract writes the tree of r.commit into the empty directory dst as dst/tree and
// dst/snapshot.json, from `git archive --format=tar` read as a stream. Entries with absolute
// names or .. are refused; symbolic links are created last and as they are (so that no entry
// is ever written through one); files over the size limit and other entry types are left out
// and listed in Info.Skipped; files get modes 0444 or 0555, directories 0555.
func (c *Cache) extract(ctx context.Context, r resolved, dst string) error {
	info := Info{Repo: r.gitDir, Commit: r.commit}
	tree, err := c.git(ctx, gitEnv(), "--git-dir="+r.gitDir, "rev-parse", "--verify", "--end-of-options", r.commit+"^{tree}")
	if err != nil {
		return c.archiveErr(r, err.Error(), err)
	}
	info.Tree = tree

	if err := os.Mkdir(filepath.Join(dst, treeDir), 0o755); err != nil {
		return fmt.Errorf("create snapshot directory: %w", err)
	}
	root, err := os.OpenRoot(filepath.Join(dst, treeDir))
	if err != nil {
		return fmt.Errorf("create snapshot directory: %w", err)
	}
	defer root.Close()

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd, stderr := c.command(runCtx, gitEnv(), "--git-dir="+r.gitDir, "archive", "--format=tar", r.commit)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("run git archive: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run git archive (is git installed?): %w", err)
	}
	x := extractor{c: c, root: root, info: &info, dirs: map[string]bool{}}
	exErr := x.run(tar.NewReader(stdout))
	if exErr != nil {
		cancel() // stop git: the rest of the archive is not wanted
	}
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case waitErr != nil && exErr == nil, waitErr != nil && errors.Is(exErr, tar.ErrHeader), waitErr != nil && errors.Is(exErr, io.ErrUnexpectedEOF):
		// git failed (a truncated archive is its failure, not the reader's)
		return c.archiveErr(r, strings.TrimSpace(stderr.String()), waitErr)
	case exErr != nil:
		return exErr
	}
	if err := x.finish(); err != nil {
		return err
	}
	b, err := jsonIndent(info)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dst, infoFile), b, 0o444); err != nil {
		return fmt.Errorf("write %s: %w", infoFile, err)
	}
	if err := os.Chmod(dst, 0o555); err != nil {
		return fmt.Errorf("make the snapshot read-only: %w", err)
	}
	return nil
}

// archiveErr classifies a failed git archive or rev-parse.
func (c *Cache) archiveErr(r resolved, stderr string, err error) error {
	if missingObjects(stderr) {
		return &kindError{kind: ErrMissingObjects, cause: err, msg: fmt.Sprintf(
			"the clone at %s lacks objects of commit %s (a partial or damaged clone? fetch them with: git -C %s fetch origin %s, or check it with git -C %s fsck): git: %s",
			r.dir, r.commit, r.dir, r.commit, r.dir, stderr)}
	}
	if stderr == "" {
		stderr = err.Error()
	}
	return fmt.Errorf("git archive of commit %s in %s failed: %s", r.commit, r.dir, stderr)
}

type extractor struct {
	c     *Cache
	root  *os.Root
	info  *Info
	dirs  map[string]bool // created directories, made read-only at the end
	links []*tar.Header
}

func (x *extractor) skip(name string, size int64, reason string) {
	x.info.Skipped = append(x.info.Skipped, Skipped{Path: name, Size: size, Reason: reason})
}

func (x *extractor) run(tr *tar.Reader) error {
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read git archive: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue // git's pax header holding the commit id
		}
		name := strings.TrimSuffix(h.Name, "/")
		if !filepath.IsLocal(name) || strings.Contains(name, "\\") || path.Clean(name) != name {
			return fmt.Errorf("git archive of %s holds the entry %q, which is not a plain relative path: refused", x.info.Commit, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := x.mkdir(name); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := x.file(tr, h, name); err != nil {
				return err
			}
		case tar.TypeSymlink:
			x.links = append(x.links, h)
		default:
			x.skip(name, h.Size, fmt.Sprintf("not a regular file, directory or symbolic link (tar type %q)", h.Typeflag))
		}
	}
}

// mkdir creates the directory name and its parents.
func (x *extractor) mkdir(name string) error {
	if name == "." || x.dirs[name] {
		return nil
	}
	if err := x.root.MkdirAll(name, 0o755); err != nil {
		return fmt.Errorf("extract %s: %w", name, err)
	}
	for d := name; d != "." && !x.dirs[d]; d = path.Dir(d) {
		x.dirs[d] = true
	}
	return nil
}

func (x *extractor) file(tr *tar.Reader, h *tar.Header, name string) error {
	if limit := x.c.opts.MaxFileSize; limit >= 0 && h.Size > limit {
		x.skip(name, h.Size, fmt.Sprintf("%d bytes, over the %d-byte extraction limit", h.Size, limit))
		return nil
	}
	if n := x.c.opts.MaxFiles; n >= 0 && x.info.Files >= n {
		return &kindError{kind: ErrTooBig, msg: fmt.Sprintf("commit %s of %s has more than %d files, the snapshot limit (raise snapshot.Options.MaxFiles)", x.info.Commit, x.info.Repo, n)}
	}
	if n := x.c.opts.MaxBytes; n >= 0 && x.info.Bytes+h.Size > n {
		return &kindError{kind: ErrTooBig, msg: fmt.Sprintf("commit %s of %s has more than %d bytes of files, the snapshot limit (raise snapshot.Options.MaxBytes)", x.info.Commit, x.info.Repo, n)}
	}
	if err := x.mkdir(path.Dir(name)); err != nil {
		return err
	}
	f, err := x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("extract %s (is it in the archive twice?): %w", name, err)
	}
	_, err = io.Copy(f, tr)
	mode := fs.FileMode(0o444)
	if h.Mode&0o111 != 0 {
		mode = 0o555
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !h.ModTime.IsZero() {
		// The commit's time, as tar sets it: an mtime far from now lets the code graph's stat
		// cache trust these files at once.
		err = x.root.Chtimes(name, time.Time{}, h.ModTime)
	}
	if err != nil {
		return fmt.Errorf("extract %s: %w", name, err)
	}
	x.info.Files++
	x.info.Bytes += h.Size
	return nil
}

// finish creates the symbolic links, then makes the directories read-only, deepest first.
func (x *extractor) finish() error {
	for _, h := range x.links {
		name := strings.TrimSuffix(h.Name, "/")
		if err := x.mkdir(path.Dir(name)); err != nil {
			return err
		}
		if err := x.root.Symlink(h.Linkname, name); err != nil {
			return fmt.Errorf("extract the symbolic link %s (is it in the archive twice?): %w", name, err)
		}
		x.info.Symlinks++
	}
	dirs := slices.Collect(maps.Keys(x.dirs))
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range append(dirs, ".") {
		if err := x.root.Chmod(d, 0o555); err != nil {
			return fmt.Errorf("make %s read-only: %w", d, err)
		}
	}
	return nil
}
