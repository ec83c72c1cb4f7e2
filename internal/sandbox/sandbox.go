package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	// only the environment, the working directory, the timeout, the output cap, the one way
	// back (Collect) and, where cgroups are writable, the process cap and the memory limit
	// still apply. Callers record it (a run's manifest, under every score).
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
	// Forwarder is a program that runs `PROGRAM sandbox-forward ...` as ForwardMain does (the
	// sandbox's helper: it serves the gateway and holds the sandbox open to read back what a
	// program left): vulnbench-forward, the vulnbench binary itself, or a test binary whose
	// TestMain calls ForwardMain. Default: vulnbench-forward beside this process's executable
	// when it is there, else this executable.
	Forwarder string
	// ScratchDir holds the processes' host folders (writable copies of projects; under
	// ModeNone their homes, tmp and output folders); default os.TempDir().
	ScratchDir string
	// NoProcCap leaves processes uncapped and unlimited in memory even where cgroups are
	// writable.
	NoProcCap bool
	// Disk bounds each process's writable space (/tmp, home and /out together: --sandbox-disk),
	// default DefaultDisk; Memory bounds the memory of each process and all it starts where a
	// memory cgroup is writable (--sandbox-mem), default DefaultMemory. Negative: no bound.
	Disk, Memory int64
}

// provider runs processes one way: bubblewrap, or on the host (ModeNone). The Sandbox is the
// same for both: consumers never branch on the mode.
type provider interface {
	// command prepares p's command for spec; project is the host directory shown as the
	// project (a scratch copy when the spec is writable).
	command(ctx context.Context, p *Process, spec Spec, project string) error
}

// Sandbox starts isolated processes. It is safe for concurrent use and holds no resources:
// each process's are released when it ends.
type Sandbox struct {
	mode     Mode
	provider provider
	version  string // bubblewrap's
	seccomp  bool
	scratch  string
	cgroups  *cgroupRoot // nil: no process cap, no memory limit
	noCaps   bool
	disk     int64
	memory   int64
	swept    []string
}

