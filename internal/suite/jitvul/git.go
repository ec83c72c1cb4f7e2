package jitvul

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// gitEnv is the environment of every git command: no prompts, no lazy fetches, literal
// pathspecs (a file name from a record is never a glob or a magic pathspec), English messages.
func gitEnv() []string {
	return append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_NO_LAZY_FETCH=1", "GIT_LITERAL_PATHSPECS=1",
		"GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
}

// repo is one local repository with its long-lived `git cat-file --batch`: every blob, tree and
// commit object the walk reads comes through it. Safe for concurrent use (requests are serialised).
type repo struct {
	dir    string
	gitBin string

	mu     sync.Mutex
	cmd    *exec.Cmd
	in     *bufio.Writer
	inPipe io.WriteCloser
	out    *bufio.Reader
	err    error // set when the process died: every later request fails with it

	chains chains // the first-parent chains listed so far
}

// chains remembers the parents of the commits walks listed: the chain from a commit follows
// first parents through them, so walks from the commits of one line of history share one
// listing, and each commit is kept once.
type chains struct {
	mu      sync.Mutex
	parents map[string][]string
}

func openRepo(ctx context.Context, gitBin, dir string) (*repo, error) {
	cmd := exec.CommandContext(ctx, gitBin, "-C", dir, "cat-file", "--batch")
	cmd.Env = gitEnv()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file in %s: %w", dir, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file in %s: %w", dir, err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file in %s (is git on PATH?): %w", dir, err)
	}
	return &repo{dir: dir, gitBin: gitBin, cmd: cmd, in: bufio.NewWriter(in), inPipe: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// close ends the cat-file process.
func (r *repo) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return nil
	}
	r.inPipe.Close()
	err := r.cmd.Wait()
	r.cmd = nil
	if err != nil && r.err == nil {
		return fmt.Errorf("git cat-file in %s: %w", r.dir, err)
	}
	return nil
}

// object is what cat-file returned for one name.
type object struct {
	oid, typ string
	size     int64
	data     []byte // nil when the object was larger than the limit it was read with
}

// ErrMissing is an object name the repository does not have.
var ErrMissing = errors.New("not in the repository")

// read asks cat-file for name (an object id or rev:path) and returns the object; content over
// limit bytes is skipped (data nil). A name git does not know gives ErrMissing.
func (r *repo) read(name string, limit int64) (object, error) {
	if strings.ContainsAny(name, "\n\x00") {
		return object{}, fmt.Errorf("object name %q has a newline or NUL", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return object{}, r.err
	}
	fail := func(err error) (object, error) {
		r.err = fmt.Errorf("git cat-file in %s stopped: %w", r.dir, err)
		return object{}, r.err
	}
	if _, err := r.in.WriteString(name + "\n"); err != nil {
		return fail(err)
	}
	if err := r.in.Flush(); err != nil {
		return fail(err)
	}
	hdr, err := r.out.ReadString('\n')
	if err != nil {
		return fail(err)
	}
	hdr = strings.TrimSuffix(hdr, "\n")
	f := strings.Fields(hdr)
	if len(f) == 2 && (f[1] == "missing" || f[1] == "ambiguous") || strings.HasSuffix(hdr, " missing") || strings.HasSuffix(hdr, " ambiguous") {
		return object{}, ErrMissing
	}
	if len(f) != 3 {
		return fail(fmt.Errorf("unexpected header %q", hdr))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return fail(fmt.Errorf("unexpected header %q", hdr))
	}
	o := object{oid: f[0], typ: f[1], size: size}
	if size <= limit {
		o.data = make([]byte, size)
		if _, err := io.ReadFull(r.out, o.data); err != nil {
			return fail(err)
		}
	} else if _, err := io.CopyN(io.Discard, r.out, size); err != nil {
		return fail(err)
	}
	if b, err := r.out.ReadByte(); err != nil || b != '\n' {
		return fail(fmt.Errorf("object %s not followed by a newline", o.oid))
	}
	return o, nil
}

// commitInfo is a commit object's parents and committer date.
type commitInfo struct {
	oid     string
	parents []string
	date    time.Time
}

// commit resolves rev (a commit id, or any revision in single mode) to its commit object.
func (r *repo) commit(rev string) (commitInfo, error) {
	o, err := r.read(rev+"^{commit}", 1<<20)
	if err != nil {
		return commitInfo{}, err
	}
	if o.data == nil {
		return commitInfo{}, fmt.Errorf("commit %s is over 1 MiB", o.oid)
	}
	ci := commitInfo{oid: o.oid}
	head, _, _ := bytes.Cut(o.data, []byte("\n\n"))
	for _, line := range strings.Split(string(head), "\n") {
		switch {
		case strings.HasPrefix(line, "parent "):
			ci.parents = append(ci.parents, strings.TrimPrefix(line, "parent "))
		case strings.HasPrefix(line, "committer "):
			ci.date = signatureTime(line)
		}
	}
	return ci, nil
}

// signatureTime reads "committer NAME <EMAIL> UNIX +HHMM" as a time in its own zone.
func signatureTime(line string) time.Time {
	i := strings.LastIndexByte(line, '>')
	if i < 0 {
		return time.Time{}
	}
	f := strings.Fields(line[i+1:])
	if len(f) != 2 {
		return time.Time{}
	}
	sec, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return time.Time{}
	}
	tz := f[1]
	off := 0
	if len(tz) == 5 {
		h, _ := strconv.Atoi(tz[1:3])
		m, _ := strconv.Atoi(tz[3:5])
		off = (h*60 + m) * 60
		if tz[0] == '-' {
			off = -off
		}
	}
	return time.Unix(sec, 0).In(time.FixedZone(tz, off))
}

