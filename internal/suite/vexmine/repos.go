package vexmine

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// Repo is one repository found under --repos, with the URL and project name its cases carry.
type Repo struct {
	Dir     string `json:"dir"`
	URL     string `json:"url"`
	Project string `json:"project"` // OWNER/NAME
}

// maxDepth is how deep Discover looks: HOST/GROUP/SUBGROUP/NAME.
const maxDepth = 4

// Discover finds the repositories under dir in the `--repos DIR` layouts (snapshot.Locate's):
// DIR/HOST/OWNER/NAME (deeper owners for GitLab's subgroups), DIR/OWNER/NAME, DIR/OWNER+NAME and
// DIR/NAME, each a clone or a bare repository, optionally ending in .git. The URL a case
// carries is read off the path, so that Locate finds the repository again from it: HOST/OWNER/NAME
// gives https://HOST/OWNER/NAME, OWNER/NAME and OWNER+NAME github.com's; a lone NAME the origin
// remote its configuration names (read as text), else https://local.invalid/local/NAME.
// Hidden directories are skipped; directory links are followed at the top levels, where a
// layout is often made of links.
func Discover(dir string) ([]Repo, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--repos %s is not a directory", dir)
	}
	var out []Repo
	var visit func(p string, rel []string) error
	visit = func(p string, rel []string) error {
		if len(rel) > 0 && isRepo(p) {
			r, ok := repoOf(p, rel)
			if ok {
				out = append(out, r)
			}
			return nil
		}
		if len(rel) >= maxDepth {
			return nil
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return fmt.Errorf("--repos: %w", err)
		}
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			q := filepath.Join(p, name)
			if st, err := os.Stat(q); err != nil || !st.IsDir() {
				continue
			}
			if err := visit(q, append(append([]string(nil), rel...), name)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(dir, nil); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Project < out[j].Project || out[i].Project == out[j].Project && out[i].Dir < out[j].Dir
	})
	return out, nil
}

// isRepo reports whether p is a clone (p/.git exists) or a bare repository.
func isRepo(p string) bool {
	if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
		return true
	}
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(p, n)); err != nil {
			return false
		}
	}
	return true
}

func repoOf(p string, rel []string) (Repo, bool) {
	rel = append([]string(nil), rel...)
	rel[len(rel)-1] = strings.TrimSuffix(rel[len(rel)-1], ".git")
	var url string
	switch {
	case len(rel) >= 3:
		url = "https://" + strings.Join(rel, "/")
	case len(rel) == 2:
		url = "https://github.com/" + strings.Join(rel, "/")
	case strings.Contains(rel[0], "+"):
		url = "https://github.com/" + strings.ReplaceAll(rel[0], "+", "/")
	default:
		url = "https://local.invalid/local/" + rel[0]
		if o := originURL(p); o != "" {
			if u, err := snapshot.ParseRepoURL(o); err == nil && u.Name == rel[0] {
				url = "https://" + u.Host + "/" + strings.Join(u.Owner, "/") + "/" + u.Name
			}
		}
	}
	u, err := snapshot.ParseRepoURL(url)
	if err != nil {
		return Repo{}, false
	}
	return Repo{Dir: p, URL: url, Project: strings.Join(u.Owner, "/") + "/" + u.Name}, true
}

// originURL reads the origin remote's url from the repository's configuration as text (git is
// not asked: it would read the rest of the configuration too); "" when there is none.
func originURL(p string) string {
	cfg := filepath.Join(p, ".git", "config")
	if _, err := os.Stat(cfg); err != nil {
		cfg = filepath.Join(p, "config")
	}
	f, err := os.Open(cfg)
	if err != nil {
		return ""
	}
	defer f.Close()
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Join(strings.Fields(strings.Trim(line, "[]")), " "))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == `remote "origin"` && strings.EqualFold(strings.TrimSpace(k), "url") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
