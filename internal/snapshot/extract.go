package snapshot

import (
	"bufio"
	"bytes"
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
	"strconv"
	"strings"
	"time"
)

// extract writes the tree of r.commit into the empty directory dst as dst/tree and
// dst/snapshot.json: the entries `git ls-tree -r` lists, each blob written as the object store
// holds it (`git cat-file --batch`: no filters, no attributes, no export-subst or export-ignore,
// no hooks), through a view of the repository that has none of its configuration (gitView).
// Names that are not plain relative paths (absolute, with .. or empty elements, a .git
// element, a backslash), files over the size limit, entries that clash with an earlier one and
// other entry types are left out and listed in Info.Skipped; symbolic links are created last
// and as they are (so that no entry is ever written through one); files get modes 0444 or
// 0555 and the commit's time, directories 0555.
func (c *Cache) extract(ctx context.Context, r resolved, dst string) error {
	info := Info{Repo: r.gitDir, Commit: r.commit}
	v, err := newGitView(c.sb, r.gitDir, "")
	if err != nil {
		return err
	}
	defer v.close()

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
	b, err := c.startBatch(runCtx, v)
	if err != nil {
		return err
	}
	x := extractor{c: c, root: root, info: &info, dirs: map[string]bool{}, cancel: cancel}
	exErr := x.run(runCtx, v, b)
	if exErr != nil {
		cancel() // stop git: the rest is not wanted
	}
	waitErr := b.close(runCtx)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case exErr != nil:
		var ge *gitError
		if errors.As(exErr, &ge) {
			return c.archiveErr(r, ge.stderr, exErr)
		}
		return exErr
	case waitErr != nil:
		return c.archiveErr(r, waitErr.Error(), waitErr)
	}
	if err := x.finish(); err != nil {
		return err
	}
	js, err := jsonIndent(info)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dst, infoFile), js, 0o444); err != nil {
		return fmt.Errorf("write %s: %w", infoFile, err)
	}
	if err := os.Chmod(dst, 0o555); err != nil {
		return fmt.Errorf("make the snapshot read-only: %w", err)
	}
	return nil
}

// archiveErr classifies a failed ls-tree or cat-file.
func (c *Cache) archiveErr(r resolved, stderr string, err error) error {
	if missingObjects(stderr) {
		return &kindError{kind: ErrMissingObjects, cause: err, msg: fmt.Sprintf(
			"the clone at %s lacks objects of commit %s (a partial or damaged clone? fetch them with: git -C %s fetch origin %s, or check it with git -C %s fsck): git: %s",
			r.dir, r.commit, r.dir, r.commit, r.dir, stderr)}
	}
	if stderr == "" {
		stderr = err.Error()
	}
	return fmt.Errorf("reading the tree of commit %s in %s failed: %s", r.commit, r.dir, stderr)
}

// batch is a running `git cat-file --batch`: objects are asked for by id, one line each, and
// answered in order.
type batch struct {
	proc *gitProc
	in   *os.File // a write to it fails once git is gone
	out  *bufio.Reader
	outR *os.File
}

func (c *Cache) startBatch(ctx context.Context, v *gitView) (*batch, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("run git cat-file: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("run git cat-file: %w", err)
	}
	g, err := c.start(ctx, v, inR, outW, "cat-file", "--batch")
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	return &batch{proc: g, in: inW, out: bufio.NewReaderSize(outR, 64<<10), outR: outR}, nil
}

// ask asks for an object; its answer is read with read, in the order asked.
func (b *batch) ask(id string) error {
	if _, err := io.WriteString(b.in, id+"\n"); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	return nil
}

