package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// The one way back out of a sandbox. Whatever vulnbench reads from a place a sandboxed process
// could write (its output folder, home and tmp) is read here and nowhere else (internal/hygiene's
// TestOneReadBack holds the consumers to it): opened beneath the place's root with no symbolic
// link followed at any step (openat2's RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
// RESOLVE_NO_MAGICLINKS), only a regular file, never blocking (O_NONBLOCK: a FIFO is refused
// without waiting for a writer), read up to a cap. Under bubblewrap the place is reached through
// /proc/PID/root of the sandbox's first process while the sandbox is held open after its program
// ended; on the host (ModeNone) it is the process's temporary folder.

// DefaultCollectMax is the cap of one file read back (Spec.CollectMax).
const DefaultCollectMax = 4 << 20

// maxCollected bounds the files one Collect pattern may match, and collectBudget the bytes of
// all the files read back from one process.
const (
	maxCollected  = 64
	collectBudget = 64 << 20
)

// ErrRefused is matched by the error of a file the reader would not read: not a regular file,
// past its cap, or a path leaving its folder.
var ErrRefused = errors.New("sandbox: refused to read back")

// RefusedError says why a file left by a sandboxed process was not read.
type RefusedError struct {
	Path string // as the process saw it ({out}/NAME)
	Why  string // "a symbolic link", "a FIFO", "8589934592 bytes, over the cap of 4194304", ...
}

func (e *RefusedError) Error() string {
	return "sandbox: refused to read back " + e.Path + ": " + e.Why
}

// Is makes the error match ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Collected is one file read back.
type Collected struct {
	Path string // as the process saw it: {out}/codex-last-message.txt
	Data []byte
	Err  error // a *RefusedError, or one matching fs.ErrNotExist
}

// beneath is an open directory under which files are read back.
type beneath struct {
	fd   int    // O_PATH directory
	name string // what the process calls it: {out}, {home}, {tmp}
}

// resolveFlags: no step of the path may be a symbolic link (magic links of /proc included) or
// leave the directory.
const resolveFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// place is where a writable place is: rel (which the process could have changed: no link
// followed) beneath root (a host path vulnbench trusts: /proc/PID/root, a folder of its own).
type place struct{ root, rel string }

// openBeneath opens pl as the root of a read-back named name ({out}).
func openBeneath(pl place, name string) (*beneath, error) {
	fd, err := unix.Open(pl.root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: open %s to read back: %w", name, err)
	}
	if pl.rel == "" {
		return &beneath{fd: fd, name: name}, nil
	}
	root := &beneath{fd: fd, name: name}
	defer root.close()
	sub, err := root.openat2(pl.rel, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return nil, refusal(name, err)
	}
	return &beneath{fd: sub, name: name}, nil
}

// full says whether the file system of b (the writable space's tmpfs) has less than 1 % of its
// size, and at least 64 KiB, left: the process filled it.
func (b *beneath) full() bool {
	var st unix.Statfs_t
	if unix.Fstatfs(b.fd, &st) != nil || st.Blocks == 0 {
		return false
	}
	free := st.Bavail * uint64(st.Bsize)
	return free < max(st.Blocks*uint64(st.Bsize)/100, 64<<10)
}

func (b *beneath) close() { unix.Close(b.fd) }

// openat2 opens rel beneath b with how's flags and the read-back's resolution rules; a kernel
// without openat2 (before 5.6) is refused, never read another way.
func (b *beneath) openat2(rel string, flags uint64) (int, error) {
	for {
		if flags&unix.O_PATH == 0 {
			flags |= unix.O_NOCTTY
		}
		fd, err := unix.Openat2(b.fd, rel, &unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Resolve: resolveFlags})
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		return fd, err
	}
}

// readFile reads the regular file at rel (slash-separated, relative to b) up to max bytes.
func (b *beneath) readFile(rel string, max int64) ([]byte, error) {
	shown := b.name + "/" + rel
	if err := checkRel(rel); err != nil {
		return nil, &RefusedError{Path: shown, Why: err.Error()}
	}
	if data, ok := b.unguardedRead(rel, max); ok {
		return data, nil
	}
	// First a handle that opens nothing (O_PATH): what the entry is, before any open of it.
	pfd, err := b.openat2(rel, unix.O_PATH)
	if err != nil {
		return nil, refusal(shown, err)
	}
	var first unix.Stat_t
	err = unix.Fstat(pfd, &first)
	unix.Close(pfd)
	if err != nil {
		return nil, fmt.Errorf("sandbox: read back %s: %w", shown, err)
	}
	if why := notRegular(first.Mode); why != "" {
		return nil, &RefusedError{Path: shown, Why: why}
	}
	if first.Size > max {
		return nil, &RefusedError{Path: shown, Why: fmt.Sprintf("%d bytes, over the cap of %d", first.Size, max)}
	}
	fd, err := b.openat2(rel, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, refusal(shown, err)
	}
	f := os.NewFile(uintptr(fd), shown)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("sandbox: read back %s: %w", shown, err)
	}
	// The entry may have been swapped between the two opens: it must be the same file.
	if why := notRegular(st.Mode); why != "" || st.Dev != first.Dev || st.Ino != first.Ino {
		if why == "" {
			why = "replaced while it was read"
		}
		return nil, &RefusedError{Path: shown, Why: why}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("sandbox: read back %s: %w", shown, err)
	}
	if int64(len(data)) > max {
		return nil, &RefusedError{Path: shown, Why: fmt.Sprintf("grew past the cap of %d bytes while it was read", max)}
	}
	return data, nil
}

