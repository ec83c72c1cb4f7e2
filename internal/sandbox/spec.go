package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// The fixed layout a sandboxed process sees. Under ModeNone the placeholders name host paths
// instead (see Spec).
const (
	ProjectDir    = "/project"      // the project: read-only, or a writable scratch copy
	AdvisoriesDir = "/advisories"   // Spec.Advisories, read-only
	HomeDir       = "/home/sandbox" // the process's HOME, in its writable space
	TmpDir        = "/tmp"          // in its writable space
	// WritableDir is the process's one writable space: a tmpfs of Spec.MaxDisk (Options.Disk)
	// holding tmp, home and out; /tmp and /home/sandbox link to the first two.
	WritableDir = "/run/sandbox"
	OutDir      = WritableDir + "/out"   // Spec.Out: what the process leaves for the caller
	CacheDir    = "/var/cache/vulnbench" // Spec.Cache, writable
	// GatewayPort is the loopback port inside the sandbox on which the forwarder serves the
	// gateway: {gateway} is http://127.0.0.1:GatewayPort.
	GatewayPort = 8420
	// User, UID and GID are the sandbox's unprivileged user (a user namespace maps it to the
	// caller's user outside; it has no capabilities).
	User = "sandbox"
	UID  = 1000
	GID  = 1000
)

// Defaults of a Spec's limits.
const (
	DefaultMaxOutput = 64 << 20
	DefaultMaxProcs  = 1024
	// DefaultDisk bounds /tmp, home and /out together (--sandbox-disk).
	DefaultDisk = 1 << 30
	// DefaultMemory bounds the memory of a process and all it starts (--sandbox-mem), where a
	// memory cgroup is writable.
	DefaultMemory = 4 << 30
)

// Bind is a host path shown read-only inside the sandbox at Dst. Name, when set, is a
// placeholder ({Name}) for the path as the process sees it: Dst in the sandbox, Src under
// ModeNone.
type Bind struct {
	Name string
	Src  string // host path (file or directory)
	Dst  string // absolute path inside
}

// File is a file the sandbox writes for the process before it starts (a CLI's configuration in
// its home, say). Dst starts with a placeholder: {home}, {tmp} or {out} (the process's own to
// change), or {advisories} (a read-only place of such files, for a Spec without Advisories).
type File struct {
	Dst  string
	Data []byte
	Mode uint32 // 0: 0o644
	// Expand replaces Data's placeholders as in Args (Quote the data in it): a prompt naming
	// {advisories} or {project}.
	Expand bool
}

// Spec is one sandboxed process.
//
// Args, Env values, Dir and File destinations may hold placeholders, replaced by the paths the
// process sees: {project}, {advisories}, {home}, {tmp}, {out}, {gateway} (the gateway's URL,
// http://127.0.0.1:PORT, without a path) and {NAME} for each Bind with a Name. Under ModeBwrap
// they are the fixed paths above; under ModeNone the host paths (a temporary home and tmp).
type Spec struct {
	// Project is the host directory shown at {project} (ProjectDir): read-only, or, with
	// Writable, a scratch copy made for this process and removed after it. "" shows none.
	Project  string
	Writable bool
	// Advisories is a host directory shown read-only at {advisories}. "" shows none.
	Advisories string
	// Out gives the process a writable folder at {out}, in its writable space: where it leaves
	// files for the caller (a CLI's last message), read back through Collect alone.
	Out bool
	// Cache is a host folder shown writable at {cache}: a tool's own cache that vulnbench
	// prepared and processes share (Go's build cache for gosec), outside the writable space's
	// bound. Nothing outside the sandbox may read it: it holds only what sandboxed processes
	// wrote. "" shows none.
	Cache string
	// Binds are more read-only host paths: toolchains, a CLI's install prefix.
	Binds []Bind
	// Files are written for the process before it starts.
	Files []File
	// Gateway is the host path of the model gateway's Unix socket. When set, the process can
	// reach it, and only it, at {gateway}; when "", it has no network at all.
	Gateway string

	// Args is the program (a path as the process sees it, or a name looked up in its PATH) and
	// its arguments.
	Args []string
	// Env is the process's whole environment (KEY=VALUE), nothing inherited; PATH, HOME,
	// TMPDIR, USER and LANG get defaults when absent.
	Env []string
	// Dir is the working directory; default {project}, or {home} without a project.
	Dir string
	// Stdin is the process's standard input; when nil, Input (its placeholders replaced as in
	// Args) is written to it, through a pipe: how a prompt reaches a CLI without showing in any
	// process's command line.
	Stdin io.Reader
	Input string

	// Collect names the files to read back once the program has ended (exited, timed out,
	// killed at its output cap), before the sandbox is torn down: {out}/NAME, {home}/PATH or
	// {tmp}/PATH, where a component may be a path.Match pattern. Each is read through the one
	// guarded reader (see readback.go) up to CollectMax bytes (default DefaultCollectMax), into
	// Result.Files.
	Collect    []string
	CollectMax int64

	// Timeout kills the process and everything it started after this long; 0: only the
	// context ends it.
	Timeout time.Duration
	// MaxOutput caps each of stdout and stderr (Run): past it the process is killed and the
	// output kept so far returned, marked. Default DefaultMaxOutput; negative: no cap.
	MaxOutput int64
	// MaxProcs caps the processes and threads alive at once, where a pids cgroup is writable
	// (see Sandbox.ProcCap). Default DefaultMaxProcs; negative: no cap.
	MaxProcs int
	// MaxDisk bounds the process's writable space (tmp, home, out together); MaxMemory the
	// memory of it and all it starts, where a memory cgroup is writable (Sandbox.Bounds). 0:
	// the sandbox's (Options.Disk, Options.Memory); negative: none.
	MaxDisk, MaxMemory int64
}