// header reads the next answer's header: the object's type and size. A missing object is an
// error that names it.
func (b *batch) header() (typ string, size int64, err error) {
	line, err := b.out.ReadString('\n')
	if err != nil {
		return "", 0, &gitError{err: err, stderr: strings.TrimSpace(b.proc.stderr.String())}
	}
	f := strings.Fields(line)
	if len(f) == 2 && f[1] == "missing" {
		return "", 0, &gitError{err: errors.New("missing object"), stderr: "missing blob " + f[0]}
	}
	if len(f) != 3 {
		return "", 0, fmt.Errorf("git cat-file said %q", strings.TrimSpace(line))
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	return f[1], size, err
}

// body copies the current answer's content of size bytes to w, then its trailing newline away.
func (b *batch) body(w io.Writer, size int64) error {
	if _, err := io.CopyN(w, b.out, size); err != nil {
		return &gitError{err: err, stderr: strings.TrimSpace(b.proc.stderr.String())}
	}
	_, err := b.out.Discard(1)
	return err
}

func (b *batch) close(ctx context.Context) error {
	b.in.Close()
	defer b.outR.Close()
	go func() { _, _ = io.Copy(io.Discard, b.out) }()
	return b.proc.wait(ctx)
}

// entry is a line of ls-tree.
type entry struct {
	mode, typ, id string
	size          int64
	name          string
}

type extractor struct {
	c     *Cache
	root  *os.Root
	info  *Info
	dirs  map[string]bool // created directories, made read-only at the end
	links [][2]string     // name, target: created last
	mtime time.Time
	// cancel stops git at the first failure: cat-file would otherwise wait for its answers to
	// be read, and ls-tree's reader for cat-file.
	cancel context.CancelFunc
}

func (x *extractor) skip(name string, size int64, reason string) {
	x.info.Skipped = append(x.info.Skipped, Skipped{Path: name, Size: size, Reason: reason})
}

// run reads the commit (its tree and time), then each entry of ls-tree, asking cat-file for
// the blobs to write. ls-tree's output streams through a goroutine so that cat-file's answers
// are read as they come.
func (x *extractor) run(ctx context.Context, v *gitView, b *batch) error {
	if err := x.commit(b); err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("run git ls-tree: %w", err)
	}
	defer outR.Close()
	ls, err := x.c.start(ctx, v, nil, outW, "ls-tree", "-r", "-l", "-z", "--full-tree", x.info.Tree)
	outW.Close()
	if err != nil {
		return err
	}
	wanted := make(chan entry, 256)
	listErr := make(chan error, 1)
	go func() {
		defer close(wanted)
		listErr <- x.list(bufio.NewReaderSize(outR, 64<<10), b, wanted)
	}()
	var exErr error
	for e := range wanted {
		if exErr == nil {
			if exErr = x.write(b, e); exErr != nil {
				x.cancel()
			}
		}
	}
	lsErr := <-listErr
	waitErr := ls.wait(ctx)
	switch {
	case exErr != nil:
		return exErr
	case waitErr != nil:
		return waitErr
	}
	return lsErr
}

// commit reads the commit object: its tree id and committer time (the files' mtime, as git
// archive set it: an mtime far from now lets the code graph's stat cache trust them at once).
func (x *extractor) commit(b *batch) error {
	if err := b.ask(x.info.Commit); err != nil {
		return err
	}
	typ, size, err := b.header()
	if err != nil {
		return err
	}
	var body strings.Builder
	if err := b.body(&body, size); err != nil {
		return err
	}
	if typ != "commit" {
		return fmt.Errorf("%s is a %s, not a commit", x.info.Commit, typ)
	}
	for _, line := range strings.Split(body.String(), "\n") {
		if line == "" {
			break
		}
		if t, ok := strings.CutPrefix(line, "tree "); ok {
			x.info.Tree = t
		}
		if c, ok := strings.CutPrefix(line, "committer "); ok {
			f := strings.Fields(c)
			if len(f) >= 2 {
				if secs, err := strconv.ParseInt(f[len(f)-2], 10, 64); err == nil {
					x.mtime = time.Unix(secs, 0)
				}
			}
		}
	}
	if x.info.Tree == "" {
		return fmt.Errorf("commit %s names no tree", x.info.Commit)
	}
	return nil
}

// list reads ls-tree's entries, leaves out those that are not written and asks cat-file for
// the others' blobs, handing each to wanted in order.
func (x *extractor) list(r *bufio.Reader, b *batch, wanted chan<- entry) error {
	for {
		rec, err := r.ReadString(0)
		if err == io.EOF && rec == "" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read git ls-tree: %w", err)
		}
		meta, name, ok := strings.Cut(strings.TrimSuffix(rec, "\x00"), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return fmt.Errorf("git ls-tree said %q", rec)
		}
		e := entry{mode: f[0], typ: f[1], id: f[2], name: name}
		e.size, _ = strconv.ParseInt(f[3], 10, 64)
		if reason := badName(name); reason != "" {
			x.skip(name, e.size, reason)
			continue
		}
		switch {
		case e.typ == "commit": // a submodule: an empty directory, as git archive made it
		case e.typ != "blob":
			x.skip(name, e.size, fmt.Sprintf("not a regular file, directory or symbolic link (git %s, mode %s)", e.typ, e.mode))
			continue
		case e.mode == "120000":
			if err := b.ask(e.id); err != nil {
				return err
			}
		default:
			if limit := x.c.opts.MaxFileSize; limit >= 0 && e.size > limit {
				x.skip(name, e.size, fmt.Sprintf("%d bytes, over the %d-byte extraction limit", e.size, limit))
				continue
			}
			if err := b.ask(e.id); err != nil {
				return err
			}
		}
		wanted <- e
	}
}