// Tree entry modes.
const (
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeGitlink = "160000"
	modeTree    = "40000"
)

// entry finds file (slash-separated) in commit's tree: its mode and object id; found is false
// when no such path exists.
func (r *repo) entry(commit, file string) (mode, oid string, found bool, err error) {
	dir, base := path.Split(file)
	name := commit + "^{tree}"
	if dir != "" {
		name = commit + ":" + strings.TrimSuffix(dir, "/")
	}
	o, err := r.read(name, 64<<20)
	if errors.Is(err, ErrMissing) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	if o.typ != "tree" || o.data == nil {
		return "", "", false, nil
	}
	rawLen := len(o.oid) / 2
	b := o.data
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		nul := bytes.IndexByte(b, 0)
		if sp < 0 || nul < sp || nul+1+rawLen > len(b) {
			return "", "", false, fmt.Errorf("tree %s is malformed", o.oid)
		}
		if string(b[sp+1:nul]) == base {
			return string(b[:sp]), fmt.Sprintf("%x", b[nul+1:nul+1+rawLen]), true, nil
		}
		b = b[nul+1+rawLen:]
	}
	return "", "", false, nil
}

// run runs git in the repository and returns its standard output.
func (r *repo) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, r.gitBin, append([]string{"-C", r.dir}, args...)...)
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = msg[:500]
		}
		return nil, fmt.Errorf("git %s in %s: %v: %s", args[0], r.dir, err, msg)
	}
	return stdout.Bytes(), nil
}

// link is one commit of the first-parent chain and its parents.
type link struct {
	oid     string
	parents []string
}

// sharedFirstParents is firstParents from the commit oid, following first parents through
// the commits listed before and listing only where they end.
func (r *repo) sharedFirstParents(ctx context.Context, oid string, max int) ([]link, error) {
	c := &r.chains
	var out []link
	for cur := oid; len(out) < max; {
		c.mu.Lock()
		ps, ok := c.parents[cur]
		c.mu.Unlock()
		if !ok {
			l, err := r.firstParents(ctx, cur, max-len(out))
			if err != nil {
				return nil, err
			}
			if len(l) == 0 || l[0].oid != cur {
				return nil, fmt.Errorf("git rev-list in %s did not start at %s", r.dir, short(cur))
			}
			c.mu.Lock()
			if c.parents == nil {
				c.parents = map[string][]string{}
			}
			for _, x := range l {
				c.parents[x.oid] = x.parents
			}
			c.mu.Unlock()
			ps = l[0].parents
		}
		out = append(out, link{oid: cur, parents: ps})
		if len(ps) == 0 {
			break
		}
		cur = ps[0]
	}
	return out, nil
}

