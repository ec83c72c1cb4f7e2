package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Stdio are a process's streams; nil ones are /dev/null (stdin: Spec.Input). An *os.File is
// handed to the process as it is (a pipe the caller reads as a stream), anything else is
// copied.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// holdGrace is how long a stopped program's helper has to say it ended, and a released one to
// end, before the sandbox is killed outright.
const holdGrace = 5 * time.Second

// Process is a started sandboxed process.
type Process struct {
	spec    Spec
	cmd     *exec.Cmd
	cgroup  *cgroup // nil: uncapped
	blocked bool    // bubblewrap waits on --block-fd until the cgroup holds it
	// afterStart are descriptors for the child only (the ends of its data pipes, of --info-fd
	// and --block-fd, of its sockets): closed once it started, or at cleanup.
	afterStart []*os.File
	cleanups   []func()
	reaped     atomic.Bool
	childPid   int // bubblewrap's: the sandbox's first process (its init), on the host
	// unit is the process's own host folder ("" until one is needed); readAfterExit: without
	// a helper (ModeNone) the files are read back from it once the program ended.
	unit          string
	readAfterExit bool
	// boundedDisk: the writable space is a tmpfs of MaxDisk (bubblewrap), so a full one is the
	// limit reached.
	boundedDisk bool
	// With the helper: its control socket, the program's command line to send it, and where
	// the writable places are while it holds the sandbox open.
	hold   *holder
	argv   []string
	places func() map[string]place
	layout *layout // how the process sees its places
	// stager holds the overlays of the read-only binds; bubblewrap is started over them (nil:
	// none).
	stager *stager

	stopReq  chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	waitErr  error
	// Set before done closes.
	status      holderStatus
	files       []Collected
	diskFull    bool
	outOfMemory bool
}

// Start starts spec's program with the given streams and returns at once. The process and
// everything it starts are killed when ctx ends; Wait for it. Spec.Timeout and Spec.MaxOutput
// are Run's: Start applies neither.
func (s *Sandbox) Start(ctx context.Context, spec Spec, stdio Stdio) (*Process, error) {
	if len(spec.Args) == 0 {
		return nil, errNoArgs
	}
	spec = s.withDefaults(spec)
	p := &Process{spec: spec, done: make(chan struct{}), stopReq: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			p.cleanup()
		}
	}()
	project := spec.Project
	if project != "" && spec.Writable {
		u, err := s.unitDir(p)
		if err != nil {
			return nil, err
		}
		dir := u + "/project"
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: scratch copy of %s: %w", spec.Project, err)
		}
		if err := copyTree(spec.Project, dir); err != nil {
			return nil, err
		}
		project = dir
	}
	if err := s.provider.command(ctx, p, spec, project); err != nil {
		return nil, err
	}
	if stdio.Stdin == nil && spec.Input != "" {
		r, err := dataPipe([]byte(p.expandInput(spec)))
		if err != nil {
			return nil, err
		}
		p.afterStart = append(p.afterStart, r)
		stdio.Stdin = r
	}
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = stdio.Stdin, stdio.Stdout, stdio.Stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p.cmd.WaitDelay = 2 * time.Second // output pipes held open by something that escaped the kill
	if s.cgroups != nil && (spec.maxProcs() > 0 || spec.MaxMemory > 0) {
		var err error
		if p.cgroup, err = s.cgroups.create(spec.maxProcs(), spec.MaxMemory); err != nil {
			return nil, err
		}
	}
	if err := p.start(s.mode == ModeBwrap); err != nil {
		return nil, err
	}
	if p.hold != nil {
		if err := p.hold.send(p.argv); err != nil {
			p.kill()
			_ = p.cmd.Wait()
			return nil, fmt.Errorf("sandbox: the sandbox's helper: %w", err)
		}
	}
	ok = true
	go p.watch(ctx)
	return p, nil
}

// expandInput is spec.Input with its placeholders replaced as the process sees them.
func (p *Process) expandInput(spec Spec) string {
	if p.layout == nil {
		return spec.Input
	}
	return p.layout.expand(spec.Input)
}

