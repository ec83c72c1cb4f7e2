package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// host is the provider of ModeNone: the program runs on the host, as the caller's user, with
// the whole host in view. Its home, tmp, out and advisory files are in a folder of its own
// (removed after it, or by the next start when this process died); the gateway is served from a
// host loopback port; the files of Collect are read back from that folder through the same
// reader.
type host struct {
	s *Sandbox
}

func (h host) command(ctx context.Context, p *Process, spec Spec, project string) error {
	base, err := h.s.unitDir(p)
	if err != nil {
		return err
	}
	l := layout{project: project, advisories: spec.Advisories, home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"),
		binds: map[string]string{}}
	if spec.Out {
		l.out = filepath.Join(base, "out")
	}
	if spec.Advisories == "" && hasAdvisoryFiles(spec) {
		l.advisories = filepath.Join(base, "advisories")
	}
	for _, d := range []string{l.home, l.tmp, l.out, l.advisories} {
		if d != "" && strings.HasPrefix(d, base) {
			if err := os.Mkdir(d, 0o700); err != nil {
				return fmt.Errorf("sandbox: %w", err)
			}
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
	if err := writeFiles(l, spec.Files); err != nil {
		return err
	}
	if l.advisories != "" && strings.HasPrefix(l.advisories, base) {
		_ = os.Chmod(l.advisories, 0o500)
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
	p.layout = &l
	p.argv = argv
	p.places = func() map[string]place {
		m := map[string]place{"{tmp}": {l.tmp, ""}, "{home}": {l.home, ""}}
		if l.out != "" {
			m["{out}"] = place{l.out, ""}
		}
		return m
	}
	if needsHelper(spec) {
		// No helper on the host: the folder outlives the program until read back.
		p.readAfterExit = true
	}
	return nil
}

// writeFiles writes spec's files under the host layout's home, tmp, out or advisories.
func writeFiles(l layout, files []File) error {
	for _, f := range files {
		dst := ""
		for _, pl := range []struct{ ph, dir string }{{"{home}", l.home}, {"{tmp}", l.tmp}, {"{out}", l.out}, {"{advisories}", l.advisories}} {
			if rest, ok := strings.CutPrefix(f.Dst, pl.ph+"/"); ok && rest != "" && pl.dir != "" {
				dst = filepath.Join(pl.dir, filepath.Clean("/"+rest))
			}
		}
		if dst == "" {
			return fmt.Errorf("sandbox: file %s: want a path under {home}, {tmp}, {out} (with Out) or {advisories}", f.Dst)
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		data := f.Data
		if f.Expand {
			data = []byte(l.expand(string(data)))
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if err := os.WriteFile(dst, data, os.FileMode(mode)); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
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
