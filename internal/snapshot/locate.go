package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RepoURL is a repository URL taken apart: https://HOST/OWNER/NAME. Owner has one element on
// GitHub and more for GitLab subgroups (https://gitlab.com/group/sub/name).
type RepoURL struct {
	Host  string
	Owner []string
	Name  string // without a .git suffix
}

// ParseRepoURL reads the repository URL forms suites carry: https:// and http:// (git://,
// ssh:// too) HOST/OWNER/NAME with or without a trailing .git or slash, and the scp-like
// git@HOST:OWNER/NAME.git. Every path element must be a plain name: a URL cannot make Locate
// look outside the repositories directory.
func ParseRepoURL(raw string) (RepoURL, error) {
	var u RepoURL
	rest := strings.TrimSpace(raw)
	if i := strings.Index(rest, "://"); i >= 0 {
		switch strings.ToLower(rest[:i]) {
		case "https", "http", "git", "ssh", "git+ssh":
		default:
			return u, fmt.Errorf("repository URL %q: scheme %q is not one of https, http, git, ssh", raw, rest[:i])
		}
		rest = rest[i+3:]
		host, p, ok := strings.Cut(rest, "/")
		if !ok {
			return u, fmt.Errorf("repository URL %q has no path: want https://HOST/OWNER/NAME", raw)
		}
		host = host[strings.LastIndex(host, "@")+1:] // drop user@
		if h, _, ok := strings.Cut(host, ":"); ok {
			host = h // drop :port
		}
		u.Host, rest = host, p
	} else if at := strings.Index(rest, "@"); at >= 0 && strings.Contains(rest[at:], ":") {
		host, p, _ := strings.Cut(rest[at+1:], ":") // git@HOST:OWNER/NAME.git
		u.Host, rest = host, p
	} else {
		return u, fmt.Errorf("repository URL %q: want https://HOST/OWNER/NAME or git@HOST:OWNER/NAME.git", raw)
	}
	if u.Host == "" || !plainName(u.Host) {
		return u, fmt.Errorf("repository URL %q: host %q is not a plain name", raw, u.Host)
	}
	rest = strings.TrimSuffix(strings.TrimRight(rest, "/"), ".git")
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return u, fmt.Errorf("repository URL %q: want HOST/OWNER/NAME, got path %q", raw, rest)
	}
	for _, p := range parts {
		if !plainName(p) {
			return u, fmt.Errorf("repository URL %q: path element %q is not a plain name", raw, p)
		}
	}
	u.Owner, u.Name = parts[:len(parts)-1], parts[len(parts)-1]
	return u, nil
}

// plainName reports whether s is usable as one file name: not empty, not . or .., no
// separator, no NUL.
func plainName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00")
}

// Candidates lists, in the order Locate tries them, where the repository of u may be under
// dir: DIR/HOST/OWNER/NAME, DIR/OWNER/NAME, DIR/OWNER+NAME, DIR/NAME, each followed by the
// same path with .git appended.
func (u RepoURL) Candidates(dir string) []string {
	owner := filepath.Join(u.Owner...)
	bases := []string{
		filepath.Join(dir, u.Host, owner, u.Name),
		filepath.Join(dir, owner, u.Name),
		filepath.Join(dir, strings.Join(u.Owner, "+")+"+"+u.Name),
		filepath.Join(dir, u.Name),
	}
	out := make([]string, 0, 2*len(bases))
	for _, b := range bases {
		out = append(out, b, b+".git")
	}
	return out
}

// Locate finds the local repository of url under reposDir, the `--repos DIR` contract: the
// first candidate (see RepoURL.Candidates) that is a git repository, a clone (it holds .git)
// or a bare repository (it holds HEAD and objects/). It looks at the file system only; whether
// the commit is there is Cache.Get's question. A repository found nowhere gives an error that
// matches ErrNoRepository and names every path tried.
func Locate(reposDir, url string) (string, error) {
	u, err := ParseRepoURL(url)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(reposDir); err != nil || !st.IsDir() {
		return "", &kindError{kind: ErrNoRepository, msg: fmt.Sprintf("repositories directory %s does not exist or is not a directory (check --repos)", reposDir)}
	}
	var tried []string
	for _, p := range u.Candidates(reposDir) {
		switch repoKind(p) {
		case isRepo:
			return p, nil
		case notRepo:
			tried = append(tried, p+" (exists, not a git repository)")
		default:
			tried = append(tried, p)
		}
	}
	return "", &kindError{kind: ErrNoRepository, msg: fmt.Sprintf("repository %s is not under %s: tried %s (clone it to one of these paths)", url, reposDir, strings.Join(tried, ", "))}
}

const (
	noSuchDir = iota
	notRepo
	isRepo
)

// repoKind says whether p is a clone (p/.git is a directory or a gitfile), a bare repository
// (p/HEAD is a file and p/objects a directory), some other directory, or absent.
func repoKind(p string) int {
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return noSuchDir
	}
	if _, err := os.Stat(filepath.Join(p, ".git")); err == nil {
		return isRepo
	}
	head, err1 := os.Stat(filepath.Join(p, "HEAD"))
	objs, err2 := os.Stat(filepath.Join(p, "objects"))
	if err1 == nil && err2 == nil && head.Mode().IsRegular() && objs.IsDir() {
		return isRepo
	}
	return notRepo
}
