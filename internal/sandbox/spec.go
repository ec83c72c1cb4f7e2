package sandbox

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
)

// The fixed layout a sandboxed process sees. Under ModeNone the placeholders name host paths
// instead (see Spec).
const (
	ProjectDir    = "/project"       // the project: read-only, or a writable scratch copy
	AdvisoriesDir = "/advisories"    // Spec.Advisories, read-only
	HomeDir       = "/home/sandbox"  // a tmpfs, the process's HOME
	TmpDir        = "/tmp"           // a tmpfs
	OutDir        = "/out"           // Spec.OutDir, writable: what the process leaves for the caller
	runDir        = "/run/vulnbench" // the gateway's socket and the forwarder
	socketPath    = runDir + "/gateway.sock"
	forwarderPath = runDir + "/forward"
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
// its home, say). Dst may start with a placeholder ({home}, {tmp}); the file is the process's own
// to change.
type File struct {
	Dst  string
	Data []byte
	Mode uint32 // 0: 0o644
	// Expand replaces the placeholders in Data as in Args (a configuration naming {gateway}:
	// its port differs under ModeNone); data in it must be Quoted.
	Expand bool
}

// data is the file's content, its placeholders replaced when it asks.
func (l layout) data(f File) []byte {
	if !f.Expand {
		return f.Data
	}
	return []byte(l.expand(string(f.Data)))
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
	// OutDir is a host directory shown writable at {out}: the one place the process can leave
	// files for the caller (a CLI's last message). "" shows none.
	OutDir string
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
	Dir   string
	Stdin io.Reader

	// Timeout kills the process and everything it started after this long; 0: only the
	// context ends it.
	Timeout time.Duration
	// MaxOutput caps each of stdout and stderr (Run): past it the process is killed and the
	// output kept so far returned, marked. Default DefaultMaxOutput; negative: no cap.
	MaxOutput int64
	// MaxProcs caps the processes and threads alive at once, where a pids cgroup is writable
	// (see Sandbox.ProcCap). Default DefaultMaxProcs; negative: no cap.
	MaxProcs int
}

func (s Spec) maxOutput() int64 {
	if s.MaxOutput == 0 {
		return DefaultMaxOutput
	}
	return s.MaxOutput
}

func (s Spec) maxProcs() int {
	if s.MaxProcs == 0 {
		return DefaultMaxProcs
	}
	return s.MaxProcs
}

// layout is where a process sees its directories.
type layout struct {
	project, advisories, home, tmp, out, gateway string
	binds                                        map[string]string
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
		"{out}", l.out, "{gateway}", l.gateway}
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
	Duration             time.Duration
}

// Errors of Run, matched with errors.Is. Run returns them with the Result of what the process
// did until then.
var (
	ErrTimeout     = errors.New("sandbox: the process ran past its timeout and was killed")
	ErrOutputLimit = errors.New("sandbox: the process wrote more than its output cap and was killed")
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
