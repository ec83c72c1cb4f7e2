package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Stdio are a process's streams; nil ones are /dev/null. An *os.File is handed to the process
// as it is (a pipe the caller reads as a stream), anything else is copied.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Process is a started sandboxed process.
type Process struct {
	cmd     *exec.Cmd
	cgroup  *cgroup // nil: uncapped
	blocked bool    // bubblewrap waits on --block-fd until the cgroup holds it
	// afterStart are descriptors for the child only (the ends of its data pipes, of --info-fd
	// and --block-fd): closed once it started, or at cleanup.
	afterStart []*os.File
	cleanups   []func()
	reaped     atomic.Bool
	done       chan struct{}
	waitErr    error
}

// Start starts spec's program with the given streams and returns at once. The process and
// everything it starts are killed when ctx ends; Wait for it. Spec.Timeout and Spec.MaxOutput
// are Run's: Start applies neither.
func (s *Sandbox) Start(ctx context.Context, spec Spec, stdio Stdio) (*Process, error) {
	if len(spec.Args) == 0 {
		return nil, errNoArgs
	}
	p := &Process{done: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			p.cleanup()
		}
	}()
	project := spec.Project
	if project != "" && spec.Writable {
		dir, err := os.MkdirTemp(s.scratch, "vulnbench-project-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: scratch copy of %s: %w", spec.Project, err)
		}
		p.cleanups = append(p.cleanups, func() { _ = removeAll(dir) })
		if err := copyTree(spec.Project, dir); err != nil {
			return nil, err
		}
		project = dir
	}
	var err error
	if s.mode == ModeNone {
		err = s.commandNone(ctx, p, spec, project)
	} else {
		err = s.commandBwrap(p, spec, project)
	}
	if err != nil {
		return nil, err
	}
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = stdio.Stdin, stdio.Stdout, stdio.Stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p.cmd.WaitDelay = 2 * time.Second // output pipes held open by something that escaped the kill
	if s.cgroups != nil && spec.maxProcs() > 0 {
		if p.cgroup, err = s.cgroups.create(spec.maxProcs()); err != nil {
			return nil, err
		}
		p.blocked = s.mode == ModeBwrap
	}
	if err := p.start(); err != nil {
		return nil, err
	}
	ok = true
	go p.watch(ctx)
	return p, nil
}

// start starts the command and, with a process cap, puts it in its cgroup before it can start
// anything: bubblewrap says its sandbox's first process on --info-fd and waits on --block-fd
// until both are in. Under ModeNone the program is moved as soon as it started (a shell's
// first fork may come before; a cap is against runaways, not a race).
func (p *Process) start() error {
	if p.cgroup == nil {
		if err := p.cmd.Start(); err != nil {
			return fmt.Errorf("sandbox: start %s: %w", p.cmd.Path, err)
		}
		p.closeAfterStart()
		return nil
	}
	var info, release *os.File
	if p.blocked {
		var err error
		if info, release, err = p.blockPipes(); err != nil {
			return err
		}
	}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("sandbox: start %s: %w", p.cmd.Path, err)
	}
	p.closeAfterStart()
	pids := []int{p.cmd.Process.Pid}
	var err error
	if p.blocked {
		var child int
		child, err = readChildPid(info)
		pids = append(pids, child)
		go func() {
			// The rest of bubblewrap's info: closing the pipe before it wrote it all would
			// kill it with SIGPIPE.
			_, _ = io.Copy(io.Discard, info)
			info.Close()
		}()
	}
	for _, pid := range pids {
		if err == nil {
			err = p.cgroup.add(pid)
		}
	}
	if release != nil {
		_, _ = release.Write([]byte{1})
		release.Close()
	}
	if err != nil {
		p.kill()
		_ = p.cmd.Wait()
		return err
	}
	return nil
}

