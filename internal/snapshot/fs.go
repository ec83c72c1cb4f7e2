package snapshot

import (
	"io"
	"io/fs"
)

// FS returns the snapshot as an fs.FS (also fs.StatFS, fs.ReadFileFS, fs.ReadDirFS and
// fs.ReadLinkFS), for code that takes one. It keeps the handle's rules and shares its budget:
// names are fs.ValidPath names (a .. element or a leading slash is fs.ErrInvalid, and matches
// ErrOutside too), symbolic links that leave the snapshot are refused, ReadFile and Open refuse
// files over Limits.MaxFileSize, ReadDir lists at most Limits.MaxEntries entries.
func (s *Snapshot) FS() fs.FS { return snapFS{s} }

type snapFS struct{ s *Snapshot }

func valid(op, name string) error {
	if fs.ValidPath(name) {
		return nil
	}
	return &fs.PathError{Op: op, Path: name, Err: &kindError{kind: fs.ErrInvalid, also: ErrOutside,
		msg: "invalid name (fs.FS names are unrooted slash paths without . or .. elements)"}}
}

func (f snapFS) Open(name string) (fs.File, error) {
	if err := valid("open", name); err != nil {
		return nil, err
	}
	file, err := f.s.open(name, name)
	if err != nil {
		return nil, err
	}
	return file, nil
}

func (f snapFS) ReadFile(name string) ([]byte, error) {
	if err := valid("read", name); err != nil {
		return nil, err
	}
	data, _, err := f.s.read(name, name, false)
	return data, err
}

// Stream opens a file of any size as a stream (Snapshot.Stream): readers of whole manifests,
// such as internal/deps, find it on the FS.
func (f snapFS) Stream(name string) (io.ReadCloser, int64, error) {
	if err := valid("open", name); err != nil {
		return nil, 0, err
	}
	file, size, err := f.s.Stream(name)
	if err != nil {
		return nil, 0, err
	}
	return file, size, nil
}

func (f snapFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := valid("readdir", name); err != nil {
		return nil, err
	}
	return f.s.readDir(name, name)
}

func (f snapFS) Stat(name string) (fs.FileInfo, error) {
	if err := valid("stat", name); err != nil {
		return nil, err
	}
	return f.s.Stat(name)
}

func (f snapFS) Lstat(name string) (fs.FileInfo, error) {
	if err := valid("lstat", name); err != nil {
		return nil, err
	}
	return f.s.Lstat(name)
}

func (f snapFS) ReadLink(name string) (string, error) {
	if err := valid("readlink", name); err != nil {
		return "", err
	}
	return f.s.Readlink(name)
}