// start starts the command. Under bubblewrap it learns the sandbox's first process from
// --info-fd and, with a cgroup, puts bubblewrap and it in the cgroup before anything can start
// (bubblewrap waits on --block-fd until both are in). Under ModeNone the program is moved as
// soon as it started (a shell's first fork may come before; a cap is against runaways, not a
// race).
func (p *Process) start(bwrap bool) error {
	var info, release *os.File
	if bwrap {
		var err error
		if info, release, err = p.infoPipes(p.cgroup != nil); err != nil {
			return err
		}
	}
	// Every process starts from an OS thread of its own that lives until the process has ended:
	// its Pdeathsig is the thread's, and a thread that a locked goroutine leaves ends with it (an
	// overlay start's thread, whose mount namespace is its own). Started from a thread of Go's
	// pool, a process was killed when another start happened to lock that thread and end it.
	if p.stager == nil {
		p.stager = newStager(nil)
		p.cleanups = append(p.cleanups, p.stager.release)
	}
	if err := p.stager.start(p.cmd.Start); err != nil {
		if info != nil {
			info.Close()
		}
		if release != nil {
			release.Close()
		}
		return fmt.Errorf("sandbox: start %s: %w", p.cmd.Path, err)
	}
	p.closeAfterStart()
	var err error
	pids := []int{p.cmd.Process.Pid}
	if info != nil {
		p.childPid, err = readChildPid(info)
		pids = append(pids, p.childPid)
		go func() {
			// The rest of bubblewrap's info: closing the pipe before it wrote it all would
			// kill it with SIGPIPE.
			_, _ = io.Copy(io.Discard, info)
			info.Close()
		}()
	}
	if p.cgroup != nil {
		for _, pid := range pids {
			if err == nil {
				err = p.cgroup.add(pid)
			}
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

// infoPipes adds bubblewrap's --info-fd (and, to wait for the cgroup, --block-fd) descriptors
// to the command: it returns the read end of the first and the write end of the second.
func (p *Process) infoPipes(block bool) (info, release *os.File, err error) {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	n := len(p.cmd.ExtraFiles)
	p.cmd.ExtraFiles = append(p.cmd.ExtraFiles, infoW)
	p.afterStart = append(p.afterStart, infoW)
	// The flags go first: bubblewrap reads its options up to "--".
	flags := []string{"--info-fd", strconv.Itoa(3 + n)}
	if block {
		blockR, blockW, err := os.Pipe()
		if err != nil {
			infoR.Close()
			return nil, nil, fmt.Errorf("sandbox: %w", err)
		}
		p.cmd.ExtraFiles = append(p.cmd.ExtraFiles, blockR)
		p.afterStart = append(p.afterStart, blockR)
		flags = append(flags, "--block-fd", strconv.Itoa(4+n))
		release = blockW
	}
	p.cmd.Args = slices.Insert(p.cmd.Args, 1, flags...)
	return infoR, release, nil
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
		if err != nil || len(buf) > 4096 {
			return 0, fmt.Errorf("sandbox: bubblewrap did not say its child's pid: %v (%q)", err, buf)
		}
	}
}

var childPidRE = regexp.MustCompile(`"child-pid":\s*(\d+)[,\s}]`)

// watch waits for the process to end (killing it when ctx ends or Kill is called), reads back
// what it left while its helper holds the sandbox open, and releases everything.
func (p *Process) watch(ctx context.Context) {
	waited := make(chan error, 1)
	go func() { waited <- p.cmd.Wait() }()
	if p.hold != nil {
		p.waitErr = p.holdToEnd(ctx, waited)
	} else {
		select {
		case err := <-waited:
			p.waitErr = err
		case <-ctx.Done():
			p.kill()
			p.waitErr = <-waited
		case <-p.stopReq:
			p.kill()
			p.waitErr = <-waited
		}
		if p.readAfterExit {
			if p.cgroup != nil {
				p.cgroup.killAll() // nothing may still be writing
			}
			p.status = holderStatus{ended: true, code: p.cmd.ProcessState.ExitCode()}
			p.readBack()
		}
	}
	p.reaped.Store(true)
	if p.cgroup != nil {
		p.cgroup.killAll() // whatever it left running (a daemon under ModeNone)
		p.outOfMemory = p.cgroup.oomKilled()
	}
	p.cleanup()
	close(p.done)
}

// holdToEnd is watch with the helper: when the program ended (or was stopped: ctx, Kill), the
// helper has killed the rest of the sandbox and holds it open; the files are read back, and
// the helper released.
func (p *Process) holdToEnd(ctx context.Context, waited chan error) error {
	var st holderStatus
	var werr error
	exited := false
	stop := func() {
		p.hold.stop()
		select {
		case st = <-p.hold.status:
		case werr = <-waited:
			exited = true
		case <-time.After(holdGrace):
		}
	}
	select {
	case st = <-p.hold.status:
	case werr = <-waited:
		exited = true
	case <-ctx.Done():
		stop()
	case <-p.stopReq:
		stop()
	}
	if st.ended && !exited {
		p.readBack()
	}
	p.status = st
	p.hold.release()
	if !exited {
		select {
		case werr = <-waited:
		case <-time.After(holdGrace):
			p.kill()
			werr = <-waited
		}
	}
	return werr
}

// readBack reads the files of Spec.Collect, and whether the writable space is full, while the
// sandbox is held open.
func (p *Process) readBack() {
	places := p.places()
	roots := map[string]*beneath{}
	var opened error
	for _, name := range slices.Sorted(maps.Keys(places)) {
		b, err := openBeneath(places[name], name)
		if err != nil {
			opened = err
			continue
		}
		defer b.close()
		roots[name] = b
	}
	if tmp := roots["{tmp}"]; tmp != nil && p.spec.MaxDisk > 0 && p.boundedDisk {
		p.diskFull = tmp.full()
	}
	p.files = collect(roots, p.spec.Collect, p.spec.collectMax())
	if opened != nil {
		for i := range p.files {
			if errors.Is(p.files[i].Err, ErrRefused) && strings.Contains(p.files[i].Err.Error(), "not under {out}") {
				p.files[i].Err = opened
			}
		}
	}
}

// Kill kills the process and everything it started. With the helper the program is killed
// first and what it left is still read back; the sandbox goes after.
func (p *Process) Kill() {
	if p.hold == nil {
		p.kill()
	}
	p.stopOnce.Do(func() { close(p.stopReq) })
}

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
	if p.status.err != "" {
		return fmt.Errorf("sandbox: start %s: %s", p.argv[0], p.status.err)
	}
	return p.waitErr
}

// ExitCode is the program's exit code once Wait returned: the helper's word when it had one.
func (p *Process) ExitCode() int {
	if p.status.ended {
		return p.status.code
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *Process) cleanup() {
	p.closeAfterStart()
	if p.hold != nil {
		p.hold.release()
	}
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
// Timeout, and reads back the files of Spec.Collect. The error is ErrTimeout, ErrOutputLimit,
// ErrDiskLimit or ErrMemoryLimit (several wrapped in one when several limits were reached,
// with the Result so far), the context's, or a failure to start; a program that ran and exited
// non-zero is no error: see ExitCode.
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
		return Result{ExitCode: -1, Stdout: stdout.buf.Bytes(), Stderr: stderr.buf.Bytes()}, err
	}
	werr := p.Wait()
	res := Result{ExitCode: p.ExitCode(), Stdout: stdout.buf.Bytes(), Stderr: stderr.buf.Bytes(),
		StdoutCut: stdout.cut, StderrCut: stderr.cut, Duration: time.Since(start),
		Files: p.files, DiskFull: p.diskFull, OutOfMemory: p.outOfMemory}
	var limits []error
	if res.StdoutCut || res.StderrCut {
		limits = append(limits, fmt.Errorf("%w (%d bytes; %s)", ErrOutputLimit, spec.maxOutput(), strings.Join(spec.Args, " ")))
	}
	if res.OutOfMemory {
		limits = append(limits, fmt.Errorf("%w (%s)", ErrMemoryLimit, Size(p.spec.MaxMemory)))
	}
	if res.DiskFull {
		limits = append(limits, fmt.Errorf("%w (%s)", ErrDiskLimit, Size(p.spec.MaxDisk)))
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && spec.Timeout > 0 {
		res.TimedOut = true
		limits = append(limits, fmt.Errorf("%w (%s)", ErrTimeout, spec.Timeout))
	}
	var ee *exec.ExitError
	switch {
	case len(limits) > 0:
		return res, joinLimits(limits)
	case ctx.Err() != nil:
		return res, ctx.Err()
	case werr != nil && !errors.As(werr, &ee):
		return res, fmt.Errorf("sandbox: run %s: %w", spec.Args[0], werr)
	}
	return res, nil
}

// joinLimits is one error saying every limit reached, matching each.
func joinLimits(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return &limitsError{errs: errs}
}

type limitsError struct{ errs []error }

func (e *limitsError) Error() string {
	parts := make([]string, len(e.errs))
	for i, err := range e.errs {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

func (e *limitsError) Unwrap() []error { return e.errs }

// Size writes a byte count for people: 1 GiB, 512 MiB, 1536 B.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
