package vexmine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// commit is one first-parent commit that changed a manifest, with the manifests it changed.
type commit struct {
	id      string
	parents []string
	time    time.Time
	files   []fileChange
	source  string // the pull request ref it was reached from (walkPulls), else ""
}

// fileChange is one file a commit changed against its first parent; an object id is "" on the
// side where the file does not exist.
type fileChange struct {
	path, old, new string
}

// repoGit reads one repository through its view: a `git log` of the first-parent history and a
// long-lived `git cat-file --batch` for the objects.
type repoGit struct {
	view *snapshot.View
	git  string

	cmd *exec.Cmd
	in  *bufio.Writer
	inc io.Closer
	out *bufio.Reader
}

func openGit(ctx context.Context, git, dir string) (*repoGit, error) {
	v, err := snapshot.OpenView(dir)
	if err != nil {
		return nil, err
	}
	g := &repoGit{view: v, git: git}
	cmd := v.Command(ctx, git, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		v.Close()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		v.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		v.Close()
		return nil, fmt.Errorf("start git cat-file in %s (is git on PATH?): %w", dir, err)
	}
	g.cmd, g.in, g.inc, g.out = cmd, bufio.NewWriter(in), in, bufio.NewReaderSize(out, 64<<10)
	return g, nil
}

func (g *repoGit) close() {
	if g.cmd != nil {
		g.inc.Close()
		_ = g.cmd.Wait()
	}
	g.view.Close()
}

// errMissing is an object the repository does not have.
var errMissing = errors.New("not in the repository")

