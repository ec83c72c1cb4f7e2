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
		cache: spec.Cache, binds: map[string]string{}}
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
	if err := composeBinds(&l, filepath.Join(base, "binds"), spec.Binds); err != nil {
		return err
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

// composeBinds names each named bind's place on the host: its source, or, when other binds go
// inside it (a git view's parts over its mount points), a folder under dir of links to the
// source's entries with those binds' sources in their places, as bubblewrap would show it.
// Binds inside no named bind are the host's own paths already.
func composeBinds(l *layout, dir string, binds []Bind) error {
	for _, n := range binds {
		if n.Name == "" {
			continue
		}
		l.binds[n.Name] = n.Src
		over := map[string]string{}
		for _, b := range binds {
			if rel, ok := strings.CutPrefix(filepath.Clean(b.Dst), filepath.Clean(n.Dst)+"/"); ok {
				over[rel] = b.Src
			}
		}
		if len(over) == 0 {
			continue
		}
		at := filepath.Join(dir, n.Name)
		if err := overlay(at, n.Src, "", over); err != nil {
			return fmt.Errorf("sandbox: bind %s: %w", n.Name, err)
		}
		l.binds[n.Name] = at
	}
	return nil
}

// overlay makes at a folder of src's entries (hard links of its regular files, copies where a
// link cannot be made, symbolic links to the rest: programs such as git refuse some files as
// links), the entries under rel that over names linked to their own sources instead (deeper
// ones in folders of their own).
func overlay(at, src, rel string, over map[string]string) error {
	if err := os.MkdirAll(at, 0o700); err != nil {
		return err
	}
	entries, _ := os.ReadDir(src)
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	for r := range over {
		if rest, ok := strings.CutPrefix(r, rel); ok {
			names[strings.SplitN(strings.TrimPrefix(rest, "/"), "/", 2)[0]] = true
		}
	}
	for name := range names {
		r := strings.TrimPrefix(rel+"/"+name, "/")
		target, deeper := over[r], false
		for o := range over {
			deeper = deeper || strings.HasPrefix(o, r+"/")
		}
		var err error
		switch {
		case deeper:
			err = overlay(filepath.Join(at, name), filepath.Join(src, name), r, over)
		case target != "":
			err = os.Symlink(target, filepath.Join(at, name))
		default:
			err = mirror(filepath.Join(src, name), filepath.Join(at, name))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mirror puts src at dst: a hard link of a regular file (a copy when none can be made), a
// symbolic link to anything else.
func mirror(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil || !fi.Mode().IsRegular() {
		return os.Symlink(src, dst)
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	return copyFile(src, dst)
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
