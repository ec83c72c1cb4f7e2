package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Read-only binds as overlays. A bind mount shows, in /proc/self/mountinfo's root field, the
// path of its source inside the source's file system: the host path of the snapshot, of a CLI's
// npm prefix. A mount of another file system shows its own root instead. So, where vulnbench may
// mount (root), every read-only host directory a sandbox shows (the project, the advisories, each
// of Spec.Binds; a file bound alone: its directory) is first made a read-only overlayfs whose one
// layer is that directory, given as /proc/self/fd/N of vulnbench's own descriptor (what
// mountinfo's options show), beside an empty tmpfs (overlayfs wants two layers when it has no
// upper one). The overlay is built detached (fsopen/fsmount: in no mount table), attached for an
// instant at a staging folder in the process's unit folder, and bubblewrap binds it from there:
// bubblewrap starts in a private mount namespace of its own (CLONE_NEWNS), a copy of the host's
// taken at its start, after which the staging mounts are detached from the host's. Inside,
// mountinfo shows "/ /project ... - overlay none ro,lowerdir=/proc/self/fd/7:/proc/self/fd/8".
//
// Nothing of this runs in the sandbox: the overlay is vulnbench's, made before the sandbox
// exists, and the sandboxed process keeps no capability (bubblewrap's --cap-drop ALL) and the
// seccomp filter refusing mount and umount2. The overlay is read-only (no upper layer, mounted
// MOUNT_ATTR_RDONLY, nosuid, nodev); it follows no redirect (redirect_dir=nofollow), copies no
// metadata alone (metacopy=off), and access through it is checked against the sandboxed
// process's own credentials first, as through a bind. A vulnbench killed between the attach and
// the detach leaves a staging mount in its unit folder: the sweep of dead units detaches it
// before it removes the folder.

// stagePrefix names the staging folders in a unit folder.
const stagePrefix = "mnt-"

// canOverlay reports whether this process may build overlays (CAP_SYS_ADMIN: root).
func canOverlay() bool {
	fd, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// stager attaches a process's overlays at its staging folders until the sandbox is started.
type stager struct {
	unit   string // the process's unit folder
	empty  int    // a detached empty tmpfs, every overlay's second layer; -1 until needed
	staged []string
	byDir  map[string]string // a host directory -> its staging folder
}

func newStager(unit string) *stager {
	return &stager{unit: unit, empty: -1, byDir: map[string]string{}}
}

// show returns the path bubblewrap binds from to show the host path src read-only: a staged
// overlay of src, or, for a file, the file in a staged overlay of its directory.
func (st *stager) show(src string) (string, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return "", fmt.Errorf("sandbox: read-only bind of %s: %w", src, err)
	}
	dir, name := src, ""
	if !fi.IsDir() {
		dir, name = filepath.Dir(src), filepath.Base(src)
	}
	staged, ok := st.byDir[dir]
	if !ok {
		if staged, err = st.stage(dir); err != nil {
			return "", fmt.Errorf("sandbox: read-only bind of %s: %w", src, err)
		}
		st.byDir[dir] = staged
	}
	if name == "" {
		return staged, nil
	}
	return filepath.Join(staged, name), nil
}

// stage builds the overlay of dir and attaches it at a new staging folder.
func (st *stager) stage(dir string) (string, error) {
	if st.empty < 0 {
		fd, err := emptyTmpfs()
		if err != nil {
			return "", err
		}
		st.empty = fd
	}
	m, err := overlayOf(dir, st.empty)
	if err != nil {
		return "", err
	}
	defer unix.Close(m)
	at := filepath.Join(st.unit, stagePrefix+strconv.Itoa(len(st.staged)))
	if err := os.Mkdir(at, 0o700); err != nil {
		return "", err
	}
	if err := unix.MoveMount(m, "", unix.AT_FDCWD, at, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return "", fmt.Errorf("attach the overlay: %w", err)
	}
	st.staged = append(st.staged, at)
	return at, nil
}

// detach detaches every staging mount from the host's mount table (the started sandbox holds
// its own copies) and closes the empty layer's descriptor.
func (st *stager) detach() {
	for _, at := range st.staged {
		_ = unix.Unmount(at, unix.MNT_DETACH)
	}
	st.staged = nil
	if st.empty >= 0 {
		unix.Close(st.empty)
		st.empty = -1
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

// detachStaged detaches the staging mounts a unit folder still holds (its vulnbench died
// between the attach and the detach), so that the folder can be removed.
func detachStaged(unit string) {
	entries, err := os.ReadDir(unit)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), stagePrefix) {
			_ = unix.Unmount(filepath.Join(unit, e.Name()), unix.MNT_DETACH)
		}
	}
}
