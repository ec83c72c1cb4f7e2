package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// forwardCommand is the first argument that makes a program the sandbox's helper.
const forwardCommand = "sandbox-forward"

// ForwardMain is the helper a sandbox starts first (the process of PID 2, under bubblewrap's
// init), when args (a program's os.Args) are `PROGRAM sandbox-forward -ctl FD [-gateway FD
// -listen ADDR] [-exe FD]`. It reads the program's command line from the control socket FD (so
// that it shows in no command line but the program's own), runs it with its own environment,
// directory and streams, serves the model gateway on ADDR (the sandbox's own loopback) by
// handing each connection to the host over the socket -gateway FD, and once the program ended
// (or the host said "stop") kills every other process of the sandbox, tells the host the exit
// status and waits, the sandbox held open, until the host has read back what the program left
// and closes the control socket. It returns the program's exit code. ok is false, and nothing
// is done, for any other args: a main (vulnbench's, cmd/vulnbench-forward's, or a TestMain)
// calls it first and goes on when !ok.
func ForwardMain(args []string) (code int, ok bool) {
	if len(args) < 2 || args[1] != forwardCommand {
		return 0, false
	}
	return hold(args[2:], os.Stderr), true
}

// holdRequest is what the host sends first on the control socket.
type holdRequest struct {
	Argv []string `json:"argv"`
}

// The control socket's lines from the helper.
const (
	statusExit  = "exit"  // exit CODE: the program exited
	statusStart = "start" // start ERROR: the program could not be started
)

func hold(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet(forwardCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	ctlFD := fs.Int("ctl", -1, "the control socket")
	gwFD := fs.Int("gateway", -1, "the socket to hand gateway connections to the host on")
	listen := fs.String("listen", "", "loopback address to serve the gateway on")
	exeFD := fs.Int("exe", -1, "the descriptor this program was started from")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *ctlFD < 3 || (*gwFD >= 0) != (*listen != "") {
		fmt.Fprintln(stderr, "sandbox-forward: want -ctl FD [-gateway FD -listen ADDR] [-exe FD]")
		return 2
	}
	// Nothing in the sandbox may read this process's memory or descriptors.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if *exeFD >= 3 {
		unix.Close(*exeFD)
	}
	unix.CloseOnExec(*ctlFD)
	ctl := os.NewFile(uintptr(*ctlFD), "ctl")
	lines := bufio.NewReader(ctl)
	var req holdRequest
	line, err := lines.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	if err != nil || len(req.Argv) == 0 {
		fmt.Fprintf(stderr, "sandbox-forward: no command from the host: %v\n", err)
		return 2
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	if *gwFD >= 0 {
		unix.CloseOnExec(*gwFD)
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			fmt.Fprintf(ctl, "%s %s\n", statusStart, oneLine(err.Error()))
			return 125
		}
		go relayToHost(ctx, ln, os.NewFile(uintptr(*gwFD), "gateway"))
	}
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(ctl, "%s %s\n", statusStart, oneLine(err.Error()))
		_, _ = io.Copy(io.Discard, lines)
		return 127
	}
	// The host's "stop", or the control socket closed: the program goes, and so does the rest.
	hostGone := make(chan struct{})
	go func() {
		for {
			l, err := lines.ReadString('\n')
			if strings.TrimSpace(l) == "stop" || err != nil {
				killSandbox()
				if err != nil {
					close(hostGone)
					return
				}
			}
		}
	}()
	werr := cmd.Wait()
	stop()
	killSandbox()
	code := exitCode(werr)
	fmt.Fprintf(ctl, "%s %d\n", statusExit, code)
	<-hostGone // the host read back what it wanted
	return code
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// exitCode is a finished command's exit code: 128+N for a signal N.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 125
}

// killSandbox kills every process of the sandbox's PID namespace but its init and this one
// (kill(-1) reaches exactly those), again while any is left: what the program left running, a
// fork bomb's children.
func killSandbox() {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if err := unix.Kill(-1, unix.SIGKILL); errors.Is(err, unix.ESRCH) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// relayToHost hands each connection accepted on ln to the host: its socket sent over gw
// (SCM_RIGHTS), this process's descriptors of it closed, so that the host alone copies it to
// and from the gateway (no copy here, no process between the agent and the gateway).
func relayToHost(ctx context.Context, ln net.Listener, gw *os.File) {
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		f, err := c.(*net.TCPConn).File() // a duplicate, blocking: the conn's own is closed next
		c.Close()
		if err != nil {
			continue
		}
		_ = unix.Sendmsg(int(gw.Fd()), []byte{1}, unix.UnixRights(int(f.Fd())), nil, 0)
		f.Close()
	}
}