// blockPipes adds bubblewrap's --info-fd and --block-fd descriptors to the command: it
// returns the read end of the first and the write end of the second.
func (p *Process) blockPipes() (info, release *os.File, err error) {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoR.Close()
		infoW.Close()
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	n := len(p.cmd.ExtraFiles)
	p.cmd.ExtraFiles = append(p.cmd.ExtraFiles, infoW, blockR)
	// The flags go first: bubblewrap reads its options up to "--".
	p.cmd.Args = slices.Insert(p.cmd.Args, 1, "--info-fd", strconv.Itoa(3+n), "--block-fd", strconv.Itoa(4+n))
	p.afterStart = append(p.afterStart, infoW, blockR)
	return infoR, blockW, nil
}

// closeAfterStart closes this process's copies of the descriptors only the child needs.
func (p *Process) closeAfterStart() {
	for _, f := range p.afterStart {
		f.Close()
	}
	p.afterStart = nil
}

// readChildPid reads bubblewrap's info ({"child-pid": N, ...}) up to its first field.
func readChildPid(r *os.File) (int, error) {
	_ = r.SetReadDeadline(time.Now().Add(10 * time.Second))
	var buf []byte
	b := make([]byte, 256)
	for {
		n, err := r.Read(b)
		buf = append(buf, b[:n]...)
		if m := childPidRE.FindSubmatch(buf); m != nil {
			return strconv.Atoi(string(m[1]))
		}
		if err != nil {
			return 0, fmt.Errorf("sandbox: bubblewrap did not say its child's pid: %w (%q)", err, buf)
		}
	}
}

var childPidRE = regexp.MustCompile(`"child-pid":\s*(\d+)[,\s}]`)

// watch kills the process when ctx ends, then waits for it.
func (p *Process) watch(ctx context.Context) {
	waited := make(chan error, 1)
	go func() { waited <- p.cmd.Wait() }()
	select {
	case err := <-waited:
		p.waitErr = err
	case <-ctx.Done():
		p.kill()
		p.waitErr = <-waited
	}
	p.reaped.Store(true)
	if p.cgroup != nil {
		p.cgroup.killAll() // whatever it left running (a daemon under ModeNone)
	}
	p.cleanup()
	close(p.done)
}

// Kill kills the process and everything it started.
func (p *Process) Kill() { p.kill() }

func (p *Process) kill() {
	if p.cmd.Process != nil && !p.reaped.Load() {
		// The group of bubblewrap (whose death kills its PID namespace) or of the program.
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	if p.cgroup != nil {
		p.cgroup.killAll()
	}
}

// Wait waits for the process to end and its resources to be released. Its error is the
// program's exit as exec.Cmd.Wait reports it.
func (p *Process) Wait() error {
	<-p.done
	return p.waitErr
}

func (p *Process) cleanup() {
	p.closeAfterStart()
	if p.cgroup != nil {
		p.cgroup.remove()
		p.cgroup = nil
	}
	for i := len(p.cleanups) - 1; i >= 0; i-- {
		p.cleanups[i]()
	}
	p.cleanups = nil
}

// Run runs spec's program to its end, capturing its output within MaxOutput, killing it at
// Timeout. The error is ErrTimeout or ErrOutputLimit (with the Result so far), the context's,
// or a failure to start; a program that ran and exited non-zero is no error: see ExitCode.
func (s *Sandbox) Run(ctx context.Context, spec Spec) (Result, error) {
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.Timeout)
		defer cancel()
	}
	var p *Process
	var once sync.Once
	var mu sync.Mutex
	kill := func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if p != nil {
				p.Kill()
			}
		})
	}
	stdout := &boundedBuffer{max: spec.maxOutput(), onFull: kill}
	stderr := &boundedBuffer{max: spec.maxOutput(), onFull: kill}
	start := time.Now()
	mu.Lock()
	p, err := s.Start(ctx, spec, Stdio{Stdin: spec.Stdin, Stdout: stdout, Stderr: stderr})
	mu.Unlock()
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	werr := p.Wait()
	res := Result{ExitCode: p.cmd.ProcessState.ExitCode(), Stdout: stdout.buf.Bytes(), Stderr: stderr.buf.Bytes(),
		StdoutCut: stdout.cut, StderrCut: stderr.cut, Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case res.StdoutCut || res.StderrCut:
		return res, fmt.Errorf("%w (%d bytes; %s)", ErrOutputLimit, spec.maxOutput(), strings.Join(spec.Args, " "))
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && spec.Timeout > 0:
		res.TimedOut = true
		return res, fmt.Errorf("%w (%s)", ErrTimeout, spec.Timeout)
	case ctx.Err() != nil:
		return res, ctx.Err()
	case werr != nil && !errors.As(werr, &ee):
		return res, fmt.Errorf("sandbox: run %s: %w", spec.Args[0], werr)
	}
	return res, nil
}

