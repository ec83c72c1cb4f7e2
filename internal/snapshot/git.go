package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitEnv is the environment of every git command: no prompts, no system or user attributes
// (git archive applies export-ignore and export-subst attributes; only the repository's own
// may change a snapshot), messages in English for the error classification below.
func gitEnv() []string {
	return append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ATTR_NOSYSTEM=1", "LC_ALL=C", "GIT_NO_LAZY_FETCH=1")
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

// command is git with args, as the package runs every git command: without the user's
// attributes file, in env, the first 4 KiB of its standard error kept in stderr.
func (c *Cache) command(ctx context.Context, env []string, args ...string) (cmd *exec.Cmd, stderr *boundedBuffer) {
	cmd = exec.CommandContext(ctx, c.opts.Git, append([]string{"-c", "core.attributesFile=" + os.DevNull}, args...)...)
	cmd.Env = env
	stderr = &boundedBuffer{max: 4096}
	cmd.Stderr = stderr
	return cmd, stderr
}

// git runs git with args and returns its trimmed standard output; the error holds its
// standard error.
func (c *Cache) git(ctx context.Context, env []string, args ...string) (string, error) {
	cmd, stderr := c.command(ctx, env, args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &gitError{err: err, stderr: strings.TrimSpace(stderr.String())}
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

// resolve checks that dir is a git repository holding rev, and returns their identities.
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
	// The ceiling keeps git from taking a directory inside some other repository for that one.
	env := append(gitEnv(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(abs))
	if r.gitDir, err = c.git(ctx, env, "-C", abs, "rev-parse", "--path-format=absolute", "--git-common-dir"); err != nil {
		if ctx.Err() != nil {
			return r, err
		}
		return r, &kindError{kind: ErrNotRepository, msg: fmt.Sprintf("%s is not a git repository (git: %v)", abs, err), cause: err}
	}
	out, err := c.git(ctx, gitEnv(), "--git-dir="+r.gitDir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return r, err
		}
		if exitCode(err) == 1 {
			shallow := "a shallow clone?"
			if s, _ := c.git(ctx, gitEnv(), "--git-dir="+r.gitDir, "rev-parse", "--is-shallow-repository"); s == "true" {
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