// badName says why a tree entry's name is not written, or "".
func badName(name string) string {
	if !filepath.IsLocal(name) || strings.Contains(name, "\\") || path.Clean(name) != name {
		return "the name is not a plain relative path: refused"
	}
	for _, part := range strings.Split(name, "/") {
		if strings.EqualFold(part, ".git") {
			return "a .git element: refused (a snapshot holds no repository)"
		}
	}
	return ""
}

// write writes one wanted entry, reading its blob's answer.
func (x *extractor) write(b *batch, e entry) error {
	if e.typ == "commit" {
		if err := x.mkdir(e.name); err != nil {
			x.skip(e.name, 0, "a submodule whose directory clashes with another entry: "+err.Error())
		}
		return nil
	}
	typ, size, err := b.header()
	if err != nil {
		return err
	}
	if typ != "blob" {
		return fmt.Errorf("object %s of %s is a %s, not a blob", e.id, e.name, typ)
	}
	if e.mode == "120000" {
		var target strings.Builder
		if err := b.body(&target, size); err != nil {
			return err
		}
		x.links = append(x.links, [2]string{e.name, target.String()})
		return nil
	}
	if n := x.c.opts.MaxFiles; n >= 0 && x.info.Files >= n {
		return &kindError{kind: ErrTooBig, msg: fmt.Sprintf("commit %s of %s has more than %d files, the snapshot limit (raise snapshot.Options.MaxFiles)", x.info.Commit, x.info.Repo, n)}
	}
	if n := x.c.opts.MaxBytes; n >= 0 && x.info.Bytes+size > n {
		return &kindError{kind: ErrTooBig, msg: fmt.Sprintf("commit %s of %s has more than %d bytes of files, the snapshot limit (raise snapshot.Options.MaxBytes)", x.info.Commit, x.info.Repo, n)}
	}
	return x.file(b, e, size)
}

func (x *extractor) file(b *batch, e entry, size int64) error {
	if err := x.mkdir(path.Dir(e.name)); err != nil {
		x.skip(e.name, size, "its directory clashes with another entry: "+err.Error())
		return b.body(io.Discard, size)
	}
	f, err := x.root.OpenFile(e.name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		x.skip(e.name, size, "clashes with another entry of the same name")
		return b.body(io.Discard, size)
	}
	lc := &lineCounter{w: f}
	err = b.body(lc, size)
	mode := fs.FileMode(0o444)
	if e.mode == "100755" {
		mode = 0o555
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !x.mtime.IsZero() {
		err = x.root.Chtimes(e.name, time.Time{}, x.mtime)
	}
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) {
			return err
		}
		return fmt.Errorf("extract %s: %w", e.name, err)
	}
	x.info.Files++
	x.info.Bytes += size
	if x.info.Lines == nil {
		x.info.Lines = new(int64)
	}
	*x.info.Lines += lc.count()
	return nil
}

// lineCounter passes a file's content on, counting its lines and whether it is binary (a NUL
// byte in its first 8000 bytes, as git tells).
type lineCounter struct {
	w      io.Writer
	n      int64 // bytes seen
	lines  int64
	binary bool
	last   byte
}

func (c *lineCounter) Write(p []byte) (int, error) {
	if head := 8000 - c.n; head > 0 && !c.binary {
		if bytes.IndexByte(p[:min(int64(len(p)), head)], 0) >= 0 {
			c.binary = true
		}
	}
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if len(p) > 0 {
		c.last = p[len(p)-1]
	}
	c.n += int64(len(p))
	return c.w.Write(p)
}

// count is the file's lines: its newlines, and a last line without one; none for a binary file.
func (c *lineCounter) count() int64 {
	switch {
	case c.binary:
		return 0
	case c.n > 0 && c.last != '\n':
		return c.lines + 1
	}
	return c.lines
}

// mkdir creates the directory name and its parents.
func (x *extractor) mkdir(name string) error {
	if name == "." || x.dirs[name] {
		return nil
	}
	if err := x.root.MkdirAll(name, 0o755); err != nil {
		return err
	}
	for d := name; d != "." && !x.dirs[d]; d = path.Dir(d) {
		x.dirs[d] = true
	}
	return nil
}

// finish creates the symbolic links, then makes the directories read-only, deepest first.
func (x *extractor) finish() error {
	for _, l := range x.links {
		name, target := l[0], l[1]
		if err := x.mkdir(path.Dir(name)); err != nil {
			x.skip(name, 0, "a symbolic link whose directory clashes with another entry: "+err.Error())
			continue
		}
		if err := x.root.Symlink(target, name); err != nil {
			x.skip(name, 0, "a symbolic link that clashes with another entry of the same name")
			continue
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