// readDir lists the names in the directory rel ("" for b itself), sorted, refusing a link.
func (b *beneath) readDir(rel string) ([]string, error) {
	shown := strings.TrimSuffix(b.name+"/"+rel, "/")
	if rel == "" {
		rel = "."
	} else if err := checkRel(rel); err != nil {
		return nil, &RefusedError{Path: shown, Why: err.Error()}
	}
	fd, err := b.openat2(rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK)
	if err != nil {
		return nil, refusal(shown, err)
	}
	f := os.NewFile(uintptr(fd), shown)
	defer f.Close()
	names, err := f.Readdirnames(4096)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("sandbox: read back %s: %w", shown, err)
	}
	return names, nil
}

// checkRel refuses a path that is absolute, empty or has a "..", ".", or empty component.
func checkRel(rel string) error {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return errors.New("not a path inside its folder")
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "" || part == "." || part == ".." {
			return errors.New("a path leaving its folder")
		}
	}
	return nil
}

// refusal names what an open beneath the folder ran into.
func refusal(shown string, err error) error {
	switch {
	case errors.Is(err, unix.ENOENT):
		return fmt.Errorf("sandbox: read back %s: %w", shown, fs.ErrNotExist)
	case errors.Is(err, unix.ELOOP):
		return &RefusedError{Path: shown, Why: "a symbolic link"}
	case errors.Is(err, unix.EXDEV):
		return &RefusedError{Path: shown, Why: "a path leaving its folder"}
	case errors.Is(err, unix.ENXIO), errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return &RefusedError{Path: shown, Why: "not readable (" + err.Error() + ")"}
	case errors.Is(err, unix.ENOSYS):
		return &RefusedError{Path: shown, Why: "this kernel has no openat2 (Linux 5.6), the only way vulnbench reads a sandbox's files back"}
	}
	return fmt.Errorf("sandbox: read back %s: %w", shown, err)
}

// notRegular names a file type that is not read back; "" for a regular file.
func notRegular(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return ""
	case unix.S_IFLNK:
		return "a symbolic link"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device node"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFDIR:
		return "a directory"
	}
	return "not a regular file"
}

// collect reads back the files of patterns ({out}/NAME, {home}/.x/*.json: a component may be a
// path.Match pattern) from the places, each up to max bytes, all of them within collectBudget.
func collect(places map[string]*beneath, patterns []string, max int64) []Collected {
	var out []Collected
	budget := int64(collectBudget)
	for _, p := range patterns {
		place, rel, _ := strings.Cut(p, "/")
		b := places[place]
		if b == nil {
			out = append(out, Collected{Path: p, Err: &RefusedError{Path: p, Why: "not under {out}, {home} or {tmp} of this process"}})
			continue
		}
		paths, err := b.glob(rel)
		if err != nil {
			out = append(out, Collected{Path: p, Err: err})
			continue
		}
		if len(paths) == 0 && !hasMeta(rel) {
			paths = []string{rel} // read it, to say it is not there
		}
		for i, rel := range paths {
			c := Collected{Path: place + "/" + rel}
			switch {
			case i >= maxCollected:
				c.Err = &RefusedError{Path: c.Path, Why: fmt.Sprintf("more than %d files match %s", maxCollected, p)}
			case budget < 0:
				c.Err = &RefusedError{Path: c.Path, Why: fmt.Sprintf("the files read back from this process passed %d bytes", collectBudget)}
			default:
				c.Data, c.Err = b.readFile(rel, min(max, budget))
				budget -= int64(len(c.Data))
				if budget == 0 {
					budget = -1
				}
			}
			out = append(out, c)
			if i >= maxCollected {
				break
			}
		}
	}
	return out
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// glob expands the pattern rel, component by component, through readDir alone: the matches
// that exist, sorted. A pattern without metacharacters is itself (whether or not it exists).
func (b *beneath) glob(rel string) ([]string, error) {
	if !hasMeta(rel) {
		return nil, nil
	}
	if err := checkRel(rel); err != nil {
		return nil, &RefusedError{Path: b.name + "/" + rel, Why: err.Error()}
	}
	prefixes := []string{""}
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		var next []string
		for _, pre := range prefixes {
			if !hasMeta(part) {
				next = append(next, path.Join(pre, part))
				continue
			}
			names, err := b.readDir(pre)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				if ok, _ := path.Match(part, n); ok {
					next = append(next, path.Join(pre, n))
				}
			}
		}
		prefixes = next
		if len(prefixes) > maxCollected*4 && i < len(parts)-1 {
			return nil, &RefusedError{Path: b.name + "/" + rel, Why: "too many directories match"}
		}
	}
	slices.Sort(prefixes)
	return prefixes, nil
}
