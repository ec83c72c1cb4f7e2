package hygiene

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// otherProjects are references, by the file that makes them, to files of other projects that
// look like this repository's paths, each with its reason.
func otherProjects() map[string]string {
	return map[string]string{
		"CLAUDE.md":                         "Claude Code's project instructions, which the harness keeps the CLI from reading",
		"QWEN.md":                           "Qwen Code's project instructions, which --safe-mode keeps it from reading",
		"AGENTS.md":                         "the agents' shared project instructions (pi, Codex), which the harness keeps them from reading",
		"docs/vexbench.md: internal/client": "golang/vuln's package that writes a vulnerability database",
	}
}

var (
	// repoPath is a path from the repository's root, as docs and comments name files.
	repoPath = regexp.MustCompile(`(?:^|[^\w/.-])((?:internal|cmd|bench|scripts|schema|suites|docs)/[A-Za-z0-9_./+-]*[A-Za-z0-9_])`)
	// mdName is a Markdown file named alone (DESIGN.md, NOTES.md).
	mdName = regexp.MustCompile(`(?:^|[^\w/.-])([A-Z][A-Z_]+\.md)\b`)
)

// docTexts are the texts that name files: README.md, docs/*.md, and the comments of the
// non-test Go files, by their path from root.
func docTexts(t *testing.T, root string) map[string]string {
	t.Helper()
	texts := map[string]string{}
	mds, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, p := range append(mds, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		texts[filepath.ToSlash(rel)] = string(b)
	}
	fset := token.NewFileSet()
	for _, f := range parseSources(t, root, fset) {
		c, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(f.rel)), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, cg := range c.Comments {
			b.WriteString(cg.Text())
			b.WriteByte('\n')
		}
		texts[f.rel] = b.String()
	}
	return texts
}

// brokenRefs lists, as "FILE: REF", the files named in texts that do not exist under root: a
// path from the root (an identifier after it, pkg.Name, is left out), or a Markdown file named
// alone, looked for beside the file, above it and in docs/.
func brokenRefs(root string, texts map[string]string) []string {
	exists := func(p string) bool { _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); return err == nil }
	var out []string
	for file, text := range texts {
		seen := map[string]bool{}
		for _, m := range repoPath.FindAllStringSubmatch(text, -1) {
			p := strings.TrimSuffix(m[1], ".")
			if strings.Contains(p, "NAME") || seen[p] {
				continue
			}
			seen[p] = true
			if base, ident, ok := cutIdent(p); ok && exists(base) {
				_ = ident
				continue
			}
			if !exists(p) {
				out = append(out, file+": "+p)
			}
		}
		for _, m := range mdName.FindAllStringSubmatch(text, -1) {
			name := m[1]
			if seen[name] {
				continue
			}
			seen[name] = true
			found := exists("docs/" + name)
			for dir := path.Dir(file); !found; dir = path.Dir(dir) {
				found = exists(path.Join(dir, name))
				if dir == "." {
					break
				}
			}
			if !found {
				out = append(out, file+": "+name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// cutIdent splits pkg/path.Ident into pkg/path and Ident.
func cutIdent(p string) (string, string, bool) {
	i := strings.LastIndexByte(p, '.')
	if i < 0 || i+1 >= len(p) || p[i+1] < 'A' || p[i+1] > 'Z' {
		return "", "", false
	}
	return p[:i], p[i+1:], true
}

// TestDocReferences: every file the README, docs/ and the code's comments name exists (a
// DESIGN.md five files cited was never in the repository).
func TestDocReferences(t *testing.T) {
	root := moduleRoot(t)
	allowed := otherProjects()
	for _, r := range brokenRefs(root, docTexts(t, root)) {
		file, ref, _ := strings.Cut(r, ": ")
		if _, ok := allowed[ref]; ok {
			continue
		}
		if _, ok := allowed[file+": "+ref]; ok {
			continue
		}
		t.Errorf("%s names %s, which is not in the repository", file, ref)
	}
}

// TestDocReferencesCanFail runs the check on texts it must reject.
func TestDocReferencesCanFail(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"internal/a/a.go": "", "internal/a/NOTES.md": "", "docs/x.md": ""})
	got := brokenRefs(root, map[string]string{
		"internal/a/b/c.go": "see NOTES.md and DESIGN.md section 3; internal/a/a.go, internal/a.Thing, internal/gone.go, docs/x.md.",
	})
	want := []string{"internal/a/b/c.go: DESIGN.md", "internal/a/b/c.go: internal/gone.go"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("broken = %q, want %q", got, want)
	}
}

// undocumented lists the directories under internal/ and cmd/ holding Go files (tests too) none
// of whose non-test files has a package comment.
func undocumented(t *testing.T, root string) []string {
	t.Helper()
	hasGo, documented := map[string]bool{}, map[string]bool{}
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") {
				return nil
			}
			dir, _ := filepath.Rel(root, filepath.Dir(p))
			hasGo[dir] = true
			if strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				return err
			}
			if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
				documented[dir] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for dir := range hasGo {
		if !documented[dir] {
			out = append(out, filepath.ToSlash(dir))
		}
	}
	sort.Strings(out)
	return out
}

// TestPackageComments: every package says what it owns in its package comment.
func TestPackageComments(t *testing.T) {
	for _, dir := range undocumented(t, moduleRoot(t)) {
		t.Errorf("%s has no package comment: say what the package owns (a doc.go)", dir)
	}
}
