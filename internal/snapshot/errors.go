package snapshot

import (
	"errors"
	"io/fs"
	"syscall"
)

// Errors the package's errors match with errors.Is. Each error's own message says which path,
// commit and repository it concerns and what to do.
var (
	// ErrNoRepository: the repository directory does not exist, or Locate found it nowhere.
	ErrNoRepository = errors.New("repository not found")
	// ErrNotRepository: the directory exists but is not a git repository.
	ErrNotRepository = errors.New("not a git repository")
	// ErrNoCommit: the repository does not hold the commit (a shallow or stale clone).
	ErrNoCommit = errors.New("commit not in the repository")
	// ErrMissingObjects: the commit is there but objects it needs are not (a partial or damaged clone).
	ErrMissingObjects = errors.New("objects missing from the repository")
	// ErrTooBig: the tree at the commit is over the cache's file or byte limit.
	ErrTooBig = errors.New("snapshot over the size limits")

	// ErrOutside: a path is absolute, climbs out with .., or resolves through a symbolic link
	// that leaves the snapshot (or is absolute).
	ErrOutside = errors.New("path leaves the snapshot")
	// ErrTooLarge: a file is over Limits.MaxFileSize for a whole-file read.
	ErrTooLarge = errors.New("file over the read limit")
	// ErrBudget: a Snapshot handle has returned Limits.MaxTotalBytes of content.
	ErrBudget = errors.New("read budget spent")
	// ErrTooMany: a directory listing or a walk reached Limits.MaxEntries.
	ErrTooMany = errors.New("too many entries")
	// ErrSkipped: the file is in the commit but was left out of the snapshot when it was
	// materialised (over the extraction size limit, or not a regular file or symlink). Such
	// errors match fs.ErrNotExist too.
	ErrSkipped = errors.New("left out of the snapshot")
)

// kindError is an error with its own message that matches one or more of the errors above (or
// fs's) with errors.Is.
type kindError struct {
	msg   string
	kind  error
	also  error // a second error it matches, or nil
	cause error // what it wraps, or nil
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Is(target error) bool {
	return target == e.kind || (e.also != nil && target == e.also)
}

func (e *kindError) Unwrap() error { return e.cause }

// errPathEscapes is os.Root's message for a path that leaves the root (an unexported error).
const errPathEscapes = "path escapes from parent"

// pathErr turns an os.Root error into the package's: escapes become ErrOutside, symlink loops
// say so; the path is the name the caller gave.
func pathErr(op, name string, err error) error {
	var pe *fs.PathError
	inner := err
	if errors.As(err, &pe) {
		inner = pe.Err
	}
	switch {
	case inner != nil && inner.Error() == errPathEscapes:
		inner = &kindError{kind: ErrOutside, msg: "outside the snapshot: a symbolic link on this path points out of the repository (or is absolute), and such links are not followed"}
	case errors.Is(inner, syscall.ELOOP):
		inner = &kindError{kind: syscall.ELOOP, msg: "too many levels of symbolic links (a symlink loop)", cause: inner}
	}
	return &fs.PathError{Op: op, Path: name, Err: inner}
}
