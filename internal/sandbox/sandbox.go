package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Mode is how processes are isolated.
type Mode string

// The modes.
const (
	// ModeBwrap runs every process under bubblewrap (see the package documentation).
	ModeBwrap Mode = "bwrap"
	// ModeNone runs processes on the host, as the caller's user, with the whole host in view:
	// only the environment, the working directory, the timeout, the output cap and (where a
	// pids cgroup is writable) the process cap still apply. Callers record it (a run's
	// manifest, under every score).
	ModeNone Mode = "none"
)

// ParseMode reads a --sandbox value.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeBwrap, ModeNone:
		return Mode(s), nil
	}
	return "", fmt.Errorf("--sandbox %q: want bwrap or none", s)
}

// Options configure a Sandbox.
type Options struct {
	Mode Mode // default ModeBwrap
	// Bwrap is the bubblewrap program; default "bwrap" from PATH.
	Bwrap string
	// Forwarder is a program that runs `PROGRAM sandbox-forward ...` as ForwardMain does:
	// vulnbench-forward, the vulnbench binary itself, or a test binary whose TestMain calls
	// ForwardMain. It is bound into sandboxes that reach a gateway. Default: vulnbench-forward
	// beside this process's executable when it is there, else this executable.
	Forwarder string
	// ScratchDir holds writable copies of projects and, under ModeNone, the temporary homes;
	// default os.TempDir().
	ScratchDir string
	// NoProcCap leaves processes uncapped even where a pids cgroup is writable.
	NoProcCap bool
}

// Sandbox starts isolated processes. It is safe for concurrent use and holds no resources:
// each process's are released when it ends.
type Sandbox struct {
	mode      Mode
	bwrap     string
	version   string
	forwarder string
	scratch   string
	cgroups   *cgroupRoot // nil: no process cap
	system    []string    // bwrap arguments showing the system directories, computed once
}

// New checks that processes can be isolated in opts.Mode and returns the sandbox. Under
// ModeBwrap, an error matching ErrUnavailable (an *UnavailableError) names what is missing: the
// bwrap binary, user namespaces, or what bubblewrap itself said when a trial run failed.
func New(ctx context.Context, opts Options) (*Sandbox, error) {
	if opts.Mode == "" {
		opts.Mode = ModeBwrap
	}
	if _, err := ParseMode(string(opts.Mode)); err != nil {
		return nil, err
	}
	s := &Sandbox{mode: opts.Mode, scratch: opts.ScratchDir, forwarder: opts.Forwarder}
	if s.scratch == "" {
		s.scratch = os.TempDir()
	}
	if !opts.NoProcCap {
		s.cgroups = findCgroupRoot()
	}
	if s.mode == ModeNone {
		return s, nil
	}
	if err := s.findBwrap(opts.Bwrap); err != nil {
		return nil, err
	}
	if err := userNamespaces(); err != nil {
		return nil, err
	}
	s.system = systemBinds()
	if err := s.probe(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sandbox) findBwrap(prog string) error {
	if prog == "" {
		prog = "bwrap"
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return &UnavailableError{Missing: "the bubblewrap program " + prog + " is not installed",
			Detail: "install the Debian package bubblewrap (scripts/install-deps.sh does), or run with --sandbox none to run external programs unisolated"}
	}
	s.bwrap = path
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return &UnavailableError{Missing: "bubblewrap at " + path + " does not run", Detail: err.Error()}
	}
	s.version = strings.TrimSpace(string(out))
	return nil
}

// userNamespaces checks the kernel settings that refuse bubblewrap its user namespace.
func userNamespaces() error {
	read := func(p string) string {
		b, _ := os.ReadFile(p)
		return strings.TrimSpace(string(b))
	}
	if read("/proc/sys/user/max_user_namespaces") == "0" {
		return &UnavailableError{Missing: "user namespaces are disabled (user.max_user_namespaces = 0)",
			Detail: "allow them with sysctl user.max_user_namespaces=15000, or run with --sandbox none"}
	}
	if os.Geteuid() != 0 && read("/proc/sys/kernel/unprivileged_userns_clone") == "0" {
		return &UnavailableError{Missing: "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)",
			Detail: "allow them with sysctl kernel.unprivileged_userns_clone=1, or run with --sandbox none"}
	}
	if os.Geteuid() != 0 && read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1" {
		return &UnavailableError{Missing: "AppArmor refuses unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)",
			Detail: "give bwrap an AppArmor profile that allows userns, or run with --sandbox none"}
	}
	return nil
}

// probe runs `true` in an empty sandbox: what bubblewrap says when that fails is the reason.
func (s *Sandbox) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := s.Run(ctx, Spec{Args: []string{"true"}, MaxProcs: -1})
	if err == nil && res.ExitCode == 0 {
		return nil
	}
	why := strings.TrimSpace(string(res.Stderr))
	if why == "" && err != nil {
		why = err.Error()
	}
	if why == "" {
		why = fmt.Sprintf("exit status %d", res.ExitCode)
	}
	return &UnavailableError{Missing: "bubblewrap cannot create its namespaces here: " + why,
		Detail: "in a container, allow user namespaces (or run it with --privileged); else run with --sandbox none"}
}

// Mode is the sandbox's mode.
func (s *Sandbox) Mode() Mode { return s.mode }

// ProcCap reports whether processes are capped (Spec.MaxProcs): a pids cgroup is writable here.
func (s *Sandbox) ProcCap() bool { return s.cgroups != nil }

// Describe names the isolation for a run's manifest: "bwrap (bubblewrap 0.8.0; process cap:
// pids cgroup)", or "none (...)".
func (s *Sandbox) Describe() string {
	procs := "process cap: none (no writable pids cgroup)"
	if s.cgroups != nil {
		procs = "process cap: pids cgroup"
	}
	if s.mode == ModeNone {
		return "none (no isolation: host files, network and processes in view; " + procs + ")"
	}
	return "bwrap (" + s.version + "; " + procs + ")"
}

// ForwarderName is the small forwarder program (cmd/vulnbench-forward) the sandbox uses when it
// lies beside this process's executable.
const ForwarderName = "vulnbench-forward"

// forwarderProgram is the host program that serves the gateway inside a sandbox: Options'
// Forwarder, else vulnbench-forward beside this executable, else this executable itself.
func (s *Sandbox) forwarderProgram() (string, error) {
	if s.forwarder != "" {
		return s.forwarder, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("sandbox: find this program, the gateway's forwarder: %w", err)
	}
	small := filepath.Join(filepath.Dir(exe), ForwarderName)
	if fi, err := os.Stat(small); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return small, nil
	}
	return exe, nil
}

// boundedBuffer keeps the first max bytes written to it and notes the rest.
type boundedBuffer struct {
	buf    bytes.Buffer
	max    int64 // negative: no bound
	cut    bool
	onFull func()
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.max < 0 {
		return b.buf.Write(p)
	}
	room := b.max - int64(b.buf.Len())
	if int64(len(p)) > room {
		b.buf.Write(p[:max(room, 0)])
		if !b.cut {
			b.cut = true
			if b.onFull != nil {
				b.onFull()
			}
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

var errNoArgs = errors.New("sandbox: no program to run (Spec.Args is empty)")
