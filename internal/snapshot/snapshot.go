package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// Limits bound what one Snapshot handle returns, so that a tool's output stays small whatever
// the repository holds. Zero fields take the defaults; a negative field means no limit.
type Limits struct {
	// MaxFileSize is the largest file ReadFile, Open and the fs.FS view return whole; larger
	// files are refused with ErrTooLarge, and Read returns their first MaxFileSize bytes with
	// Truncated set. Default 1 MiB.
	MaxFileSize int64
	// MaxTotalBytes is how much file content the handle returns over its life (ReadFile, Read,
	// reads of opened files); past it reads fail with ErrBudget. Default 128 MiB.
	MaxTotalBytes int64
	// MaxEntries is how many entries a ReadDir returns and a Walk visits; past it they fail
	// with ErrTooMany. Default 100,000.
	MaxEntries int
}

// Default limits.
const (
	DefaultMaxFileSize   = 1 << 20
	DefaultMaxTotalBytes = 128 << 20
	DefaultMaxEntries    = 100_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxFileSize == 0 {
		l.MaxFileSize = DefaultMaxFileSize
	}
	if l.MaxTotalBytes == 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if l.MaxEntries == 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	return l
}

// BinarySniff is how much of a file IsBinary looks at, as git does.
const BinarySniff = 8000

// IsBinary reports whether content looks binary by git's rule: a NUL byte in its first 8000
// bytes. Invalid UTF-8 alone does not make a file binary (Latin-1 sources are common).
func IsBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), BinarySniff)], 0) >= 0
}

// Info describes a materialised snapshot; it is saved beside the tree as snapshot.json.
type Info struct {
	Repo     string `json:"repo"`   // the repository's git directory it was made from
	Commit   string `json:"commit"` // full commit id
	Tree     string `json:"tree"`   // the commit's tree id
	Files    int    `json:"files"`  // regular files extracted
	Symlinks int    `json:"symlinks"`
	Bytes    int64  `json:"bytes"` // bytes of the regular files
	// Lines counts the lines of the regular files that are text (no NUL byte in their first
	// 8000 bytes): the snapshot's size in lines of code, counted once as it is extracted (nil
	// in a snapshot extracted before it was counted).
	Lines   *int64    `json:"lines,omitempty"`
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is an entry of the commit left out of the snapshot, and why.
type Skipped struct {
	Path   string `json:"path"`
	Size   int64  `json:"size,omitempty"`
	Reason string `json:"reason"`
}

// Snapshot is a handle on a materialised snapshot: read access confined to its tree, with its
// own Limits and read budget. It is safe for concurrent use. Close it.
type Snapshot struct {
	dir     string // the snapshot's directory: tree/ and snapshot.json
	root    *os.Root
	info    Info
	skipped map[string]Skipped
	limits  Limits
	spent   atomic.Int64
	built   bool
}

// treeDir and infoFile are the names inside a snapshot's directory.
const (
	treeDir  = "tree"
	infoFile = "snapshot.json"
)

// OpenDir opens the snapshot materialised in dir (a CACHE/snapshots/KEY directory) with the
// given limits.
func OpenDir(dir string, l Limits) (*Snapshot, error) {
	b, err := os.ReadFile(filepath.Join(dir, infoFile))
	if err != nil {
		return nil, fmt.Errorf("open snapshot %s (remove the directory with snapshot.RemoveAll to rebuild it): %w", dir, err)
	}
	s := &Snapshot{dir: dir, limits: l.withDefaults()}
	if err := json.Unmarshal(b, &s.info); err != nil {
		return nil, fmt.Errorf("open snapshot %s: %s is damaged (remove the directory with snapshot.RemoveAll to rebuild it): %w", dir, infoFile, err)
	}
	if s.root, err = os.OpenRoot(filepath.Join(dir, treeDir)); err != nil {
		return nil, fmt.Errorf("open snapshot %s (remove the directory with snapshot.RemoveAll to rebuild it): %w", dir, err)
	}
	if len(s.info.Skipped) > 0 {
		s.skipped = make(map[string]Skipped, len(s.info.Skipped))
		for _, sk := range s.info.Skipped {
			s.skipped[sk.Path] = sk
		}
	}
	return s, nil
}

// Close releases the handle's directory descriptor; the snapshot stays in the cache.
func (s *Snapshot) Close() error { return s.root.Close() }

// Root is the directory holding the snapshot's files, for programs that must run on a
// directory (scanners). It is shared by every unit using this snapshot and must be treated as
// read-only (files are mode 0444 or 0555, directories 0555). Symbolic links are kept as the
// commit has them, including ones that point outside the tree: a program that follows
// symbolic links can leave it, unless it runs in internal/sandbox (where the tree is /project
// and outside is the sandbox's own view). Readers that must stay inside use the Snapshot's
// methods.
func (s *Snapshot) Root() string { return filepath.Join(s.dir, treeDir) }

// Dir is the snapshot's cache directory (Root's parent, holding snapshot.json).
func (s *Snapshot) Dir() string { return s.dir }

// Info describes the snapshot.
func (s *Snapshot) Info() Info { return s.info }

// Limits are the handle's limits, defaults filled in.
func (s *Snapshot) Limits() Limits { return s.limits }

// Built reports whether the Cache.Get that returned this handle materialised the snapshot
// (rather than finding it in the cache or waiting for another caller that did).
func (s *Snapshot) Built() bool { return s.built }

// Spent is how many bytes of content the handle has returned.
func (s *Snapshot) Spent() int64 { return s.spent.Load() }

// clean turns a caller's path (slash-separated, relative to the root; "" and "." are the root)
// into the name os.Root is given. Absolute paths and paths that climb out with .. are refused
// here, lexically; symbolic links are os.Root's to check.
func clean(op, name string) (string, error) {
	if strings.HasPrefix(name, "/") || filepath.IsAbs(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: &kindError{kind: ErrOutside, msg: "absolute paths are not allowed: give a path relative to the repository root"}}
	}
	c := path.Clean("./" + name)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", &fs.PathError{Op: op, Path: name, Err: &kindError{kind: ErrOutside, msg: "the path climbs out of the repository with ..: give a path relative to the repository root"}}
	}
	if strings.IndexByte(c, 0) >= 0 {
		return "", &fs.PathError{Op: op, Path: name, Err: &kindError{kind: fs.ErrInvalid, msg: "the path holds a NUL byte"}}
	}
	return c, nil
}