// splice copies a and b to each other until both directions end.
func splice(a, b net.Conn) {
	defer a.Close()
	defer b.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(b, a)
		closeWrite(b)
		close(done)
	}()
	_, _ = io.Copy(a, b)
	closeWrite(a)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// serveForward copies each connection accepted on ln (a host loopback port, under ModeNone) to
// and from a new connection to the Unix socket at socket, until ctx ends.
func serveForward(ctx context.Context, ln net.Listener, socket string) {
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var d net.Dialer
			up, err := d.DialContext(ctx, "unix", socket)
			if err != nil {
				c.Close()
				return
			}
			stop := context.AfterFunc(ctx, func() { c.Close(); up.Close() })
			defer stop()
			splice(c, up)
		}()
	}
}

// maxRelays bounds the gateway connections one sandbox holds open at once.
const maxRelays = 64

// relayFromHost takes the connections the helper hands over gw and copies each to and from a
// new connection to the gateway's Unix socket, until ctx ends or gw closes. Whatever arrives
// there came from inside the sandbox: anything but a socket is closed unused.
func relayFromHost(ctx context.Context, gw *os.File, socket string) {
	defer gw.Close()
	stop := context.AfterFunc(ctx, func() { _ = unix.Shutdown(int(gw.Fd()), unix.SHUT_RDWR) })
	defer stop()
	sem := make(chan struct{}, maxRelays)
	var wg sync.WaitGroup
	defer wg.Wait()
	buf := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(int(gw.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != nil && errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || (n == 0 && oobn == 0) {
			return
		}
		for _, fd := range receivedFDs(oob[:oobn]) {
			select {
			case sem <- struct{}{}:
			default:
				unix.Close(fd) // too many at once
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				relayOne(ctx, fd, socket)
			}()
		}
	}
}

// receivedFDs are the descriptors of SCM_RIGHTS messages.
func receivedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func relayOne(ctx context.Context, fd int, socket string) {
	f := os.NewFile(uintptr(fd), "relay")
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		f.Close()
		return
	}
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return
	}
	var d net.Dialer
	up, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		c.Close()
		return
	}
	stop := context.AfterFunc(ctx, func() { c.Close(); up.Close() })
	defer stop()
	splice(c, up)
}

// holder is the host's end of the helper's control socket.
type holder struct {
	ctl    *os.File
	status chan holderStatus // one value: the program's end, or the helper's
	once   sync.Once
}

// holderStatus is how the program ended, as the helper said.
type holderStatus struct {
	ended bool // the helper said so; false: the control socket closed first (the helper died)
	code  int
	err   string // the program could not start
}

func newHolder(ctl *os.File) *holder {
	h := &holder{ctl: ctl, status: make(chan holderStatus, 1)}
	go func() {
		r := bufio.NewReader(io.LimitReader(ctl, 64<<10))
		line, err := r.ReadString('\n')
		if err != nil {
			h.status <- holderStatus{}
			return
		}
		word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch word {
		case statusExit:
			code, err := strconv.Atoi(rest)
			if err != nil {
				code = -1
			}
			h.status <- holderStatus{ended: true, code: code}
		case statusStart:
			h.status <- holderStatus{ended: true, code: 127, err: rest}
		default:
			h.status <- holderStatus{}
		}
	}()
	return h
}

// send sends the program's command line.
func (h *holder) send(argv []string) error {
	b, err := json.Marshal(holdRequest{Argv: argv})
	if err != nil {
		return err
	}
	_, err = h.ctl.Write(append(b, '\n'))
	return err
}

// stop asks the helper to kill the program now (it then says how it ended).
func (h *holder) stop() { _, _ = h.ctl.Write([]byte("stop\n")) }

// release lets the helper, and with it the sandbox, end.
func (h *holder) release() { h.once.Do(func() { h.ctl.Close() }) }

func unixSocketpair() ([2]int, error) {
	return unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
}
