package snapshot

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// View is a repository as git is shown it when vulnbench itself reads history on the host (a
// builder's log and cat-file, never a checkout): a git directory of vulnbench's making over the
// repository's objects and refs, with a configuration naming only the object format, in an
// environment without system or user configuration. None of the repository's own configuration
// (a gpg.program that log.showSignature would run, textconv drivers, fsmonitor, includes), hooks
// or attributes is read, as for the snapshots written from it.
type View struct {
	repo string
	v    *gitView
}

// OpenView makes the view of the repository at dir (a clone or a bare repository; see Locate).
// Close removes it.
func OpenView(dir string) (*View, error) {
	abs, err := filepath.Abs(dir) // the view links to the repository's parts by absolute path
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", dir, err)
	}
	gitDir, head, err := findGitDir(abs)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", dir, err)
	}
	v, err := newGitView(gitDir, head, false)
	if err != nil {
		return nil, err
	}
	return &View{repo: dir, v: v}, nil
}

// Repo is the directory OpenView was given.
func (v *View) Repo() string { return v.repo }

// Command is git (a program name or path) with args on the view, in git's clean environment:
// the caller sets its standard streams and runs it.
func (v *View) Command(ctx context.Context, git string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, git, append([]string{"--git-dir=" + v.v.dir}, args...)...)
	cmd.Env = gitEnv()
	return cmd
}

// Close removes the view (never the repository).
func (v *View) Close() { v.v.close() }
