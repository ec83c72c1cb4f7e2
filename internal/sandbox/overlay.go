package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Read-only binds as overlays. A bind mount shows, in /proc/self/mountinfo's root field, the
// path of its source inside the source's file system: the host path of the snapshot, of a CLI's
// npm prefix. A mount of another file system shows its own root instead. So, where vulnbench may
// mount (root), every read-only host directory a sandbox shows (the project, the advisories, each
// of Spec.Binds; for a file bound alone, its directory) is first made a read-only overlayfs whose
// one layer is that directory, given as /proc/self/fd/N of vulnbench's own descriptor (all that
// mountinfo's options show of it), over an empty tmpfs (overlayfs wants two layers when it has
// no upper one). The overlay is built detached (fsopen, fsmount: in no mount table). bubblewrap
// is then started from an OS thread of its own that first made itself a private mount namespace
// (a copy of the host's, propagating nothing back) and attached each overlay over its own
// directory there: bubblewrap, forked from that thread, binds the same host paths as ever and
// finds the overlays on them. The host's mount table never holds them, and the namespace ends
// with the thread, which lives as long as bubblewrap (the thread is bubblewrap's parent: its
// Pdeathsig would fire when the thread ended).
//
// Nothing of this runs in the sandbox: the overlays are vulnbench's, made before the sandbox
// exists, and the sandboxed process keeps no capability (bubblewrap's --cap-drop ALL) and the
// seccomp filter refusing mount and umount2. An overlay is read-only (no upper layer, mounted
// MOUNT_ATTR_RDONLY, nosuid, nodev), follows no redirect (redirect_dir=nofollow), copies no
// metadata alone (metacopy=off), and access through it is checked against the sandboxed
// process's own credentials first, as through a bind. A directory holding a place that must stay
// as the host has it (a writable source, the system directories) is bound plainly.

// canOverlay reports whether this process may build overlays (CAP_SYS_ADMIN: root).
func canOverlay() bool {
	fd, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// stager holds a process's overlays until bubblewrap is started over them (start).
type stager struct {
	keep    []string       // host paths no overlay may cover
	empty   int            // a detached empty tmpfs, every overlay's second layer; -1 until needed
	overlay map[string]int // a host directory -> its detached overlay's descriptor
	order   []string
	done    chan struct{} // closed by release: the starting thread may end
}

func newStager(keep []string) *stager {
	return &stager{keep: keep, empty: -1, overlay: map[string]int{}, done: make(chan struct{})}
}

// show builds the overlay that shows the host path src (a directory; a file's directory)
// read-only, unless that directory holds a place to keep or cannot be an overlay's layer: then
// src is bound as it is.
func (st *stager) show(src string) {
	// bubblewrap binds src's real path (and names a missing one): the overlay goes there.
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return
	}
	fi, err := os.Stat(real)
	if err != nil {
		return
	}
	dir := real
	if !fi.IsDir() {
		dir = filepath.Dir(real)
	}
	if _, ok := st.overlay[dir]; ok || st.covers(dir) {
		return
	}
	if st.empty < 0 {
		if st.empty, err = emptyTmpfs(); err != nil {
			st.empty = -1
			return
		}
	}
	m, err := overlayOf(dir, st.empty)
	if err != nil {
		return
	}
	st.overlay[dir] = m
	st.order = append(st.order, dir)
}

// covers reports whether dir is, or holds, a place to keep.
func (st *stager) covers(dir string) bool {
	for _, k := range st.keep {
		if k == dir || strings.HasPrefix(k, strings.TrimSuffix(dir, "/")+"/") {
			return true
		}
	}
	return false
}

// start runs start (the command's start) on an OS thread of its own, in a private mount
// namespace where each overlay is attached over its directory (when there are overlays). The
// thread stays until release: the started process's Pdeathsig is that thread's.
func (st *stager) start(start func() error) error {
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread, and its mount namespace, end with this goroutine.
		runtime.LockOSThread()
		if len(st.order) > 0 {
			if err := st.attach(); err != nil {
				errc <- err
				return
			}
		}
		err := start()
		errc <- err
		if err == nil {
			<-st.done
		}
	}()
	return <-errc
}

// attach makes this thread's mount namespace a private copy and attaches the overlays in it.
func (st *stager) attach() error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("sandbox: a mount namespace for the overlays: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("sandbox: a mount namespace for the overlays: %w", err)
	}
	for _, dir := range st.order {
		if err := unix.MoveMount(st.overlay[dir], "", unix.AT_FDCWD, dir, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("sandbox: the overlay of %s: %w", dir, err)
		}
	}
	return nil
}

// release lets the starting thread end (bubblewrap has ended) and closes the descriptors.
func (st *stager) release() {
	select {
	case <-st.done:
		return
	default:
	}
	close(st.done)
	for _, m := range st.overlay {
		unix.Close(m)
	}
	if st.empty >= 0 {
		unix.Close(st.empty)
	}
}

// overlayOf builds a detached read-only overlay of dir over the empty layer, and returns its
// mount's descriptor.
func overlayOf(dir string, empty int) (int, error) {
	d, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(d)
	fs, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("overlayfs: %w", err)
	}
	defer unix.Close(fs)
	opts := [][2]string{{"lowerdir", "/proc/self/fd/" + strconv.Itoa(d) + ":/proc/self/fd/" + strconv.Itoa(empty)},
		{"redirect_dir", "nofollow"}, {"metacopy", "off"}, {"uuid", "off"}}
	for _, o := range opts {
		if err := unix.FsconfigSetString(fs, o[0], o[1]); err != nil {
			return -1, fmt.Errorf("overlayfs %s=%s: %w", o[0], o[1], err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("overlayfs: %w", err)
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return -1, fmt.Errorf("overlayfs: %w", err)
	}
	return m, nil
}

// emptyTmpfs is a detached, read-only, empty tmpfs.
func emptyTmpfs() (int, error) {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("tmpfs: %w", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "size", "4k"); err != nil {
		return -1, fmt.Errorf("tmpfs: %w", err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("tmpfs: %w", err)
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, fmt.Errorf("tmpfs: %w", err)
	}
	return m, nil
}
