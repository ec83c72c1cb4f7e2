//go:build unix

package walk

import (
	"io/fs"
	"sync/atomic"
	"syscall"
)

// inode returns the file's inode number: with size and modification time, it tells the stat
// cache whether a file may have changed.
func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// Arena holds the contents a first index reads and keeps for parsing, in one anonymous
// mapping advised for transparent huge pages: read into fresh 4 KiB pages of the Go heap, the
// 54 MB of glibc cost 14,000 page faults. Slices of it must not outlive Release: the index keeps
// copies of every string it extracts, never the contents.
type Arena struct {
	mem  []byte
	used atomic.Int64
}

// NewArena maps size bytes; nil (contents go to the Go heap) when that fails.
func NewArena(size int64) *Arena {
	if size <= 0 || size > 1<<40 {
		return nil
	}
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	adviseHugePages(mem)
	return &Arena{mem: mem}
}

// buf returns an empty slice with room for n bytes, or nil when the arena is full.
func (a *Arena) buf(n int64) []byte {
	if a == nil {
		return nil
	}
	end := a.used.Add(n)
	if end > int64(len(a.mem)) {
		return nil
	}
	return a.mem[end-n : end-n : end]
}

// Release unmaps the arena.
func (a *Arena) Release() {
	if a != nil {
		_ = syscall.Munmap(a.mem)
	}
}

// ReadFile is os.ReadFile without the runtime poller: os.Open registers every file with epoll
// (and fails to, for regular files) and sets flags, five system calls a file that indexing
// 15,000 files feels. size is the size the walk saw: no fstat, and a short read that reaches
// it is the end of the file, so a file costs open, read and close. A file that grew since is
// read to its end. The content goes to the arena when it has room.
func ReadFile(name string, size int64, a *Arena) ([]byte, error) {
	fd, err := openRetry(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	size = max(size, 0)
	b := a.buf(size + 1)
	if b == nil {
		b = make([]byte, 0, size+1)
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		want := cap(b) - len(b)
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		b = b[:len(b)+n]
		if n == 0 || (n < want && int64(len(b)) == size) {
			return b, nil
		}
	}
}

func openRetry(name string) (int, error) {
	for {
		// O_NOFOLLOW: the walk skips symbolic links, and a file swapped for one since is not
		// followed either (out of a snapshot, say); same one system call.
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