// object reads an object (an id or rev:path); content over limit bytes is skipped (data nil,
// size set).
func (g *repoGit) object(name string, limit int64) (typ string, size int64, data []byte, err error) {
	if strings.ContainsAny(name, "\n\x00") {
		return "", 0, nil, fmt.Errorf("object name %q has a newline or NUL", name)
	}
	if _, err := g.in.WriteString(name + "\n"); err != nil {
		return "", 0, nil, err
	}
	if err := g.in.Flush(); err != nil {
		return "", 0, nil, err
	}
	hdr, err := g.out.ReadString('\n')
	if err != nil {
		return "", 0, nil, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(hdr)
	if len(f) == 2 && (f[1] == "missing" || f[1] == "ambiguous") {
		return "", 0, nil, errMissing
	}
	if len(f) != 3 {
		return "", 0, nil, fmt.Errorf("git cat-file: unexpected header %q", hdr)
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return "", 0, nil, fmt.Errorf("git cat-file: unexpected header %q", hdr)
	}
	if size <= limit {
		data = make([]byte, size)
		if _, err := io.ReadFull(g.out, data); err != nil {
			return "", 0, nil, fmt.Errorf("git cat-file: %w", err)
		}
	} else if _, err := io.CopyN(io.Discard, g.out, size); err != nil {
		return "", 0, nil, fmt.Errorf("git cat-file: %w", err)
	}
	if b, err := g.out.ReadByte(); err != nil || b != '\n' {
		return "", 0, nil, errors.New("git cat-file: object not followed by a newline")
	}
	return f[1], size, data, nil
}

// message is a commit's message (what follows its header).
func (g *repoGit) message(id string) (string, error) {
	msg, _, err := g.commitInfo(id)
	return msg, err
}

// commitInfo is a commit's message and committer date.
func (g *repoGit) commitInfo(id string) (string, time.Time, error) {
	typ, _, data, err := g.object(id, 1<<20)
	if err != nil {
		return "", time.Time{}, err
	}
	if typ != "commit" || data == nil {
		return "", time.Time{}, fmt.Errorf("%s is not a commit of under 1 MiB", id)
	}
	hdr, msg, _ := bytes.Cut(data, []byte("\n\n"))
	var when time.Time
	for _, line := range strings.Split(string(hdr), "\n") {
		if rest, ok := strings.CutPrefix(line, "committer "); ok {
			f := strings.Fields(rest)
			if len(f) >= 2 {
				if sec, err := strconv.ParseInt(f[len(f)-2], 10, 64); err == nil {
					when = time.Unix(sec, 0).UTC()
				}
			}
		}
	}
	return string(msg), when, nil
}

// resolve is the full id of the commit rev names.
func (g *repoGit) resolve(ctx context.Context, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\n\x00 ") {
		return "", fmt.Errorf("revision %q is not a commit name", rev)
	}
	out, err := g.run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("revision %q is not a commit of the repository", rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// run runs a git command on the view and returns its output.
func (g *repoGit) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.view.Command(ctx, g.git, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// walk lists the first-parent history of tip (a full commit id), newest first, from a commit
// of since or later when since is set, calling fn with each commit that changed a file keep
// accepts (merges against their first parent), and counting every commit walked.
func (g *repoGit) walk(ctx context.Context, tip string, since time.Time, keep func(string) bool, fn func(*commit) error) (walked int, err error) {
	return g.log(ctx, []string{tip}, since, keep, fn)
}

// PullRefs are the refs a forge keeps for its pull requests' heads: GitHub's and GitLab's.
var PullRefs = []string{"refs/pull/*/head", "refs/merge-requests/*/head"}

// walkPulls is walk over the first-parent commits of every pull request ref that tip does not
// reach: the changes proposed and never merged as they are (a squash or a rebase left the
// originals out; a closed pull request never landed). Each commit's source is its ref.
func (g *repoGit) walkPulls(ctx context.Context, tip string, since time.Time, keep func(string) bool, fn func(*commit) error) (int, error) {
	revs := []string{"--source"}
	for _, r := range PullRefs {
		revs = append(revs, "--glob="+r)
	}
	return g.log(ctx, append(revs, "--not", tip), since, keep, fn)
}

// log runs git log over revs (first parents) and hands each commit that changed a kept file
// to fn.
func (g *repoGit) log(ctx context.Context, revs []string, since time.Time, keep func(string) bool, fn func(*commit) error) (walked int, err error) {
	args := []string{"log", "--first-parent", "--diff-merges=first-parent", "--no-renames", "--raw", "--no-abbrev", "-z",
		"--no-ext-diff", "--no-textconv", "--no-show-signature", "--format=%x01%H %P%x02%ct%x02%S"}
	if !since.IsZero() {
		args = append(args, "--since="+strconv.FormatInt(since.Unix(), 10))
	}
	args = append(append(args, revs...), "--")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := g.view.Command(ctx, g.git, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("git log: %w", err)
	}
	r := bufio.NewReaderSize(out, 256<<10)
	var cur *commit
	flush := func() error {
		if cur != nil && len(cur.files) > 0 && (since.IsZero() || !cur.time.Before(since)) {
			if err := fn(cur); err != nil {
				return err
			}
		}
		cur = nil
		return nil
	}
	var ferr error
	for ferr == nil {
		tok, err := r.ReadString(0)
		if err == io.EOF && tok == "" {
			break
		}
		if err != nil && err != io.EOF {
			ferr = fmt.Errorf("git log: %w", err)
			break
		}
		tok = strings.TrimSuffix(tok, "\x00")
		tok = strings.TrimLeft(tok, "\n")
		switch {
		case strings.HasPrefix(tok, "\x01"):
			if ferr = flush(); ferr != nil {
				break
			}
			c, perr := parseHeader(tok[1:])
			if perr != nil {
				ferr = perr
				break
			}
			walked++
			cur = c
		case strings.HasPrefix(tok, ":"):
			p, perr := r.ReadString(0)
			if perr != nil {
				ferr = fmt.Errorf("git log: a raw entry without its path: %w", perr)
				break
			}
			p = strings.TrimSuffix(p, "\x00")
			if cur == nil || !keep(p) {
				continue
			}
			f := strings.Fields(tok)
			if len(f) != 5 {
				ferr = fmt.Errorf("git log: unexpected raw entry %q", tok)
				break
			}
			cur.files = append(cur.files, fileChange{path: p, old: nonZero(f[2]), new: nonZero(f[3])})
		case tok == "":
		default:
			ferr = fmt.Errorf("git log: unexpected output %q", clip(tok))
		}
	}
	if ferr == nil {
		ferr = flush()
	}
	if ferr != nil {
		cancel()
		_ = cmd.Wait()
		return walked, ferr
	}
	if err := cmd.Wait(); err != nil {
		return walked, fmt.Errorf("git log: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return walked, nil
}

func parseHeader(h string) (*commit, error) {
	ids, rest, ok := strings.Cut(h, "\x02")
	ts, source, _ := strings.Cut(rest, "\x02")
	f := strings.Fields(ids)
	sec, err := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
	if !ok || len(f) == 0 || err != nil {
		return nil, fmt.Errorf("git log: unexpected commit line %q", clip(h))
	}
	return &commit{id: f[0], parents: f[1:], time: time.Unix(sec, 0).UTC(), source: strings.TrimSpace(source)}, nil
}

func nonZero(oid string) string {
	if strings.Trim(oid, "0") == "" {
		return ""
	}
	return oid
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// merged lists the commits a merge brought in (second parent back to the first), newest first,
// at most max.
func (g *repoGit) merged(ctx context.Context, c *commit, max int) ([]string, error) {
	if len(c.parents) < 2 {
		return nil, nil
	}
	out, err := g.run(ctx, "rev-list", "--max-count="+strconv.Itoa(max), c.parents[1], "^"+c.parents[0], "--")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// prRef finds the pull request a commit message names: GitHub's "Merge pull request #N", a
// squash merge's "(#N)" on the subject line, GitLab's "See merge request G/P!N".
var prRefs = []*regexp.Regexp{
	regexp.MustCompile(`^Merge pull request #(\d+)`),
	regexp.MustCompile(`^[^\n]*\(#(\d+)\)\s*(?:\n|$)`),
	regexp.MustCompile(`See merge request [^\s!]+!(\d+)`),
}

// refPR is the pull request a ref is the head of (refs/pull/N/head, refs/merge-requests/N/head).
var refPR = regexp.MustCompile(`^refs/(?:pull|merge-requests)/(\d+)/head$`)

func prNumber(msg string) int {
	for _, re := range prRefs {
		if m := re.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	return 0
}
