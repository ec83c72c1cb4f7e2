package fetch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// Errors a Result or a Missing commit matches (errors.Is).
var (
	// ErrUnreachable: the remote could not be cloned or fetched from (no such host, refused,
	// no such repository, credentials refused).
	ErrUnreachable = errors.New("remote unreachable")
	// ErrNoCommit: the remote answered but does not have the commit (fetched by id, and with
	// every branch and tag).
	ErrNoCommit = errors.New("commit not on the remote")
	// ErrIncomplete: the commit is there but some of its files' contents could not be fetched
	// into the partial clone.
	ErrIncomplete = errors.New("commit's objects could not be fetched")
	// ErrInTheWay: the repository's place in the layout holds something that is not a git
	// repository; it is left alone.
	ErrInTheWay = errors.New("not a git repository")
)

// Options configure Repos.
type Options struct {
	Dir    string // the --repos directory; made if needed
	Jobs   int    // repositories fetched at once; 0 or less: 4
	Filter string // partial-clone filter of new clones ("blob:none"); "": full clones
	Git    string // the git command; "": git on PATH
	// Env is added to every git command's environment (the process's own comes first): for
	// example GIT_CONFIG_GLOBAL pointing at a file of url.<base>.insteadOf mirrors.
	Env []string
	// Progress, when set, hears each repository's steps; it is called from one goroutine at
	// a time.
	Progress func(Event)
}

// Action is what Repos did with a repository.
type Action string

const (
	Present Action = "present" // every commit was there already: no network
	Cloned  Action = "cloned"
	Updated Action = "updated" // an existing repository, fetched into
	Failed  Action = "failed"  // the repository could not be had (Result.Err)
)

// Result is one repository's outcome.
type Result struct {
	URL     string
	Path    string // where it is, or would be
	Action  Action
	Partial bool     // a partial clone (its pinned commits' contents are all there)
	Commits int      // pinned commits verified present
	Missing []Commit // pinned commits that could not be had
	Err     error    // the repository could not be had at all
	Took    time.Duration
}

// Commit is a pinned commit that could not be had, and why (errors.Is ErrNoCommit,
// ErrIncomplete or ErrUnreachable).
type Commit struct {
	ID  string
	Err error
}

// Step is a stage of one repository's fetch, for progress.
type Step string

const (
	StepCloning  Step = "cloning"
	StepFetching Step = "fetching"       // commits missing from an existing repository
	StepContents Step = "fetching blobs" // the pinned commits' file contents, in a partial clone
	StepDone     Step = "done"
)

// Event is a progress report: a repository starting a step, or done (with its Result and how
// many repositories are done, of Total).
type Event struct {
	URL         string
	Step        Step
	Result      *Result // with StepDone
	Done, Total int
}

// Repos brings every needed repository into opts.Dir's layout (DIR/HOST/OWNER/NAME, a bare
// repository; an existing repository that snapshot.Locate finds is updated in place) and
// verifies each pinned commit present, opts.Jobs repositories at a time. A repository and
// commits that are all there already cost no network access. New clones are made in a
// temporary directory beside their place and renamed into it once cloned, so an interrupted
// run leaves nothing Locate would find; a rerun clears such leftovers. A repository that
// cannot be had, or a commit, is reported in its Result and the others go on. The results are
// in the order of needs; the error is ctx's or opts.Dir's.
func Repos(ctx context.Context, needs []Need, opts Options) ([]Result, error) {
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("repositories directory: %w", err)
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = 4
	}
	f := &fetcher{opts: opts, git: newGit(opts.Git, opts.Env), total: len(needs)}
	results := make([]Result, len(needs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, max(len(needs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				r := f.one(ctx, needs[i])
				r.Took = time.Since(start)
				results[i] = r
				f.report(Event{URL: r.URL, Step: StepDone, Result: &results[i]})
			}
		}()
	}
	for i := range needs {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return results, err
	}
	return results, nil
}

type fetcher struct {
	opts  Options
	git   git
	mu    sync.Mutex
	done  int
	total int
}

// report hands an event to Progress, one at a time.
func (f *fetcher) report(e Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e.Step == StepDone {
		f.done++
	}
	e.Done, e.Total = f.done, f.total
	if f.opts.Progress != nil {
		f.opts.Progress(e)
	}
}

