package sandbox

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// systemDirs are shown read-only when the host has them: programs, libraries and toolchains
// (/usr holds /usr/local/go). A top-level directory that is a symbolic link on the host
// (merged /usr: /bin -> usr/bin) is made the same link.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// SystemPath reports whether a host path is in the system directories every sandbox shows
// read-only at their own paths: a program there runs as it is, beside its libraries.
func SystemPath(path string) bool {
	for _, d := range systemDirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// etcFiles are the parts of /etc programs need to start: the dynamic linker's cache, the
// alternatives links, certificates, time zone, name-service switch, interpreters' settings.
// Nothing else of /etc is shown (it holds the host's users, credentials in npmrc or pip.conf,
// git's system configuration); passwd, group, hosts, hostname and resolv.conf are the sandbox's
// own (etcData).
var etcFiles = []string{
	"alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "nsswitch.conf",
	"ssl", "ca-certificates", "ca-certificates.conf", "mime.types", "magic", "magic.mime", "protocols",
	"services", "host.conf", "gai.conf", "os-release", "debian_version", "locale.alias", "perl", "inputrc",
}

func systemBinds() []string {
	var args []string
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if t, err := os.Readlink(d); err == nil {
				args = append(args, "--symlink", t, d)
			}
		case fi.IsDir():
			args = append(args, "--ro-bind", d, d)
		}
	}
	globbed, _ := filepath.Glob("/etc/python3*")
	for _, f := range etcFiles {
		globbed = append(globbed, filepath.Join("/etc", f))
	}
	for _, p := range globbed {
		if _, err := os.Stat(p); err == nil {
			args = append(args, "--ro-bind", p, p)
		}
	}
	return args
}

// etcData are the sandbox's own /etc files.
func etcData() map[string]string {
	return map[string]string{
		"/etc/passwd": fmt.Sprintf("root:x:0:0:root:/root:/usr/sbin/nologin\n%s:x:%d:%d:%s:%s:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
			User, UID, GID, User, HomeDir),
		"/etc/group":       fmt.Sprintf("root:x:0:\n%s:x:%d:\nnogroup:x:65534:\n", User, GID),
		"/etc/hosts":       "127.0.0.1 localhost sandbox\n::1 localhost ip6-localhost\n",
		"/etc/hostname":    "sandbox\n",
		"/etc/resolv.conf": "",
	}
}

// bwrap is the bubblewrap provider.
type bwrap struct {
	prog, version string
	forwarder     string   // "": found on first use (forwarderProgram)
	system        []string // the arguments showing the system directories, computed once
	seccomp       []byte   // the filter's program, nil where none is built for this architecture
	overlay       bool     // read-only binds are shown as overlays (overlay.go)
}

// fds are the descriptors a command is given beyond its standard streams: ExtraFiles, the
// first one descriptor 3.
type fds struct {
	files []*os.File
}

func (f *fds) add(file *os.File) string {
	f.files = append(f.files, file)
	return strconv.Itoa(2 + len(f.files))
}

// command prepares bubblewrap's command for spec. Its options go through a pipe (--args), so
// that /proc/1/cmdline inside shows none of them (no host path, no data); its environment is
// empty (/proc/1/environ is bubblewrap's own) and the process's is set with --setenv. With a
// helper (a gateway, an output folder, files to read back) the command line is the helper's,
// started from a descriptor (no host path bound), and the program's goes to it over the
// control socket.
func (b *bwrap) command(ctx context.Context, p *Process, spec Spec, project string) error {
	l := bwrapLayout(spec)
	var f fds
	var args []string
	add := func(a ...string) { args = append(args, a...) }
	data := func(content []byte) (string, error) {
		r, err := dataPipe(content)
		if err != nil {
			return "", err
		}
		p.afterStart = append(p.afterStart, r)
		return f.add(r), nil
	}
	add("--unshare-all", "--unshare-user", "--disable-userns", "--uid", strconv.Itoa(UID), "--gid", strconv.Itoa(GID),
		"--cap-drop", "ALL", "--die-with-parent", "--new-session", "--hostname", "sandbox")
	add(b.system...)
	for _, name := range sortedKeys(etcData()) {
		fd, err := data([]byte(etcData()[name]))
		if err != nil {
			return err
		}
		add("--ro-bind-data", fd, name)
	}
	add("--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", strconv.FormatInt(shmSize(spec), 10), "--tmpfs", "/dev/shm")
	add(writableSpace(spec)...)
	binds, err := b.hostBinds(p, spec, project)
	if err != nil {
		return err
	}
	add(binds...)
	for _, file := range spec.Files {
		dst, err := l.fileDst(file.Dst)
		if err != nil {
			return err
		}
		content := file.Data
		if file.Expand {
			content = []byte(l.expand(string(content)))
		}
		fd, err := data(content)
		if err != nil {
			return err
		}
		mode := file.Mode
		if mode == 0 {
			mode = 0o644
		}
		// --file writes into the writable space (a tmpfs, owned by the sandbox's user); its
		// directories are made first.
		for _, d := range parents(dst) {
			add("--dir", d)
		}
		add("--perms", fmt.Sprintf("%04o", mode), "--file", fd, dst)
	}
	if spec.Advisories == "" && hasAdvisoryFiles(spec) {
		add("--remount-ro", AdvisoriesDir)
	}
	// Nothing else is writable: not the root (bubblewrap's own tmpfs, unbounded), not /dev.
	add("--remount-ro", "/dev", "--remount-ro", "/")
	for _, kv := range l.env(spec) {
		k, v, _ := strings.Cut(kv, "=")
		add("--setenv", k, v)
	}
	if b.seccomp != nil {
		fd, err := data(b.seccomp)
		if err != nil {
			return err
		}
		add("--seccomp", fd)
	}
	add("--chdir", l.dir(spec))
	argv := make([]string, len(spec.Args))
	for i, a := range spec.Args {
		argv[i] = l.expand(a)
	}
	if needsHelper(spec) {
		var err error
		if argv, err = b.helper(ctx, p, spec, &f, argv); err != nil {
			return err
		}
	}
	fd, err := data([]byte(strings.Join(args, "\x00") + "\x00"))
	if err != nil {
		return err
	}
	p.cmd = exec.Command(b.prog, append([]string{"--args", fd, "--"}, argv...)...)
	p.cmd.Env = []string{}
	p.cmd.ExtraFiles = f.files
	p.layout = &l
	p.boundedDisk = spec.MaxDisk > 0
	p.places = func() map[string]place {
		root := "/proc/" + strconv.Itoa(p.childPid) + "/root"
		w := strings.TrimPrefix(WritableDir, "/")
		m := map[string]place{"{tmp}": {root, w + "/tmp"}, "{home}": {root, w + "/home"}}
		if spec.Out {
			m["{out}"] = place{root, w + "/out"}
		}
		return m
	}
	return nil
}