// firstParents lists the first-parent chain from rev, newest first, at most max commits.
func (r *repo) firstParents(ctx context.Context, rev string, max int) ([]link, error) {
	out, err := r.run(ctx, "rev-list", "--first-parent", "--parents", "--max-count="+strconv.Itoa(max), rev, "--")
	if err != nil {
		return nil, err
	}
	var chain []link
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		chain = append(chain, link{oid: f[0], parents: f[1:]})
	}
	return chain, nil
}

// change is one commit of the path-limited first-parent log: what it did to the path.
type change struct {
	commit           string
	oldMode, newMode string
	oldOID, newOID   string
	status           byte // A, M, D, T
}

// changes streams the commits on rev's first-parent chain that changed file (against their first
// parent), newest first, calling fn for each until it returns false.
func (r *repo) changes(ctx context.Context, rev, file string, fn func(change) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.gitBin, "-C", r.dir, "log", "--first-parent", "--diff-merges=first-parent",
		"--root", "--raw", "--no-abbrev", "--no-renames", "--format=%x00%H", rev, "--", file)
	cmd.Env = gitEnv()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git log in %s: %w", r.dir, err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start git log in %s: %w", r.dir, err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var commit string
	stopped := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\x00"):
			commit = line[1:]
		case strings.HasPrefix(line, ":") && commit != "":
			meta, _, _ := strings.Cut(line[1:], "\t")
			f := strings.Fields(meta)
			if len(f) != 5 || f[4] == "" {
				continue
			}
			c := change{commit: commit, oldMode: f[0], newMode: f[1], oldOID: f[2], newOID: f[3], status: f[4][0]}
			commit = "" // one entry per commit: the path itself
			if !fn(c) {
				stopped = true
			}
		}
		if stopped {
			break
		}
	}
	if stopped {
		cancel()
		_ = cmd.Wait()
		return nil
	}
	if err := sc.Err(); err != nil {
		_ = cmd.Wait()
		return fmt.Errorf("read git log in %s: %w", r.dir, err)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git log in %s: %v: %s", r.dir, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// diffEntry is one file a commit changed against its first parent.
type diffEntry struct {
	status           byte
	oldOID, newOID   string
	oldMode, newMode string
	oldPath, newPath string
}

// diff lists what commit changed against parent, renames detected.
func (r *repo) diff(ctx context.Context, parent, commit string) ([]diffEntry, error) {
	out, err := r.run(ctx, "diff-tree", "-r", "-M", "-z", "--raw", "--no-abbrev", "--no-commit-id", parent, commit, "--")
	if err != nil {
		return nil, err
	}
	parts := strings.Split(string(out), "\x00")
	var list []diffEntry
	for i := 0; i < len(parts); i++ {
		h := parts[i]
		if !strings.HasPrefix(h, ":") {
			continue
		}
		f := strings.Fields(h[1:])
		if len(f) != 5 || f[4] == "" || i+1 >= len(parts) {
			continue
		}
		e := diffEntry{status: f[4][0], oldMode: f[0], newMode: f[1], oldOID: f[2], newOID: f[3], oldPath: parts[i+1], newPath: parts[i+1]}
		i++
		if (e.status == 'R' || e.status == 'C') && i+1 < len(parts) {
			e.newPath = parts[i+1]
			i++
		}
		list = append(list, e)
	}
	return list, nil
}

// zeroOID reports whether oid is git's all-zero id (no such file on that side of a diff).
func zeroOID(oid string) bool { return strings.Trim(oid, "0") == "" }