// one fetches one repository.
func (f *fetcher) one(ctx context.Context, n Need) Result {
	r := Result{URL: n.URL, Action: Failed}
	u, err := snapshot.ParseRepoURL(n.URL)
	if err != nil {
		r.Err = err
		return r
	}
	if path, err := snapshot.Locate(f.opts.Dir, n.URL); err == nil {
		unlock, err := lock(ctx, lockName(path))
		if err != nil {
			r.Err = fmt.Errorf("repository %s: %w", n.URL, err)
			return r
		}
		defer release(lockName(path), unlock)
		r.Path = path
		return f.update(ctx, n, r)
	}
	r.Path = u.Candidates(f.opts.Dir)[0]
	made := firstMissing(filepath.Dir(r.Path)) // the directories made for it, removed if it fails
	if err := os.MkdirAll(filepath.Dir(r.Path), 0o755); err != nil {
		r.Err = fmt.Errorf("repository %s: %w", n.URL, err)
		return r
	}
	unlock, err := lock(ctx, lockName(r.Path))
	if err != nil {
		r.Err = fmt.Errorf("repository %s: %w", n.URL, err)
		removeEmpty(filepath.Dir(r.Path), made)
		return r
	}
	defer func() {
		release(lockName(r.Path), unlock)
		if _, err := os.Lstat(r.Path); err != nil { // nothing cloned: no empty owner folders left
			removeEmpty(filepath.Dir(r.Path), made)
		}
	}()
	if path, err := snapshot.Locate(f.opts.Dir, n.URL); err == nil { // another process cloned it meanwhile
		r.Path = path
		return f.update(ctx, n, r)
	}
	if _, err := os.Lstat(r.Path); err == nil {
		r.Err = fmt.Errorf("%s: %w: move it away to clone %s there", r.Path, ErrInTheWay, n.URL)
		return r
	}
	return f.clone(ctx, n, r)
}

// release removes the lock file and then releases it: a process waiting on it sees it gone and
// locks a new one (lock), and none is left behind.
func release(name string, unlock func()) {
	os.Remove(name)
	unlock()
}

// firstMissing is the outermost directory of dir's path that does not exist ("" when dir does).
func firstMissing(dir string) string {
	missing := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			return missing
		}
		missing = d
		if filepath.Dir(d) == d {
			return missing
		}
	}
}

// removeEmpty removes dir and its parents up to top (the outermost one made), each only if
// empty.
func removeEmpty(dir, top string) {
	if top == "" {
		return
	}
	for d := dir; ; d = filepath.Dir(d) {
		if os.Remove(d) != nil || d == top || filepath.Dir(d) == d {
			return
		}
	}
}

