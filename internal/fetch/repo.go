package fetch

import (
	"context"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// markRef is where a pinned commit verified complete in a partial clone is recorded, so that a
// rerun does not walk its tree again; fetchedRef keeps a commit fetched by id (on no branch)
// from git's garbage collection.
const (
	markRef    = "refs/vulnbench/verified/"
	fetchedRef = "refs/vulnbench/fetched/"
)

// ownKey marks a repository Repos cloned (git config): its branches are Repos' to update.
const ownKey = "vulnbench.fetched"

// repo is one local repository being checked or fetched into.
type repo struct {
	git      git
	dir      string
	url      string
	probed   bool
	partial  bool   // a partial clone: objects may be missing on purpose
	promisor string // its promisor remote
	own      bool   // cloned by Repos
}

func (f *fetcher) repo(dir, url string) *repo { return &repo{git: f.git, dir: dir, url: url} }

// missingCommit is a pinned commit that is absent, or present with objects missing (partial
// clones only).
type missingCommit struct {
	id      string
	present bool
}

// probe reads the repository's configuration once: partial or not, and whether Repos made it.
func (r *repo) probe(ctx context.Context) error {
	if r.probed {
		return nil
	}
	out, err := r.git.run(ctx, r.dir, true, nil, "config", "--get-regexp", `^(remote\..*\.promisor|extensions\.partialclone|vulnbench\.fetched)$`)
	if err != nil && exitCode(err) != 1 { // 1: none of them is set
		return fmt.Errorf("repository %s: %w", r.dir, err)
	}
	for _, line := range strings.Split(out, "\n") {
		key, val, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch {
		case key == "":
		case key == ownKey:
			r.own = val == "true"
		case key == "extensions.partialclone" && val != "":
			r.partial, r.promisor = true, val
		case strings.HasSuffix(key, ".promisor") && val == "true":
			r.partial = true
			if r.promisor == "" {
				r.promisor = strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".promisor")
			}
		}
	}
	r.probed = true
	return nil
}

