package snapshot

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// findGitDir returns the git (common) directory of the repository at dir: dir/.git, the
// directory a .git file names (a linked worktree's, whose commondir names the repository's),
// or dir itself when it is a bare repository; and the content of the HEAD that dir has (a
// linked worktree's own). It reads only those files.
func findGitDir(dir string) (gitDir, head string, err error) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotGit)
	switch {
	case err == nil && fi.IsDir():
		gitDir, err = evalDir(dotGit)
		return gitDir, readHead(gitDir), err
	case err == nil && fi.Mode().IsRegular():
		b, err := os.ReadFile(dotGit)
		if err != nil {
			return "", "", err
		}
		line, _, _ := strings.Cut(string(b), "\n")
		target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return "", "", errors.New(".git is a file that names no git directory")
		}
		gd := strings.TrimSpace(target)
		if !filepath.IsAbs(gd) {
			gd = filepath.Join(dir, gd)
		}
		head = readHead(gd)
		if cd, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
			common := strings.TrimSpace(string(cd))
			if !filepath.IsAbs(common) {
				common = filepath.Join(gd, common)
			}
			gd = common
		}
		gitDir, err = evalDir(gd)
		return gitDir, head, err
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return "", "", err
	}
	if isBare(dir) {
		return dir, readHead(dir), nil
	}
	return "", "", errors.New("no .git, and not a bare repository")
}

// headRE is what a HEAD file holds: a symbolic ref under refs/, or a commit id.
var headRE = regexp.MustCompile(`^(ref: refs/[^\x00-\x20~^:?*\[\\]+|[0-9a-f]{40}|[0-9a-f]{64})$`)

// readHead reads a git directory's HEAD as text; "" when it is not one of the forms above.
func readHead(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	h := strings.TrimSpace(string(b))
	if !headRE.MatchString(h) {
		return ""
	}
	return h
}

func evalDir(p string) (string, error) {
	p, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	if !isBare(p) {
		return "", fmt.Errorf("%s is not a git directory", p)
	}
	return p, nil
}

// isBare reports whether dir looks like a git directory: HEAD, objects/ and refs/.
func isBare(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// gitView is what git is shown of a repository: a git directory of vulnbench's own making,
// holding the repository's objects (alternates included), refs, packed-refs and shallow list,
// and a configuration that says only the object format. git never reads the repository's own
// configuration (filters, fsmonitor, hooks path, includes of files elsewhere), hooks or
// attributes (info/attributes).
//
// The view is a folder of the sandbox's (TempDir: removed after, or by the next start when
// vulnbench died) with empty mount points, the parts bound read-only over them at /repo; the
// sandbox shows it so, in bubblewrap or on the host (where the binds are links).
type gitView struct {
	dir     string
	release func()
	binds   []sandbox.Bind // the view as the sandbox shows it; {repo} is its git directory
}

// viewParts are what git needs of a repository to read its commits and trees.
var viewParts = []struct {
	name string
	dir  bool
}{{"objects", true}, {"refs", true}, {"packed-refs", false}, {"shallow", false}}

// newGitView makes the view of the repository at gitDir whose HEAD is head ("" for none).
func newGitView(sb *sandbox.Sandbox, gitDir, head string) (*gitView, error) {
	dir, release, err := sb.TempDir()
	if err != nil {
		return nil, fmt.Errorf("git view of %s: %w", gitDir, err)
	}
	v := &gitView{dir: dir, release: release}
	ok := false
	defer func() {
		if !ok {
			v.close()
		}
	}()
	if err := writeViewHead(dir, gitDir, head); err != nil {
		return nil, err
	}
	const inside = "/repo"
	v.binds = append(v.binds, sandbox.Bind{Name: "repo", Src: dir, Dst: inside})
	for _, part := range viewParts {
		src := filepath.Join(gitDir, part.name)
		if _, err := os.Stat(src); err != nil {
			if part.dir {
				return nil, fmt.Errorf("git view of %s: %w", gitDir, err)
			}
			continue
		}
		dst := filepath.Join(dir, part.name)
		if part.dir {
			err = os.Mkdir(dst, 0o555)
		} else {
			err = os.WriteFile(dst, nil, 0o444)
		}
		if err != nil {
			return nil, fmt.Errorf("git view of %s: %w", gitDir, err)
		}
		v.binds = append(v.binds, sandbox.Bind{Src: src, Dst: inside + "/" + part.name})
	}
	ok = true
	return v, nil
}

func (v *gitView) close() { v.release() }

// writeViewHead writes the view's own HEAD (head, or a branch that does not exist when head is
// "") and a configuration that says only the object format of the repository at gitDir.
func writeViewHead(dir, gitDir, head string) error {
	config := "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
	if objectFormat(gitDir) == "sha256" {
		config = "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n"
	}
	if head == "" {
		head = "ref: refs/heads/vulnbench-none"
	}
	for name, body := range map[string]string{"HEAD": head + "\n", "config": config} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o444); err != nil {
			return fmt.Errorf("git view of %s: %w", gitDir, err)
		}
	}
	return nil
}

// objectFormat reads extensions.objectformat from the repository's configuration as text (no
// includes followed): "sha256", or "" for SHA-1.
func objectFormat(gitDir string) string {
	f, err := os.Open(filepath.Join(gitDir, "config"))
	if err != nil {
		return ""
	}
	defer f.Close()
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.ToLower(strings.TrimSpace(sc.Text()))
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[] ")
			continue
		}
		k, val, ok := strings.Cut(line, "=")
		if ok && section == "extensions" && strings.TrimSpace(k) == "objectformat" && strings.TrimSpace(val) == "sha256" {
			return "sha256"
		}
	}
	return ""
}
