package snapshot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// View is a repository as git is shown it when vulnbench itself reads history on the host (a
// builder's log and cat-file, never a checkout): a git directory of vulnbench's making over the
// repository's objects and refs, with a configuration naming only the object format, in an
// environment without system or user configuration. None of the repository's own configuration
// (a gpg.program that log.showSignature would run, textconv drivers, fsmonitor, includes), hooks
// or attributes is read, as for the snapshots written from it. Unlike the snapshots' views (the
// sandbox's binds), it is a folder on the host of links to the repository's parts: git runs
// there as the caller starts it.
type View struct {
	repo string
	dir  string
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
	tmp, err := os.MkdirTemp("", "vulnbench-git-")
	if err != nil {
		return nil, fmt.Errorf("git view of %s: %w", gitDir, err)
	}
	v := &View{repo: dir, dir: tmp}
	if err := writeViewHead(tmp, gitDir, head); err != nil {
		v.Close()
		return nil, err
	}
	for _, part := range viewParts {
		src := filepath.Join(gitDir, part.name)
		if _, err := os.Stat(src); err != nil {
			if part.dir {
				v.Close()
				return nil, fmt.Errorf("git view of %s: %w", gitDir, err)
			}
			continue
		}
		if err := os.Symlink(src, filepath.Join(tmp, part.name)); err != nil {
			v.Close()
			return nil, fmt.Errorf("git view of %s: %w", gitDir, err)
		}
	}
	return v, nil
}

// Repo is the directory OpenView was given.
func (v *View) Repo() string { return v.repo }

// Command is git (a program name or path) with args on the view, in git's clean environment:
// the caller sets its standard streams and runs it.
func (v *View) Command(ctx context.Context, git string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, git, append([]string{"--git-dir=" + v.dir}, args...)...)
	cmd.Env = gitEnv()
	return cmd
}

// Close removes the view (never the repository).
func (v *View) Close() { _ = RemoveAll(v.dir) }
