package jitvul

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// Git reads one repository for builders that look at fixes themselves (suite/osv): the
// session's cat-file process and git commands; nothing is checked out.
type Git struct {
	s *Session
	r *repo
}

// Git returns the reader of the repository at dir (a clone or a bare repository).
func (s *Session) Git(dir string) (*Git, error) {
	r, err := s.repo(dir)
	if err != nil {
		return nil, err
	}
	return &Git{s: s, r: r}, nil
}

// Dir is the repository's directory.
func (g *Git) Dir() string { return g.r.dir }

// Commit is a commit's id, parents and committer date.
type Commit struct {
	OID     string
	Parents []string
	Date    time.Time
}

// Commit resolves rev (a commit id, abbreviated or not) to its commit; ErrMissing when the
// repository does not have it. rev is checked as a record's commit is (no option, no newline).
func (g *Git) Commit(rev string) (Commit, error) {
	if err := checkRef("commit", rev); err != nil {
		return Commit{}, err
	}
	ci, err := g.r.commit(rev)
	if err != nil {
		return Commit{}, err
	}
	return Commit{OID: ci.oid, Parents: ci.parents, Date: ci.date}, nil
}

// FileChange is one file a commit changed against its parent, renames detected. OldPath is
// NewPath unless the file was renamed (Status R) or copied (C); an object id is all zeros on
// the side where the file does not exist.
type FileChange struct {
	Status           byte // A, C, D, M, R, T
	OldPath, NewPath string
	OldOID, NewOID   string
	OldMode, NewMode string
}

// Diff lists the files commit changed against parent (any two commits: their trees' difference).
func (g *Git) Diff(ctx context.Context, parent, commit string) ([]FileChange, error) {
	d, err := g.r.diff(ctx, parent, commit)
	if err != nil {
		return nil, err
	}
	out := make([]FileChange, len(d))
	for i, e := range d {
		out[i] = FileChange{Status: e.status, OldPath: e.oldPath, NewPath: e.newPath, OldOID: e.oldOID, NewOID: e.newOID,
			OldMode: e.oldMode, NewMode: e.newMode}
	}
	return out, nil
}

// Blob reads a blob as text: skip says why it is not text ("binary", or over the session's
// file size limit) and data is then nil. A zero id (no file on that side) reads as empty.
func (g *Git) Blob(oid string) (data []byte, skip string, err error) {
	if zeroOID(oid) {
		return nil, "", nil
	}
	o, err := g.r.read(oid, g.s.opts.MaxFileSize)
	if err != nil {
		return nil, "", err
	}
	switch {
	case o.data == nil:
		return nil, fmt.Sprintf("%d bytes, over the %d-byte limit", o.size, g.s.opts.MaxFileSize), nil
	case snapshot.IsBinary(o.data):
		return nil, "binary file", nil
	}
	return o.data, "", nil
}

// IsAncestor reports whether commit a is an ancestor of b (or b itself).
func (g *Git) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	cmd := exec.CommandContext(ctx, g.r.gitBin, "-C", g.r.dir, "merge-base", "--is-ancestor", a, b)
	cmd.Env = gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return false, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	}
	return false, fmt.Errorf("git merge-base --is-ancestor %s %s in %s: %v: %s", short(a), short(b), g.r.dir, err, strings.TrimSpace(stderr.String()))
}

// FirstParents lists the commits of to's first-parent chain that from does not reach, newest
// first, at most max (more is an error naming the limit): the commits of the range from..to.
func (g *Git) FirstParents(ctx context.Context, from, to string, max int) ([]string, error) {
	out, err := g.r.run(ctx, "rev-list", "--first-parent", "--max-count="+strconv.Itoa(max+1), from+".."+to, "--")
	if err != nil {
		return nil, err
	}
	list := strings.Fields(string(out))
	if len(list) > max {
		return nil, &RangeError{From: from, To: to, Max: max}
	}
	return list, nil
}

// RangeError is a range of commits longer than a limit.
type RangeError struct {
	From, To string
	Max      int
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("%s..%s has over %d first-parent commits", short(e.From), short(e.To), e.Max)
}

// Count is the number of commits of to's first-parent chain that from does not reach: the
// first-parent distance from from to to when from is an ancestor of to.
func (g *Git) Count(ctx context.Context, from, to string) (int, error) {
	out, err := g.r.run(ctx, "rev-list", "--first-parent", "--count", from+".."+to, "--")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// TagsContaining lists the tags whose commit has commit as an ancestor (or is it): the releases
// that hold it.
func (g *Git) TagsContaining(ctx context.Context, commit string) ([]string, error) {
	if err := checkRef("commit", commit); err != nil {
		return nil, err
	}
	out, err := g.r.run(ctx, "tag", "--contains", commit)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// File reads file (slash-separated) at commit as text; found is false when the commit has no
// such path, skip says why it is not text (a link, binary, over the size limit).
func (g *Git) File(commit, file string) (data []byte, found bool, skip string, err error) {
	if err := checkRef("commit", commit); err != nil {
		return nil, false, "", err
	}
	if err := checkPath(file); err != nil {
		return nil, false, "", err
	}
	data, found, err = g.s.fileAt(g.r, commit, file)
	var de *DropError
	if errors.As(err, &de) {
		return nil, found, de.Detail, nil
	}
	return data, found, "", err
}

// Grep lists the files of commit's tree in which one of words occurs as a whole word (git grep
// -l -w -F), at most max of them (more is cut, and said by cut).
func (g *Git) Grep(ctx context.Context, commit string, words []string, max int) (files []string, cut bool, err error) {
	if err := checkRef("commit", commit); err != nil {
		return nil, false, err
	}
	args := []string{"grep", "-l", "-w", "-F", "-I", "--no-color"}
	for _, w := range words {
		if w == "" || strings.ContainsAny(w, "\n\x00") {
			continue
		}
		args = append(args, "-e", w)
	}
	if len(args) == 6 {
		return nil, false, nil
	}
	args = append(args, commit, "--")
	cmd := exec.CommandContext(ctx, g.r.gitBin, append([]string{"-C", g.r.dir}, args...)...)
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == 1 && stderr.Len() == 0:
		return nil, false, nil // no match
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	default:
		return nil, false, fmt.Errorf("git grep in %s: %v: %s", g.r.dir, err, strings.TrimSpace(stderr.String()))
	}
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		_, p, ok := strings.Cut(l, ":") // COMMIT:PATH
		if !ok || p == "" {
			continue
		}
		if len(files) == max {
			return files, true, nil
		}
		files = append(files, p)
	}
	return files, false, nil
}