// commandBwrap prepares bubblewrap's command for spec.
func (s *Sandbox) commandBwrap(p *Process, spec Spec, project string) error {
	l := bwrapLayout(spec)
	forwarder := ""
	if spec.Gateway != "" {
		var err error
		if forwarder, err = s.forwarderProgram(); err != nil {
			return err
		}
	}
	bc, err := s.bwrapCommand(spec, project, forwarder, l)
	if err != nil {
		return err
	}
	p.cmd = exec.Command(s.bwrap, bc.args...)
	// bubblewrap's own environment is the process's: inside its PID namespace /proc/1/environ
	// shows it, so nothing more may be in it.
	p.cmd.Env = l.env(spec)
	for _, content := range bc.data {
		r, err := dataPipe(content)
		if err != nil {
			return err
		}
		p.cmd.ExtraFiles = append(p.cmd.ExtraFiles, r)
		p.afterStart = append(p.afterStart, r)
	}
	return nil
}

// dataPipe is a pipe holding content, closed for writing: bubblewrap reads a file's content
// from it. Contents are small (a CLI's configuration), within the pipe's buffer; larger ones
// are written as bubblewrap reads.
func dataPipe(content string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	go func() {
		_, _ = io.WriteString(w, content)
		w.Close()
	}()
	return r, nil
}

// commandNone prepares spec's program to run on the host: temporary home and tmp, spec's
// files written there, the gateway served by an in-process forwarder on a host loopback port.
func (s *Sandbox) commandNone(ctx context.Context, p *Process, spec Spec, project string) error {
	base, err := os.MkdirTemp(s.scratch, "vulnbench-none-")
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	p.cleanups = append(p.cleanups, func() { _ = removeAll(base) })
	l := layout{project: project, advisories: spec.Advisories, out: spec.OutDir, home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"),
		binds: map[string]string{}}
	for _, d := range []string{l.home, l.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	for _, b := range spec.Binds {
		if b.Name != "" {
			l.binds[b.Name] = b.Src
		}
	}
	if spec.Gateway != "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("sandbox: the gateway's forwarder: %w", err)
		}
		fctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		go serveForward(fctx, ln, spec.Gateway)
		p.cleanups = append(p.cleanups, func() { stop(); ln.Close() })
		l.gateway = gatewayURL(ln.Addr().(*net.TCPAddr).Port)
	}
	for _, f := range spec.Files {
		dst := l.expand(f.Dst)
		if !strings.HasPrefix(dst, l.home+"/") && !strings.HasPrefix(dst, l.tmp+"/") {
			return fmt.Errorf("sandbox: file %s: under --sandbox none only files under {home} or {tmp} are written", f.Dst)
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if err := os.WriteFile(dst, l.data(f), os.FileMode(mode)); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	argv := make([]string, len(spec.Args))
	for i, a := range spec.Args {
		argv[i] = l.expand(a)
	}
	env := l.env(spec)
	prog := argv[0]
	if !strings.Contains(prog, "/") {
		// Looked up in the process's own PATH, not vulnbench's.
		prog = lookPath(prog, env)
	}
	p.cmd = exec.Command(prog, argv[1:]...)
	p.cmd.Args[0] = argv[0]
	p.cmd.Env = env
	p.cmd.Dir = l.dir(spec)
	return nil
}

// lookPath finds name in the PATH of env; name itself when it is not there (the start fails
// naming it).
func lookPath(name string, env []string) string {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return name
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