// check returns the commits of ids that are absent or, in a partial clone, lack objects; it
// makes no network access (a partial clone would otherwise fetch what it lacks on its own).
// Commits found complete are marked (markRef).
func (r *repo) check(ctx context.Context, ids []string) ([]missingCommit, error) {
	if err := r.probe(ctx); err != nil {
		return nil, err
	}
	var out []missingCommit
	for _, id := range ids {
		// rev-list with --missing does not fetch lazily, as cat-file would in a partial clone.
		if _, err := r.git.run(ctx, r.dir, true, nil, "rev-list", "--no-walk", "--missing=print", "--end-of-options", id+"^{commit}"); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out = append(out, missingCommit{id: id})
			continue
		}
		if !r.partial || r.marked(ctx, id) {
			continue
		}
		lacks, err := r.lacking(ctx, id)
		if err != nil {
			return nil, err
		}
		if len(lacks) > 0 {
			out = append(out, missingCommit{id: id, present: true})
			continue
		}
		if err := r.mark(ctx, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// marked reports whether id was marked verified.
func (r *repo) marked(ctx context.Context, id string) bool {
	got, err := r.git.run(ctx, r.dir, true, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", markRef+id+"^{commit}")
	if err != nil {
		return false
	}
	want, err := r.git.run(ctx, r.dir, true, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", id+"^{commit}")
	return err == nil && got == want
}

func (r *repo) mark(ctx context.Context, id string) error {
	full, err := r.git.run(ctx, r.dir, true, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", id+"^{commit}")
	if err != nil {
		return fmt.Errorf("repository %s: commit %s: %w", r.dir, shortID(id), err)
	}
	if _, err := r.git.run(ctx, r.dir, true, nil, "update-ref", "--", markRef+full, full); err != nil {
		return fmt.Errorf("repository %s: %w", r.dir, err)
	}
	return nil
}

// lacking lists the objects of commit id's tree that a partial clone does not have.
func (r *repo) lacking(ctx context.Context, id string) ([]string, error) {
	out, err := r.git.run(ctx, r.dir, true, nil, "rev-list", "--objects", "--no-walk", "--missing=print", "--end-of-options", id+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("repository %s: commit %s: %w", r.dir, shortID(id), err)
	}
	var lacks []string
	for _, line := range strings.Split(out, "\n") {
		if oid, ok := strings.CutPrefix(line, "?"); ok {
			lacks = append(lacks, oid)
		}
	}
	return lacks, nil
}

// remoteFor is the remote to fetch url's commits from: origin in a clone Repos made, a remote
// of the repository whose URL names the same repository, else the URL itself; own reports
// whether Repos may update the repository's branches.
func (r *repo) remoteFor(ctx context.Context, url string) (remote string, own bool) {
	if r.own {
		return "origin", true
	}
	want, err := snapshot.ParseRepoURL(url)
	if err != nil {
		return url, false
	}
	out, _ := r.git.run(ctx, r.dir, true, nil, "config", "--get-regexp", `^remote\..*\.url$`)
	for _, line := range strings.Split(out, "\n") {
		key, val, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		if got, err := snapshot.ParseRepoURL(val); err == nil && sameRepo(got, want) {
			return strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".url"), false
		}
	}
	return url, false
}

func sameRepo(a, b snapshot.RepoURL) bool {
	return strings.EqualFold(a.Host, b.Host) && strings.EqualFold(strings.Join(a.Owner, "/"), strings.Join(b.Owner, "/")) &&
		strings.EqualFold(a.Name, b.Name)
}

// fetchArgs start every fetch: no submodules, no FETCH_HEAD, no tags unless asked.
var fetchArgs = []string{"fetch", "--quiet", "--recurse-submodules=no", "--no-write-fetch-head"}

// fetchCommits fetches commits by id into fetchedRef; servers that do not allow fetching
// a commit by id refuse it.
func (r *repo) fetchCommits(ctx context.Context, remote string, ids []string) error {
	args := append(append([]string{}, fetchArgs...), "--no-tags", "--", remote)
	for _, id := range ids {
		args = append(args, id+":"+fetchedRef+id)
	}
	_, err := r.git.run(ctx, r.dir, false, nil, args...)
	return err
}

// fetchAll fetches every branch and tag: into their own refs in a clone Repos made, under
// refs/vulnbench/ in anyone else's.
func (r *repo) fetchAll(ctx context.Context, remote string, own bool) error {
	heads, tags := "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"
	if !own {
		heads, tags = "+refs/heads/*:refs/vulnbench/heads/*", "+refs/tags/*:refs/vulnbench/tags/*"
	}
	_, err := r.git.run(ctx, r.dir, false, nil, append(append([]string{}, fetchArgs...), "--no-tags", "--", remote, heads, tags)...)
	return err
}

// fetchContents fetches the objects commit id's tree lacks in a partial clone, in one request
// (as git's own lazy fetch does, from the promisor remote), checks none is still missing and
// marks the commit.
func (r *repo) fetchContents(ctx context.Context, remote, id string) error {
	lacks, err := r.lacking(ctx, id)
	if err != nil {
		return err
	}
	if r.promisor != "" {
		remote = r.promisor
	}
	if len(lacks) > 0 {
		args := []string{"-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
			"--recurse-submodules=no", "--filter=blob:none", "--stdin", remote}
		if _, err := r.git.run(ctx, r.dir, false, strings.NewReader(strings.Join(lacks, "\n")+"\n"), args...); err != nil {
			return err
		}
		if lacks, err = r.lacking(ctx, id); err != nil {
			return err
		}
		if len(lacks) > 0 {
			return fmt.Errorf("%d objects, such as %s, are still missing", len(lacks), lacks[0])
		}
	}
	return r.mark(ctx, id)
}