// hostBinds are bubblewrap's arguments showing the host folders of spec: the project (project:
// the scratch copy of a writable one), the cache, the advisories, the binds. The read-only
// ones are shown as overlays where vulnbench may mount (overlay.go), but one holding a place
// that must stay as the host has it; p's stager holds them.
func (b *bwrap) hostBinds(p *Process, spec Spec, project string) ([]string, error) {
	var args []string
	add := func(a ...string) { args = append(args, a...) }
	var st *stager
	if b.overlay {
		keep := append(slices.Clone(systemDirs), "/etc")
		if spec.Writable && project != "" {
			keep = append(keep, project)
		}
		if spec.Cache != "" {
			keep = append(keep, spec.Cache)
		}
		st = newStager(keep)
	}
	roBind := func(src, dst string) {
		if st != nil {
			st.show(src)
		}
		add("--ro-bind", src, dst)
	}
	if project != "" {
		if spec.Writable {
			add("--bind", project, ProjectDir)
		} else {
			roBind(project, ProjectDir)
		}
	}
	if spec.Cache != "" {
		add("--bind", spec.Cache, CacheDir)
	}
	if spec.Advisories != "" {
		roBind(spec.Advisories, AdvisoriesDir)
	} else if hasAdvisoryFiles(spec) {
		add("--perms", "0755", "--size", strconv.Itoa(16<<20), "--tmpfs", AdvisoriesDir)
	}
	for _, bd := range spec.Binds {
		if !filepath.IsAbs(bd.Dst) || !filepath.IsAbs(bd.Src) {
			if st != nil {
				st.release()
			}
			return nil, fmt.Errorf("sandbox: bind %s -> %s: both paths must be absolute", bd.Src, bd.Dst)
		}
		roBind(bd.Src, filepath.Clean(bd.Dst))
	}
	if st != nil {
		if len(st.order) == 0 {
			st.release()
		} else {
			p.stager = st
			p.cleanups = append(p.cleanups, st.release)
		}
	}
	return args, nil
}

// helper starts the sandbox with the helper (ForwardMain) as its program: its command line, and
// the control socket (and the gateway's) set up on the host's side.
func (b *bwrap) helper(ctx context.Context, p *Process, spec Spec, f *fds, argv []string) ([]string, error) {
	prog, err := forwarderProgram(b.forwarder)
	if err != nil {
		return nil, err
	}
	exe, err := os.Open(prog)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the sandbox's helper %s: %w", prog, err)
	}
	p.afterStart = append(p.afterStart, exe)
	exeFD := f.add(exe)
	host, inside, err := socketPair("ctl")
	if err != nil {
		return nil, err
	}
	p.afterStart = append(p.afterStart, inside)
	p.cleanups = append(p.cleanups, func() { host.Close() })
	hargv := []string{"/proc/self/fd/" + exeFD, forwardCommand, "-exe", exeFD, "-ctl", f.add(inside)}
	if spec.Gateway != "" {
		gwHost, gwInside, err := socketPair("gateway")
		if err != nil {
			return nil, err
		}
		p.afterStart = append(p.afterStart, gwInside)
		rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		go func() {
			relayFromHost(rctx, gwHost, spec.Gateway)
			close(done)
		}()
		p.cleanups = append(p.cleanups, func() { stop(); <-done })
		hargv = append(hargv, "-gateway", f.add(gwInside), "-listen", "127.0.0.1:"+strconv.Itoa(GatewayPort))
	}
	p.hold = newHolder(host)
	p.argv = argv
	return hargv, nil
}

