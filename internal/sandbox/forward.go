package sandbox

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
)

// forwardCommand is the first argument that makes a program the gateway's forwarder.
const forwardCommand = "sandbox-forward"

// ForwardMain is the gateway's forwarder inside a sandbox, when args (a program's os.Args) are
// `PROGRAM sandbox-forward -listen ADDR -socket PATH -- COMMAND ARGS...`: it listens on ADDR
// (the sandbox's own loopback), copies each connection to and from the Unix socket PATH (the
// gateway, bound in), runs COMMAND with its own environment and streams, passes it SIGINT and
// SIGTERM, and returns COMMAND's exit code. ok is false, and nothing is done, for any other
// args: a main (vulnbench's, or a TestMain) calls it first and goes on when !ok.
func ForwardMain(args []string) (code int, ok bool) {
	if len(args) < 2 || args[1] != forwardCommand {
		return 0, false
	}
	return forward(args[2:], os.Stderr), true
}

func forward(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet(forwardCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "loopback address to serve the gateway on")
	socket := fs.String("socket", "", "the gateway's Unix socket")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cmdArgs := fs.Args()
	if *listen == "" || *socket == "" || len(cmdArgs) == 0 {
		fmt.Fprintln(stderr, "sandbox-forward: want -listen ADDR -socket PATH -- COMMAND [ARGS...]")
		return 2
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "sandbox-forward: %v\n", err)
		return 125
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go serveForward(ctx, ln, *socket)

	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "sandbox-forward: %v\n", err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	signal.Stop(sigs)
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
	fmt.Fprintf(stderr, "sandbox-forward: %v\n", err)
	return 125
}

// serveForward copies each connection accepted on ln to and from a new connection to the Unix
// socket at socket, until ctx ends.
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
			pipe(ctx, c, socket)
		}()
	}
}

func pipe(ctx context.Context, c net.Conn, socket string) {
	defer c.Close()
	var d net.Dialer
	up, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return
	}
	defer up.Close()
	stop := context.AfterFunc(ctx, func() { c.Close(); up.Close() })
	defer stop()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		if uc, ok := up.(*net.UnixConn); ok {
			_ = uc.CloseWrite()
		}
		close(done)
	}()
	_, _ = io.Copy(c, up)
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	<-done
}
