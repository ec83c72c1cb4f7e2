package advisory

import (
	"net/url"
	"strings"
)

// CommitRef is a commit a reference URL names, and its repository's URL.
type CommitRef struct {
	Repo   string // https://HOST/PATH of the repository, no trailing slash or .git
	Commit string // as written: 7 to 40 hexadecimal digits (64 for SHA-256 repositories)
}

// ParseCommitURL reads the commit URLs of the forges OSV records point at:
//
//	https://HOST/OWNER/NAME/commit/SHA            GitHub, Gitea, Codeberg (also .patch, .diff, #fragment)
//	https://HOST/GROUP/.../NAME/-/commit/SHA      GitLab
//	https://HOST/OWNER/NAME/commits/SHA           Bitbucket
//	https://HOST/OWNER/NAME/pull/N/commits/SHA    a GitHub pull request's commit
//	https://HOST/PROJECT/+/SHA                    Gitiles (go.googlesource.com/go/+/SHA)
//	https://HOST/PATH/commit/?id=SHA              cgit
//	https://HOST/GROUP/.../NAME/-/merge_requests/N/diffs?commit_id=SHA   a GitLab merge request's commit
//
// ok is false for anything else (a pull request, an issue, a release, a code review).
func ParseCommitURL(raw string) (CommitRef, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return CommitRef{}, false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	repo := func(n int) string {
		p := strings.TrimSuffix(strings.Join(parts[:n], "/"), ".git")
		return "https://" + u.Host + "/" + p
	}
	for i, p := range parts {
		rest := parts[i+1:]
		switch {
		case p == "+" && i >= 1 && len(rest) == 1 && isSHA(rest[0]): // Gitiles
			return CommitRef{Repo: repo(i), Commit: rest[0]}, true
		case (p == "commit" || p == "commits") && i >= 2 && len(rest) == 1:
			sha := strings.TrimSuffix(strings.TrimSuffix(rest[0], ".patch"), ".diff")
			if !isSHA(sha) {
				return CommitRef{}, false
			}
			n := i
			switch {
			case parts[i-1] == "-": // GitLab's /-/commit/
				n = i - 1
			case i >= 4 && parts[i-2] == "pull" && p == "commits": // GitHub's /pull/N/commits/SHA
				n = i - 2
			}
			if n < 2 {
				return CommitRef{}, false
			}
			return CommitRef{Repo: repo(n), Commit: sha}, true
		case p == "commit" && i >= 1 && len(rest) == 0 && isSHA(u.Query().Get("id")): // cgit
			return CommitRef{Repo: repo(i), Commit: u.Query().Get("id")}, true
		case p == "merge_requests" && i >= 3 && parts[i-1] == "-" && isSHA(u.Query().Get("commit_id")): // GitLab
			return CommitRef{Repo: repo(i - 1), Commit: u.Query().Get("commit_id")}, true
		}
	}
	return CommitRef{}, false
}

// isSHA reports whether s looks like a git object id, full or abbreviated.
func isSHA(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return false
		}
	}
	return true
}

// CrashInfo reads what an OSS-Fuzz record's details say about the crash: its type
// ("Heap-buffer-overflow READ 4") and its state, the top frames of the stack (function names,
// innermost first). Both are empty when the details hold no such block.
func CrashInfo(details string) (crashType string, frames []string) {
	lines := strings.Split(strings.ReplaceAll(details, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		switch {
		case strings.HasPrefix(l, "Crash type:"):
			crashType = strings.TrimSpace(strings.TrimPrefix(l, "Crash type:"))
		case strings.HasPrefix(l, "Crash state:"):
			if first := strings.TrimSpace(strings.TrimPrefix(l, "Crash state:")); first != "" {
				frames = append(frames, first)
			}
			for i++; i < len(lines); i++ {
				f := strings.TrimSpace(lines[i])
				if f == "" || strings.HasPrefix(f, "```") || strings.HasSuffix(f, ":") && !strings.Contains(f, "::") {
					break
				}
				frames = append(frames, f)
			}
			i--
		}
	}
	return crashType, frames
}