// socketPair is a connected pair of Unix stream sockets: the host's end (close-on-exec) and
// the sandbox's.
func socketPair(name string) (host, inside *os.File, err error) {
	fds, err := unixSocketpair()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %s socket: %w", name, err)
	}
	return os.NewFile(uintptr(fds[0]), name), os.NewFile(uintptr(fds[1]), name), nil
}

// needsHelper: a gateway to serve, or files to read back, need the helper.
func needsHelper(spec Spec) bool { return spec.Gateway != "" || spec.Out || len(spec.Collect) > 0 }

func hasAdvisoryFiles(spec Spec) bool {
	for _, f := range spec.Files {
		if strings.HasPrefix(f.Dst, "{advisories}/") {
			return true
		}
	}
	return false
}

// writableSpace is the process's one writable place: a tmpfs of the spec's disk size at
// WritableDir holding tmp (1777), home (0700) and out, and /tmp, /home/sandbox relative links
// to the first two (relative, so that bubblewrap, which sets up the tree under another root,
// follows them to the same place).
func writableSpace(spec Spec) []string {
	a := []string{}
	if spec.MaxDisk > 0 {
		a = append(a, "--size", strconv.FormatInt(spec.MaxDisk, 10))
	}
	a = append(a, "--perms", "0755", "--tmpfs", WritableDir,
		"--perms", "1777", "--dir", WritableDir+"/tmp", "--symlink", strings.TrimPrefix(WritableDir, "/")+"/tmp", TmpDir,
		"--perms", "0700", "--dir", WritableDir+"/home", "--dir", "/home", "--symlink", "../"+strings.TrimPrefix(WritableDir, "/")+"/home", HomeDir)
	if spec.Out {
		a = append(a, "--perms", "0755", "--dir", OutDir)
	}
	return a
}

// shmSize bounds /dev/shm, a writable place apart from the writable space: 64 MiB, or the
// disk's bound when smaller.
func shmSize(spec Spec) int64 {
	if spec.MaxDisk > 0 {
		return min(spec.MaxDisk, 64<<20)
	}
	return 64 << 20
}

// fileDst is where a File is written, its placeholder expanded to the real place (the writable
// space's directories, not the links to them).
func (l layout) fileDst(dst string) (string, error) {
	for _, p := range []struct{ ph, real string }{{"{home}", WritableDir + "/home"}, {"{tmp}", WritableDir + "/tmp"},
		{"{out}", WritableDir + "/out"}, {"{advisories}", AdvisoriesDir}} {
		if rest, ok := strings.CutPrefix(dst, p.ph+"/"); ok && rest != "" && (p.ph != "{out}" || l.out != "") {
			return filepath.Join(p.real, filepath.Clean("/"+rest)), nil
		}
	}
	return "", fmt.Errorf("sandbox: file %s: want a path under {home}, {tmp}, {out} (with Out) or {advisories}", dst)
}

// parents are the directories above p under the writable space or the advisories, outermost
// first, which --file needs to exist.
func parents(p string) []string {
	var out []string
	for _, root := range []string{WritableDir + "/home", WritableDir + "/tmp", WritableDir + "/out", AdvisoriesDir} {
		if !strings.HasPrefix(p, root+"/") {
			continue
		}
		rel := strings.TrimPrefix(filepath.Dir(p), root)
		d := root
		for _, part := range strings.Split(strings.Trim(rel, "/"), "/") {
			if part == "" {
				continue
			}
			d += "/" + part
			out = append(out, d)
		}
	}
	return out
}

func bwrapLayout(spec Spec) layout {
	l := layout{home: HomeDir, tmp: TmpDir, binds: map[string]string{}}
	if spec.Gateway != "" {
		l.gateway = gatewayURL(GatewayPort)
	}
	if spec.Project != "" {
		l.project = ProjectDir
	}
	if spec.Advisories != "" || hasAdvisoryFiles(spec) {
		l.advisories = AdvisoriesDir
	}
	if spec.Out {
		l.out = OutDir
	}
	if spec.Cache != "" {
		l.cache = CacheDir
	}
	for _, b := range spec.Binds {
		if b.Name != "" {
			l.binds[b.Name] = filepath.Clean(b.Dst)
		}
	}
	return l
}

// dataPipe is a pipe holding content, closed for writing as soon as it is all written: the
// process (bubblewrap, for a file's content, its options or the filter; a program, for its
// Input) reads it. Contents larger than the pipe's buffer are written as it reads; a reader that
// never reads keeps the writer waiting until the read end is closed.
func dataPipe(content []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	go func() {
		_, _ = w.Write(content)
		w.Close()
	}()
	return r, nil
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