// notFound adds, to a missing file's error, that the file was left out when it was.
func (s *Snapshot) notFound(op, name, cleaned string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if sk, ok := s.skipped[cleaned]; ok {
		return &fs.PathError{Op: op, Path: name, Err: &kindError{kind: ErrSkipped, also: fs.ErrNotExist, msg: "left out of the snapshot: " + sk.Reason}}
	}
	return err
}

// Stat returns the file's information, following symbolic links that stay inside the snapshot.
func (s *Snapshot) Stat(name string) (fs.FileInfo, error) {
	c, err := clean("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := s.root.Stat(c)
	if err != nil {
		return nil, s.notFound("stat", name, c, pathErr("stat", name, err))
	}
	return fi, nil
}

// Lstat returns the file's information without following a final symbolic link.
func (s *Snapshot) Lstat(name string) (fs.FileInfo, error) {
	c, err := clean("lstat", name)
	if err != nil {
		return nil, err
	}
	fi, err := s.root.Lstat(c)
	if err != nil {
		return nil, s.notFound("lstat", name, c, pathErr("lstat", name, err))
	}
	return fi, nil
}

// Readlink returns a symbolic link's target as the commit has it (it may point outside; it is
// text, nothing is read from there).
func (s *Snapshot) Readlink(name string) (string, error) {
	c, err := clean("readlink", name)
	if err != nil {
		return "", err
	}
	t, err := s.root.Readlink(c)
	if err != nil {
		return "", s.notFound("readlink", name, c, pathErr("readlink", name, err))
	}
	return t, nil
}

// File is a file opened in a snapshot: reads count against the handle's budget and stop at
// Limits.MaxFileSize.
type File struct {
	f      *os.File
	s      *Snapshot
	name   string
	left   int64 // bytes this file may still return
	listed int   // directory entries returned so far
}

// Open opens a file or directory for reading. Regular files over Limits.MaxFileSize are
// refused with ErrTooLarge.
func (s *Snapshot) Open(name string) (*File, error) {
	c, err := clean("open", name)
	if err != nil {
		return nil, err
	}
	return s.open(name, c)
}

func (s *Snapshot) open(name, c string) (*File, error) {
	f, err := s.root.Open(c)
	if err != nil {
		return nil, s.notFound("open", name, c, pathErr("open", name, err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if fi.Mode().IsRegular() && s.limits.MaxFileSize >= 0 && fi.Size() > s.limits.MaxFileSize {
		f.Close()
		return nil, s.tooLarge("open", name, fi.Size())
	}
	left := s.limits.MaxFileSize
	if left < 0 {
		left = math.MaxInt64
	}
	return &File{f: f, s: s, name: name, left: left}, nil
}

// Stream opens a regular file for reading from start to end whatever its size, for tools that
// go over a big file line by line (counting lines, searching) without holding it: no
// MaxFileSize cut, but every byte read is charged to the handle's MaxTotalBytes budget (past it,
// Read fails with ErrBudget). It returns the file's size too.
func (s *Snapshot) Stream(name string) (*File, int64, error) {
	c, err := clean("open", name)
	if err != nil {
		return nil, 0, err
	}
	f, err := s.root.Open(c)
	if err != nil {
		return nil, 0, s.notFound("open", name, c, pathErr("open", name, err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, &fs.PathError{Op: "open", Path: name, Err: &kindError{kind: fs.ErrInvalid, msg: "not a regular file (a directory? list it instead)"}}
	}
	return &File{f: f, s: s, name: name, left: math.MaxInt64}, fi.Size(), nil
}

// tooLarge is the error for a file of size bytes (-1: unknown) over the read limit.
func (s *Snapshot) tooLarge(op, name string, size int64) error {
	what := "the file is"
	if size >= 0 {
		what = fmt.Sprintf("the file is %d bytes,", size)
	}
	return &fs.PathError{Op: op, Path: name, Err: &kindError{kind: ErrTooLarge,
		msg: fmt.Sprintf("%s over the %d-byte read limit: read part of it (Snapshot.Read returns the first %d bytes)", what, s.limits.MaxFileSize, s.limits.MaxFileSize)}}
}

// charge takes n bytes from the handle's budget; it returns how many may be returned.
func (s *Snapshot) charge(n int64) int64 {
	if s.limits.MaxTotalBytes < 0 || n == 0 {
		return n
	}
	for {
		spent := s.spent.Load()
		room := s.limits.MaxTotalBytes - spent
		if room <= 0 {
			return 0
		}
		take := min(n, room)
		if s.spent.CompareAndSwap(spent, spent+take) {
			return take
		}
	}
}

// chargeAll takes n bytes from the handle's budget if they are all there.
func (s *Snapshot) chargeAll(n int64) bool {
	if s.limits.MaxTotalBytes < 0 {
		return true
	}
	for {
		spent := s.spent.Load()
		if spent+n > s.limits.MaxTotalBytes {
			return false
		}
		if s.spent.CompareAndSwap(spent, spent+n) {
			return true
		}
	}
}

func (s *Snapshot) budgetErr(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: &kindError{kind: ErrBudget,
		msg: fmt.Sprintf("this unit has read its %d bytes of repository content: answer with what was read", s.limits.MaxTotalBytes)}}
}

// Read reads at most len(p) bytes, within the file's and the handle's limits.
func (f *File) Read(p []byte) (int, error) {
	if f.left <= 0 {
		if n, _ := f.f.Read(p[:min(len(p), 1)]); n > 0 {
			return 0, f.s.tooLarge("read", f.name, -1)
		}
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), f.left)]
	n, err := f.f.Read(p)
	if n > 0 {
		got := f.s.charge(int64(n))
		if got < int64(n) {
			return int(got), f.s.budgetErr("read", f.name)
		}
		f.left -= int64(n)
	}
	return n, err
}

// Stat returns the file's information.
func (f *File) Stat() (fs.FileInfo, error) { return f.f.Stat() }

// ReadDir reads the directory's entries as fs.ReadDirFile does (n <= 0: all of them), in
// directory order; past Limits.MaxEntries entries in all it fails with ErrTooMany.
func (f *File) ReadDir(n int) ([]fs.DirEntry, error) {
	lim := f.s.limits.MaxEntries
	if lim < 0 {
		return f.f.ReadDir(n)
	}
	if f.listed > lim {
		return nil, f.s.tooMany("readdir", f.name)
	}
	k := lim + 1 - f.listed
	if n > 0 {
		k = min(n, k)
	}
	es, err := f.f.ReadDir(k)
	if n <= 0 && err == io.EOF {
		err = nil
	}
	f.listed += len(es)
	if f.listed > lim {
		return es[:len(es)-(f.listed-lim)], f.s.tooMany("readdir", f.name)
	}
	return es, err
}

func (s *Snapshot) tooMany(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: &kindError{kind: ErrTooMany,
		msg: fmt.Sprintf("more than %d entries: look at a subdirectory", s.limits.MaxEntries)}}
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadFile returns a whole file, following symbolic links that stay inside. Files over
// Limits.MaxFileSize are refused with ErrTooLarge, directories with an error.
func (s *Snapshot) ReadFile(name string) ([]byte, error) {
	c, err := clean("read", name)
	if err != nil {
		return nil, err
	}
	data, _, err := s.read(name, c, false)
	return data, err
}

// Content is what Read returns.
type Content struct {
	Data      []byte // at most Limits.MaxFileSize bytes
	Size      int64  // the file's size
	Truncated bool   // Data is the first len(Data) bytes of a larger file
	Binary    bool   // Data looks binary (see IsBinary): a tool shows "binary file, not shown"
}

// Read returns a file's content, bounded: a file over Limits.MaxFileSize yields its first
// MaxFileSize bytes with Truncated set; only those bytes are read into memory.
func (s *Snapshot) Read(name string) (Content, error) {
	c, err := clean("read", name)
	if err != nil {
		return Content{}, err
	}
	data, size, err := s.read(name, c, true)
	if err != nil {
		return Content{}, err
	}
	return Content{Data: data, Size: size, Truncated: int64(len(data)) < size, Binary: IsBinary(data)}, nil
}

func (s *Snapshot) read(name, c string, truncate bool) ([]byte, int64, error) {
	f, err := s.root.Open(c)
	if err != nil {
		return nil, 0, s.notFound("read", name, c, pathErr("read", name, err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, &fs.PathError{Op: "read", Path: name, Err: &kindError{kind: fs.ErrInvalid, msg: "not a regular file (a directory? list it instead)"}}
	}
	want := fi.Size()
	if s.limits.MaxFileSize >= 0 && want > s.limits.MaxFileSize {
		if !truncate {
			return nil, 0, s.tooLarge("read", name, want)
		}
		want = s.limits.MaxFileSize
	}
	if !s.chargeAll(want) {
		return nil, 0, s.budgetErr("read", name)
	}
	data := make([]byte, want)
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, 0, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data[:n], fi.Size(), nil
}

// ReadDir lists a directory sorted by name (symbolic links are listed as links, not
// followed), at most Limits.MaxEntries of them: past that, the entries read so far come with
// an ErrTooMany error.
func (s *Snapshot) ReadDir(name string) ([]fs.DirEntry, error) {
	c, err := clean("readdir", name)
	if err != nil {
		return nil, err
	}
	return s.readDir(name, c)
}

func (s *Snapshot) readDir(name, c string) ([]fs.DirEntry, error) {
	f, err := s.root.Open(c)
	if err != nil {
		return nil, s.notFound("readdir", name, c, pathErr("readdir", name, err))
	}
	defer f.Close()
	var es []fs.DirEntry
	if lim := s.limits.MaxEntries; lim >= 0 {
		es, err = f.ReadDir(lim + 1)
		if err == io.EOF {
			err = nil
		}
		if len(es) > lim {
			es, err = es[:lim], s.tooMany("readdir", name)
		}
	} else {
		es, err = f.ReadDir(-1)
	}
	if err != nil && !errors.Is(err, ErrTooMany) {
		err = &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return es, err
}

// Walk calls fn for name and everything under it, in lexical order, as fs.WalkDir does, with
// slash paths relative to the snapshot root. It never descends through a symbolic link (not
// even when name itself is one) and stops with ErrTooMany after Limits.MaxEntries entries.
func (s *Snapshot) Walk(name string, fn fs.WalkDirFunc) error {
	c, err := clean("walk", name)
	if err != nil {
		return err
	}
	fi, err := s.root.Lstat(c)
	if err != nil {
		err = fn(c, nil, s.notFound("walk", name, c, pathErr("walk", name, err)))
	} else {
		w := walker{s: s, fn: fn}
		err = w.walk(c, fs.FileInfoToDirEntry(fi))
	}
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

type walker struct {
	s     *Snapshot
	fn    fs.WalkDirFunc
	count int
}

func (w *walker) walk(p string, d fs.DirEntry) error {
	w.count++
	if lim := w.s.limits.MaxEntries; lim >= 0 && w.count > lim {
		return &fs.PathError{Op: "walk", Path: p, Err: &kindError{kind: ErrTooMany,
			msg: fmt.Sprintf("the walk visited %d entries, its limit: walk a subdirectory", lim)}}
	}
	if err := w.fn(p, d, nil); err != nil || !d.IsDir() {
		if err == fs.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	es, err := w.s.readDir(p, p)
	if err != nil {
		if err = w.fn(p, d, err); err != nil {
			if err == fs.SkipDir {
				err = nil
			}
			return err
		}
	}
	for _, e := range es {
		child := e.Name()
		if p != "." {
			child = p + "/" + child
		}
		if err := w.walk(child, e); err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}
