package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// gitEnv is the whole environment of every git command: nothing inherited, no system or user
// configuration or attributes, no prompts, no lazy fetches of a partial clone's objects, no
// replace refs (which would show other objects than the commit's), messages in English for the
// error classification below.
func gitEnv() []string {
	return []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_ATTR_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_NO_LAZY_FETCH=1", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"}
}

// boundedBuffer keeps the first max bytes written to it (git's stderr).
type boundedBuffer struct {
	bytes.Buffer
	max int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// gitProc is a running git command.
type gitProc struct {
	p      *sandbox.Process
	stderr *boundedBuffer
}

// start starts git with args on the view v of a repository (args name its git directory
// {repo}), in the cache's sandbox, with stdin and stdout as given.
func (c *Cache) start(ctx context.Context, v *gitView, stdin io.Reader, stdout io.Writer, args ...string) (*gitProc, error) {
	spec := sandbox.Spec{
		Args:     append([]string{c.opts.Git, "--git-dir={repo}"}, args...),
		Env:      gitEnv(),
		Binds:    v.binds,
		MaxProcs: -1,
	}
	if g := c.opts.Git; filepath.IsAbs(g) && !strings.HasPrefix(g, "/usr/") && !strings.HasPrefix(g, "/bin/") {
		// A git outside the system directories, shown at its own path.
		spec.Binds = append(spec.Binds, sandbox.Bind{Src: g, Dst: g})
	}
	stderr := &boundedBuffer{max: 4096}
	p, err := c.sb.Start(ctx, spec, sandbox.Stdio{Stdin: stdin, Stdout: stdout, Stderr: stderr})
	if err != nil {
		return nil, fmt.Errorf("run git (is it installed?): %w", err)
	}
	return &gitProc{p: p, stderr: stderr}, nil
}

func (g *gitProc) wait(ctx context.Context) error {
	err := g.p.Wait()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return &gitError{err: err, stderr: strings.TrimSpace(g.stderr.String())}
	}
	return nil
}

// git runs git with args on v and returns its trimmed standard output; the error holds its
// standard error.
func (c *Cache) git(ctx context.Context, v *gitView, args ...string) (string, error) {
	var stdout bytes.Buffer
	g, err := c.start(ctx, v, nil, &stdout, args...)
	if err != nil {
		return "", err
	}
	if err := g.wait(ctx); err != nil {
		return "", err
	}
	return strings.TrimSpace(stdout.String()), nil
}

type gitError struct {
	err    error
	stderr string
}

func (e *gitError) Error() string {
	if e.stderr == "" {
		return e.err.Error()
	}
	return e.stderr
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode is a failed git command's exit status, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// resolved is a repository and commit that git has checked.
type resolved struct {
	dir    string // the repository directory, absolute, symlinks resolved
	gitDir string // its git (common) directory: the repository's identity
	commit string // full commit id
}

// resolve checks that dir is a git repository holding rev, and returns their identities. The
// git directory is found here, without git (which would read the repository's configuration):
// DIR/.git (a directory, or a file naming one, as linked worktrees have, whose commondir names
// the repository's), or DIR itself when it is a bare repository. Parents of DIR are never
// looked at.
func (c *Cache) resolve(ctx context.Context, dir, rev string) (resolved, error) {
	var r resolved
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return r, fmt.Errorf("commit %q is not a commit id", rev)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return r, fmt.Errorf("repository %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return r, &kindError{kind: ErrNoRepository, msg: fmt.Sprintf("repository %s does not exist (clone it there, or check --repos)", abs)}
	case err != nil:
		return r, &kindError{kind: ErrNoRepository, msg: fmt.Sprintf("repository %s: %v", abs, err), cause: err}
	case !st.IsDir():
		return r, &kindError{kind: ErrNotRepository, msg: fmt.Sprintf("repository %s is not a directory", abs)}
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return r, fmt.Errorf("repository %s: %w", dir, err)
	}
	r.dir = abs
	var head string
	if r.gitDir, head, err = findGitDir(abs); err != nil {
		return r, &kindError{kind: ErrNotRepository, msg: fmt.Sprintf("%s is not a git repository (%v)", abs, err), cause: err}
	}
	v, err := newGitView(c.sb, r.gitDir, head)
	if err != nil {
		return r, err
	}
	defer v.close()
	out, err := c.git(ctx, v, "rev-parse", "--verify", "--quiet", "--end-of-options", sandbox.Quote(rev)+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return r, err
		}
		if exitCode(err) == 1 {
			shallow := "a shallow clone?"
			if _, err := os.Stat(filepath.Join(r.gitDir, "shallow")); err == nil {
				shallow = "it is a shallow clone:"
			}
			return r, &kindError{kind: ErrNoCommit, msg: fmt.Sprintf("commit %s is not in %s (%s fetch it with: git -C %s fetch origin %s)", rev, abs, shallow, abs, rev)}
		}
		return r, fmt.Errorf("look up commit %s in %s: %w", rev, abs, err)
	}
	r.commit = out
	return r, nil
}

// missingObjects says whether git's message is about objects it could not read.
func missingObjects(stderr string) bool {
	for _, s := range []string{"invalid object", "cannot read", "unable to read", "bad object", "missing blob", "missing tree", "not a valid object", "did not receive expected object", "fatal: not a tree object"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}