func (s Spec) maxOutput() int64 {
	if s.MaxOutput == 0 {
		return DefaultMaxOutput
	}
	return s.MaxOutput
}

func (s Spec) collectMax() int64 {
	if s.CollectMax <= 0 {
		return DefaultCollectMax
	}
	return s.CollectMax
}

func (s Spec) maxProcs() int {
	if s.MaxProcs == 0 {
		return DefaultMaxProcs
	}
	return s.MaxProcs
}

// layout is where a process sees its directories.
type layout struct {
	project, advisories, home, tmp, out, cache, gateway string
	binds                                               map[string]string
}

// Quote is data (a prompt, an advisory's text) as an argument, an environment value or a
// working directory that reaches the process as it is: its braces are doubled, so that no
// "{project}" or "{home}" in it is taken for a placeholder.
func Quote(data string) string { return strings.ReplaceAll(data, "{", "{{") }

// expand replaces the placeholders of s, and "{{" (Quote) with "{".
func (l layout) expand(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	pairs := []string{"{{", "{", "{project}", l.project, "{advisories}", l.advisories, "{home}", l.home, "{tmp}", l.tmp,
		"{out}", l.out, "{cache}", l.cache, "{gateway}", l.gateway}
	if l.gateway == "" {
		pairs = pairs[:len(pairs)-2]
	}
	for name, p := range l.binds {
		pairs = append(pairs, "{"+name+"}", p)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// env is spec's environment with placeholders expanded and the defaults added.
func (l layout) env(spec Spec) []string {
	out := make([]string, 0, len(spec.Env)+5)
	seen := map[string]bool{}
	for _, kv := range spec.Env {
		k, v, _ := strings.Cut(kv, "=")
		seen[k] = true
		out = append(out, k+"="+l.expand(v))
	}
	for _, d := range [][2]string{{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", l.home}, {"TMPDIR", l.tmp}, {"USER", User}, {"LANG", "C.UTF-8"}} {
		if !seen[d[0]] {
			out = append(out, d[0]+"="+d[1])
		}
	}
	return out
}

func (l layout) dir(spec Spec) string {
	switch {
	case spec.Dir != "":
		return l.expand(spec.Dir)
	case spec.Project != "":
		return l.project
	}
	return l.home
}

func gatewayURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }

// Result is what a process did.
type Result struct {
	ExitCode int // -1 when it was killed
	Stdout   []byte
	Stderr   []byte
	// StdoutCut and StderrCut say the stream was longer than MaxOutput: what it wrote past
	// the cap is lost, and the process was killed.
	StdoutCut, StderrCut bool
	TimedOut             bool
	// DiskFull says the writable space was full when the program ended (MaxDisk);
	// OutOfMemory that the kernel killed a process of it at MaxMemory.
	DiskFull, OutOfMemory bool
	Duration              time.Duration
	// Files are the files of Spec.Collect, read back, in its order (a pattern's matches
	// sorted).
	Files []Collected
}

// File is the collected file at path ({out}/NAME, as Spec.Collect named it): its bytes, or why
// it was not read (a *RefusedError, or an error matching fs.ErrNotExist when the process left
// none).
func (r Result) File(path string) ([]byte, error) {
	for _, f := range r.Files {
		if f.Path == path {
			return f.Data, f.Err
		}
	}
	return nil, fmt.Errorf("sandbox: %s was not read back (not in Spec.Collect): %w", path, fs.ErrNotExist)
}

// Errors of Run, matched with errors.Is. Run returns them with the Result of what the process
// did until then.
var (
	ErrTimeout     = errors.New("sandbox: the process ran past its timeout and was killed")
	ErrOutputLimit = errors.New("sandbox: the process wrote more than its output cap and was killed")
	// ErrDiskLimit and ErrMemoryLimit: the process filled its writable space, or its memory.
	ErrDiskLimit   = errors.New("sandbox: the process filled its writable space (/tmp, home and /out together: --sandbox-disk)")
	ErrMemoryLimit = errors.New("sandbox: the process reached its memory limit (--sandbox-mem) and the kernel killed it")
	// ErrUnavailable is matched by the error of New when the sandbox cannot run here.
	ErrUnavailable = errors.New("sandbox unavailable")
)

// UnavailableError says what is missing for ModeBwrap.
type UnavailableError struct {
	Missing string // the binary, user namespaces, ...
	Detail  string // what to do
}

func (e *UnavailableError) Error() string {
	return "sandbox unavailable: " + e.Missing + " (" + e.Detail + ")"
}

// Is makes the error match ErrUnavailable.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// ParseSize reads a size flag: a byte count, or one with a unit (KiB, MiB, GiB, TiB; K, M,
// G, T and KB, MB, GB, TB are read as the binary units too); "off" (or "none", "-1") is no
// bound, returned as -1.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "off", "none", "-1":
		return -1, nil
	}
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	shift := map[string]uint{"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20, "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}
	sh, ok := shift[strings.ToLower(unit)]
	n, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || n <= 0 || n*float64(int64(1)<<sh) > float64(1<<62) {
		return 0, fmt.Errorf("%q: want a size such as 512MiB or 2GiB, or off", s)
	}
	return int64(n * float64(int64(1)<<sh)), nil
}