// lockName is the lock file of the repository at path: beside it, hidden.
func lockName(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// update verifies the commits of an existing repository and fetches the missing ones.
func (f *fetcher) update(ctx context.Context, n Need, r Result) Result {
	repo := f.repo(r.Path, n.URL)
	missing, err := repo.check(ctx, n.Commits)
	if err != nil {
		r.Err = err
		return r
	}
	r.Partial = repo.partial
	if len(missing) == 0 {
		r.Action, r.Commits = Present, len(n.Commits)
		return r
	}
	f.report(Event{URL: n.URL, Step: StepFetching})
	r.Action = Updated
	remote, own := repo.remoteFor(ctx, n.URL)
	r.Missing = f.complete(ctx, repo, remote, own, missing)
	r.Commits = len(n.Commits) - len(r.Missing)
	return r
}

// clone makes a new bare clone in a temporary directory, completes it and renames it into
// place (with whatever commits it could get: a rerun fetches the rest into it).
func (f *fetcher) clone(ctx context.Context, n Need, r Result) Result {
	dir, base := filepath.Dir(r.Path), filepath.Base(r.Path)
	stale, _ := filepath.Glob(filepath.Join(dir, "."+base+".tmp-*"))
	for _, s := range stale { // an interrupted earlier run's: we hold the lock
		_ = os.RemoveAll(s)
	}
	tmp, err := os.MkdirTemp(dir, "."+base+".tmp-")
	if err != nil {
		r.Err = fmt.Errorf("repository %s: %w", n.URL, err)
		return r
	}
	defer os.RemoveAll(tmp) // nothing left once renamed
	f.report(Event{URL: n.URL, Step: StepCloning})
	args := []string{"clone", "--bare", "--quiet"}
	if f.opts.Filter != "" {
		args = append(args, "--filter="+f.opts.Filter)
	}
	if _, err := f.git.run(ctx, "", false, nil, append(args, "--", n.URL, tmp)...); err != nil {
		if ctx.Err() != nil {
			r.Err = ctx.Err()
		} else {
			r.Err = fmt.Errorf("clone %s: %w: %s", n.URL, ErrUnreachable, reason(err))
		}
		return r
	}
	repo := f.repo(tmp, n.URL)
	if _, err := f.git.run(ctx, tmp, true, nil, "config", ownKey, "true"); err != nil {
		r.Err = fmt.Errorf("repository %s: %w", n.URL, err)
		return r
	}
	missing, err := repo.check(ctx, n.Commits)
	if err != nil {
		r.Err = err
		return r
	}
	r.Missing = f.complete(ctx, repo, "origin", true, missing)
	r.Partial = repo.partial
	if err := os.Rename(tmp, r.Path); err != nil {
		r.Err = fmt.Errorf("repository %s: %w", n.URL, err)
		return r
	}
	r.Action, r.Commits = Cloned, len(n.Commits)-len(r.Missing)
	return r
}

// complete fetches the missing commits (by id, else every branch and tag) and, in a partial
// clone, the contents of those whose objects are missing; it returns what still is.
func (f *fetcher) complete(ctx context.Context, repo *repo, remote string, own bool, missing []missingCommit) []Commit {
	var noCommit []string
	for _, m := range missing {
		if !m.present {
			noCommit = append(noCommit, m.id)
		}
	}
	var fetchErr error
	if len(noCommit) > 0 {
		if fetchErr = repo.fetchCommits(ctx, remote, noCommit); fetchErr != nil {
			if err := repo.fetchAll(ctx, remote, own); err != nil && ctx.Err() == nil {
				fetchErr = fmt.Errorf("%w: %s", ErrUnreachable, reason(err))
			}
		}
	}
	ids := make([]string, len(missing))
	for i, m := range missing {
		ids[i] = m.id
	}
	still, err := repo.check(ctx, ids)
	if err != nil {
		return allMissing(ids, err)
	}
	var incomplete []string
	var out []Commit
	for _, m := range still {
		if !m.present {
			err := fmt.Errorf("%w", ErrNoCommit)
			if fetchErr != nil {
				err = fmt.Errorf("%w (%s)", ErrNoCommit, reason(fetchErr))
				if errors.Is(fetchErr, ErrUnreachable) {
					err = fetchErr
				}
			}
			out = append(out, Commit{ID: m.id, Err: err})
			continue
		}
		incomplete = append(incomplete, m.id)
	}
	if len(incomplete) > 0 {
		f.report(Event{URL: repo.url, Step: StepContents})
		for _, id := range incomplete {
			if err := repo.fetchContents(ctx, remote, id); err != nil {
				out = append(out, Commit{ID: id, Err: fmt.Errorf("%w: %s", ErrIncomplete, reason(err))})
			}
		}
	}
	return out
}

func allMissing(ids []string, err error) []Commit {
	out := make([]Commit, len(ids))
	for i, id := range ids {
		out[i] = Commit{ID: id, Err: err}
	}
	return out
}

// Summary counts results by action, and the commits verified and missing.
type Summary struct {
	Present, Cloned, Updated, Failed int
	Commits, Missing                 int
}

// Summarise adds the results up; a repository with missing commits counts as done with its
// action and its missing commits.
func Summarise(results []Result) Summary {
	var s Summary
	for _, r := range results {
		switch r.Action {
		case Present:
			s.Present++
		case Cloned:
			s.Cloned++
		case Updated:
			s.Updated++
		default:
			s.Failed++
		}
		s.Commits += r.Commits
		s.Missing += len(r.Missing)
	}
	return s
}

// shortID is a commit id's first 12 characters, for messages.
func shortID(id string) string {
	if len(id) > 12 && !strings.ContainsAny(id[:12], "/ ") {
		return id[:12]
	}
	return id
}