// New checks that processes can be isolated in opts.Mode and returns the sandbox. Under
// ModeBwrap, an error matching ErrUnavailable (an *UnavailableError) names what is missing: the
// bwrap binary, user namespaces, or what bubblewrap itself said when a trial run failed. New
// removes what a vulnbench that died left (its processes' folders and cgroups): Swept names it.
func New(ctx context.Context, opts Options) (*Sandbox, error) {
	if opts.Mode == "" {
		opts.Mode = ModeBwrap
	}
	if _, err := ParseMode(string(opts.Mode)); err != nil {
		return nil, err
	}
	s := &Sandbox{mode: opts.Mode, scratch: opts.ScratchDir, noCaps: opts.NoProcCap, disk: opts.Disk, memory: opts.Memory}
	if s.scratch == "" {
		s.scratch = os.TempDir()
	}
	if s.disk == 0 {
		s.disk = DefaultDisk
	}
	if s.memory == 0 {
		s.memory = DefaultMemory
	}
	s.cgroups = findCgroups()
	if s.cgroups != nil {
		s.swept = append(s.swept, s.cgroups.sweep()...)
	}
	s.swept = append(s.swept, sweep(s.scratch)...)
	if opts.NoProcCap {
		s.cgroups = nil
	}
	if s.mode == ModeNone {
		s.provider = host{s: s}
		return s, nil
	}
	b := &bwrap{forwarder: opts.Forwarder, seccomp: seccompFilter(), overlay: canOverlay()}
	if err := b.find(opts.Bwrap); err != nil {
		return nil, err
	}
	if err := userNamespaces(); err != nil {
		return nil, err
	}
	b.system = systemBinds()
	s.provider, s.version, s.seccomp = b, b.version, b.seccomp != nil
	if err := s.probe(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (b *bwrap) find(prog string) error {
	if prog == "" {
		prog = "bwrap"
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return &UnavailableError{Missing: "the bubblewrap program " + prog + " is not installed",
			Detail: "install the Debian package bubblewrap (scripts/install-deps.sh does), or run with --sandbox none to run external programs unisolated"}
	}
	b.prog = path
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return &UnavailableError{Missing: "bubblewrap at " + path + " does not run", Detail: err.Error()}
	}
	b.version = strings.TrimSpace(string(out))
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
	res, err := s.Run(ctx, Spec{Args: []string{"true"}, MaxProcs: -1, MaxMemory: -1})
	if err == nil && res.ExitCode == 0 {
		return nil
	}
	why := strings.TrimSpace(string(res.Stderr))
	if why != "" && res.ExitCode == -1 && err != nil {
		why = lastLine(why)
	}
	if why == "" && err != nil {
		why = err.Error()
	}
	if why == "" {
		why = fmt.Sprintf("exit status %d", res.ExitCode)
	}
	return &UnavailableError{Missing: "bubblewrap cannot create its namespaces here: " + why,
		Detail: "in a container, allow user namespaces (or run it with --privileged); else run with --sandbox none"}
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// withDefaults fills in a spec's disk and memory bounds from the sandbox's.
func (s *Sandbox) withDefaults(spec Spec) Spec {
	if spec.MaxDisk == 0 {
		spec.MaxDisk = s.disk
	}
	if spec.MaxMemory == 0 {
		spec.MaxMemory = s.memory
	}
	if s.mode == ModeNone {
		spec.MaxDisk = -1 // a host folder: unbounded (Unbounded says so)
	}
	return spec
}

// Mode is the sandbox's mode, for a run's manifest.
func (s *Sandbox) Mode() Mode { return s.mode }

// Isolates reports whether processes are isolated from the host (bubblewrap): what a run that
// started isolated requires of every host that goes on with it.
func (s *Sandbox) Isolates() bool { return s.mode != ModeNone }

// ProcCap reports whether processes are capped (Spec.MaxProcs): a pids cgroup is writable here.
func (s *Sandbox) ProcCap() bool { return s.cgroups != nil && s.cgroups.pids != "" }

// MemoryCap reports whether processes' memory is limited (Spec.MaxMemory): a memory cgroup is
// writable here.
func (s *Sandbox) MemoryCap() bool { return s.cgroups != nil && s.cgroups.memory != "" }

// Swept names what New removed that a vulnbench that died had left: its processes' folders and
// cgroups.
func (s *Sandbox) Swept() []string { return s.swept }

// Unbounded names each limit that does not hold here and why, for the start of a run (said on
// stderr) and its manifest (printed under its scores): none under bubblewrap with writable
// pids and memory cgroups on amd64 or arm64.
func (s *Sandbox) Unbounded() []string {
	var out []string
	if s.mode == ModeNone {
		out = append(out, "isolation: none (--sandbox none: host files, network and processes in view)",
			"disk: none (under --sandbox none /tmp, home and the output folder are host folders)")
	} else if !s.seccomp {
		out = append(out, "seccomp: none (no filter is built for "+runtime.GOARCH+")")
	}
	if b, ok := s.provider.(*bwrap); ok && !b.overlay {
		out = append(out, "host paths: shown (read-only binds show their host folders in /proc/self/mountinfo: overlays need CAP_SYS_ADMIN, run as root)")
	}
	if !s.MemoryCap() {
		out = append(out, "memory: none (--sandbox-mem needs a writable memory cgroup: cgroup v2 delegating the memory controller to this process's cgroup, or cgroup v1's memory hierarchy writable, as root)")
	} else if s.memory < 0 {
		out = append(out, "memory: none (--sandbox-mem off)")
	}
	if !s.ProcCap() {
		out = append(out, "processes: none (no writable pids cgroup: a fork bomb is stopped only by the timeout)")
	}
	if s.mode != ModeNone && s.disk < 0 {
		out = append(out, "disk: none (--sandbox-disk off)")
	}
	return out
}

// Describe names the isolation for a run's manifest: "bwrap (bubblewrap 0.8.0; disk 1 GiB,
// memory 4 GiB, processes capped, seccomp)", or "none (...)".
func (s *Sandbox) Describe() string {
	var parts []string
	if s.mode != ModeNone {
		parts = append(parts, s.version)
		if s.disk > 0 {
			parts = append(parts, "disk "+Size(s.disk))
		}
	}
	if s.MemoryCap() && s.memory > 0 {
		parts = append(parts, "memory "+Size(s.memory))
	}
	if s.ProcCap() {
		parts = append(parts, "processes capped")
	}
	if s.mode != ModeNone && s.seccomp {
		parts = append(parts, "seccomp")
	}
	if s.mode == ModeNone {
		return "none (no isolation: host files, network and processes in view; " + strings.Join(append(parts, "unbounded: "+strings.Join(s.unboundedNames(), ", ")), "; ") + ")"
	}
	d := "bwrap (" + strings.Join(parts, "; ")
	if u := s.unboundedNames(); len(u) > 0 {
		d += "; unbounded: " + strings.Join(u, ", ")
	}
	return d + ")"
}

func (s *Sandbox) unboundedNames() []string {
	var out []string
	for _, u := range s.Unbounded() {
		name, _, _ := strings.Cut(u, ":")
		if name != "isolation" {
			out = append(out, name)
		}
	}
	return out
}

// ForwarderName is the small helper program (cmd/vulnbench-forward) the sandbox uses when it
// lies beside this process's executable.
const ForwarderName = "vulnbench-forward"

// forwarderProgram is the host program started as the sandbox's helper: the given one, else
// vulnbench-forward beside this executable, else this executable itself.
func forwarderProgram(given string) (string, error) {
	if given != "" {
		return given, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("sandbox: find this program, the sandbox's helper: %w", err)
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
