package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
)

// git runs the git command for Repos. The user's git configuration is honoured (url.<base>.
// insteadOf mirrors, credential helpers, proxies): nothing here overrides it but what the
// safety of cloning untrusted repositories needs: no hooks (core.hooksPath is an empty
// directory's stand-in, /dev/null), no submodules, no checkout (clones are bare), and no
// prompt on a terminal (GIT_TERMINAL_PROMPT=0: a remote that wants a password a helper does
// not have fails instead of waiting).
type git struct {
	bin string
	env []string
}

func newGit(bin string, extra []string) git {
	if bin == "" {
		bin = "git"
	}
	env := append(os.Environ(), extra...)
	env = append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	return git{bin: bin, env: env}
}

// gitError is a failed git command: its arguments and the end of its standard error.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := e.stderr
	if msg == "" {
		msg = e.err.Error()
	}
	return "git " + strings.Join(e.args, " ") + ": " + msg
}

func (e *gitError) Unwrap() error { return e.err }

// message is what git said went wrong, in one line: its fatal and error lines (hints and
// progress left out), else its last line.
func (e *gitError) message() string {
	if e.stderr == "" {
		return e.err.Error()
	}
	lines := strings.Split(e.stderr, "\n")
	var said []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fatal:") || strings.HasPrefix(l, "error:") {
			said = append(said, l)
		}
	}
	if len(said) == 0 {
		return strings.TrimSpace(lines[len(lines)-1])
	}
	return strings.Join(said, "; ")
}

// reason is err's one-line reason: git's own message when git failed.
func reason(err error) string {
	var ge *gitError
	if errors.As(err, &ge) {
		return ge.message()
	}
	return err.Error()
}

// exitCode is a failed command's exit status, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// run runs git in dir ("" for the current directory) with stdin, and returns its standard
// output. local commands get GIT_NO_LAZY_FETCH=1: checking a partial clone must not fetch.
func (g git) run(ctx context.Context, dir string, local bool, stdin io.Reader, args ...string) (string, error) {
	full := []string{"-c", "core.hooksPath=" + os.DevNull}
	if dir != "" {
		full = append(full, "-C", dir)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Env = g.env
	if local {
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], "GIT_NO_LAZY_FETCH=1")
	}
	cmd.Stdin = stdin
	var stdout bytes.Buffer
	stderr := &tail{max: 8 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &gitError{args: args, stderr: strings.TrimSpace(stderr.String()), err: err}
	}
	return strings.TrimSpace(stdout.String()), nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.buf) }
