package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// systemDirs are shown read-only when the host has them: programs, libraries and toolchains
// (/usr holds /usr/local/go). A top-level directory that is a symbolic link on the host
// (merged /usr: /bin -> usr/bin) is made the same link.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

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

// bwrapArgs is bubblewrap's command line for spec; data are the contents bubblewrap reads from
// the files it is given as descriptors 3, 4, ... (in order); forwarder is the host program
// serving the gateway ("" without one).
type bwrapCmd struct {
	args []string
	data []string // contents of --ro-bind-data and --file descriptors, in order: fd 3+i
}

func (s *Sandbox) bwrapCommand(spec Spec, project, forwarder string, l layout) (bwrapCmd, error) {
	var c bwrapCmd
	add := func(a ...string) { c.args = append(c.args, a...) }
	fd := func(content string) string {
		c.data = append(c.data, content)
		return strconv.Itoa(2 + len(c.data))
	}
	add("--unshare-all", "--unshare-user", "--disable-userns", "--uid", strconv.Itoa(UID), "--gid", strconv.Itoa(GID),
		"--cap-drop", "ALL", "--die-with-parent", "--new-session", "--hostname", "sandbox")
	add(s.system...)
	for _, name := range sortedKeys(etcData()) {
		add("--ro-bind-data", fd(etcData()[name]), name)
	}
	add("--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", TmpDir, "--perms", "0700", "--tmpfs", HomeDir)
	if project != "" {
		if spec.Writable {
			add("--bind", project, ProjectDir)
		} else {
			add("--ro-bind", project, ProjectDir)
		}
	}
	if spec.Advisories != "" {
		add("--ro-bind", spec.Advisories, AdvisoriesDir)
	}
	if spec.OutDir != "" {
		add("--bind", spec.OutDir, OutDir)
	}
	for _, b := range spec.Binds {
		if !filepath.IsAbs(b.Dst) || !filepath.IsAbs(b.Src) {
			return c, fmt.Errorf("sandbox: bind %s -> %s: both paths must be absolute", b.Src, b.Dst)
		}
		add("--ro-bind", b.Src, filepath.Clean(b.Dst))
	}
	for _, f := range spec.Files {
		dst := l.expand(f.Dst)
		if !filepath.IsAbs(dst) {
			return c, fmt.Errorf("sandbox: file %s: want an absolute path or one under {home} or {tmp}", f.Dst)
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		// --file writes into the sandbox's tmpfs, owned by the sandbox's user; its directories
		// are made first.
		for _, d := range parents(dst) {
			add("--dir", d)
		}
		add("--perms", fmt.Sprintf("%04o", mode), "--file", fd(string(l.data(f))), dst)
	}
	argv := make([]string, len(spec.Args))
	for i, a := range spec.Args {
		argv[i] = l.expand(a)
	}
	if spec.Gateway != "" {
		add("--bind", spec.Gateway, socketPath, "--ro-bind", forwarder, forwarderPath)
		argv = append([]string{forwarderPath, forwardCommand, "-listen", "127.0.0.1:" + strconv.Itoa(GatewayPort), "-socket", socketPath, "--"}, argv...)
	}
	add("--chdir", l.dir(spec), "--")
	add(argv...)
	return c, nil
}

// parents are the directories above p under the sandbox's home or tmp, outermost first, which
// --file needs to exist.
func parents(p string) []string {
	var out []string
	for _, root := range []string{HomeDir, TmpDir, OutDir} {
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
	l := layout{home: HomeDir, tmp: TmpDir, gateway: gatewayURL(GatewayPort), binds: map[string]string{}}
	if spec.Project != "" {
		l.project = ProjectDir
	}
	if spec.Advisories != "" {
		l.advisories = AdvisoriesDir
	}
	if spec.OutDir != "" {
		l.out = OutDir
	}
	for _, b := range spec.Binds {
		if b.Name != "" {
			l.binds[b.Name] = filepath.Clean(b.Dst)
		}
	}
	return l
}
