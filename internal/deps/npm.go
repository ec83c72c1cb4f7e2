package deps

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
)

// The reader of npm lockfiles: package-lock.json and npm-shrinkwrap.json, lockfile version 1
// (nested dependencies) or 2 and 3 (packages by their node_modules path).

const npmLock = "javascript/packagelockjson"

type npmPackage struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Resolved    string `json:"resolved"`
	Link        bool   `json:"link"`
	Dev         bool   `json:"dev"`
	DevOptional bool   `json:"devOptional"`
	Optional    bool   `json:"optional"`
	InBundle    bool   `json:"inBundle"`
}

func (p npmPackage) groups() []string {
	var g []string
	if p.InBundle {
		g = []string{"bundled"}
	}
	if p.DevOptional {
		return append(g, "dev", "optional")
	}
	if p.Dev {
		g = append(g, "dev")
	}
	if p.Optional {
		g = append(g, "optional")
	}
	return g
}

type npmDependency struct {
	Version      string                   `json:"version"`
	Resolved     string                   `json:"resolved"`
	Dev          bool                     `json:"dev"`
	Optional     bool                     `json:"optional"`
	Dependencies map[string]npmDependency `json:"dependencies"`
}

func (d npmDependency) groups() []string {
	switch {
	case d.Dev && d.Optional:
		return []string{"dev", "optional"}
	case d.Dev:
		return []string{"dev"}
	case d.Optional:
		return []string{"optional"}
	}
	return nil
}

// npmEntry is one package found, under its name@version key.
type npmEntry struct {
	name, version string
	groups        []string
	line          int
}

// npmEntries are the packages found, one a key; a package found twice belongs to the groups
// both were in when both name some (else to none: it is a production dependency), and is at the
// first of its lines (scalibr keeps whichever its map gives last).
type npmEntries map[string]npmEntry

func (m npmEntries) add(key string, e npmEntry) {
	if old, ok := m[key]; ok {
		if len(old.groups) == 0 || len(e.groups) == 0 {
			e.groups = nil
		} else {
			e.groups = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(old.groups), e.groups...))))
		}
		if old.line > 0 && (e.line == 0 || old.line < e.line) {
			e.line = old.line
		}
	}
	m[key] = e
}

// readNPMLock reads an npm lockfile (a package-lock.json beside an npm-shrinkwrap.json is not
// read: npm uses the latter): version 2 and 3's packages, else version 1's nested dependencies,
// each at its key's line, in its groups (dev, optional, bundled); a package from git at its
// commit.
func readNPMLock(fsys fs.FS, p string, content []byte) ([]Dependency, error) {
	if path.Base(p) == "package-lock.json" {
		if _, err := fs.Stat(fsys, path.Join(path.Dir(p), "npm-shrinkwrap.json")); err == nil {
			return nil, nil
		}
	}
	var lock *struct {
		Dependencies map[string]npmDependency `json:"dependencies"`
		Packages     map[string]npmPackage    `json:"packages"`
	}
	if err := json.Unmarshal(content, &lock); err != nil {
		return nil, err
	}
	if lock == nil {
		return nil, errors.New("decoded null JSON value")
	}
	lines := jsonKeyLines(content)
	entries := npmEntries{}
	if lock.Packages != nil {
		for at, pk := range lock.Packages {
			if at == "" || pk.Link {
				continue
			}
			name := pk.Name
			if name == "" {
				name = npmName(at)
			}
			version := pk.Version
			if c := gitCommit(pk.Resolved); c != "" {
				version = c
			} else if c := gitCommit(pk.Version); c != "" {
				version = c
			}
			entries.add(name+"@"+version, npmEntry{name: name, version: pk.Version, groups: pk.groups(),
				line: lines[keyPath(keyPath("", "packages"), at)]})
		}
	} else {
		npmV1(lock.Dependencies, lines, keyPath("", "dependencies"), entries)
	}
	out := make([]Dependency, 0, len(entries))
	for _, e := range entries {
		out = append(out, Dependency{Ecosystem: "npm", Name: e.name, Version: e.version, Manifest: p, Line: e.line,
			Module: path.Dir(p), Scopes: e.groups, Extractor: npmLock})
	}
	return out, nil
}

// npmV1 adds lockfile version 1's dependencies under at, nested ones first.
func npmV1(deps map[string]npmDependency, lines map[string]int, at string, entries npmEntries) {
	for name, d := range deps {
		here := keyPath(at, name)
		if d.Dependencies != nil {
			npmV1(d.Dependencies, lines, keyPath(here, "dependencies"), entries)
		}
		version, final := d.Version, d.Version
		if strings.HasPrefix(d.Version, "npm:") { // an alias: npm:real-name@version
			i := strings.LastIndex(d.Version, "@")
			name, final = d.Version[4:i], d.Version[i+1:]
		}
		if strings.HasPrefix(d.Version, "file:") {
			final = ""
		} else if c := cmpOr(gitCommit(d.Version), gitCommit(d.Resolved)); c != "" {
			final, version = "", c
		}
		entries.add(name+"@"+version, npmEntry{name: name, version: final, groups: d.groups(), line: lines[here]})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// npmName is the package a node_modules path holds (node_modules/@scope/name → @scope/name).
func npmName(p string) string {
	scope, name := path.Base(path.Dir(p)), path.Base(p)
	if strings.HasPrefix(scope, "@") {
		return scope + "/" + name
	}
	return name
}

// gitCommitForms are the ways a git dependency's version or resolved URL names its commit.
var gitCommitForms = []*regexp.Regexp{
	regexp.MustCompile(`(?:^|.+@)(?:git(?:\+(?:ssh|https))?|ssh)://.+#(\w+)$`),
	regexp.MustCompile(`(?:^|.+@)https://.+\.git#(\w+)$`),
	regexp.MustCompile(`https://codeload\.github\.com(?:/[\w-.]+)+/tar\.gz/(\w+)`),
	regexp.MustCompile(`https://gitlab\.com(?:/[\w-.]+)+/-/archive/(\w+)`),
	regexp.MustCompile(`.+[#&]commit[:=](\w+)$`),
	regexp.MustCompile(`^(?:github|gitlab|bitbucket):.+#(\w+)$`),
}

// gitCommit is the commit a git dependency's version or resolved URL names, or "".
func gitCommit(s string) string {
	for _, re := range gitCommitForms {
		if m := re.FindStringSubmatch(s); m != nil {
			return m[1]
		}
	}
	u, err := url.Parse(s)
	if err != nil || (u.Host != "bitbucket.org" && u.Host != "github.com" && u.Host != "gitlab.com") {
		return ""
	}
	if u.RawQuery == "" {
		return u.Fragment
	}
	return u.Query().Get("ref")
}

// keyPath joins the keys of a path through a JSON document.
func keyPath(parent, key string) string { return parent + "\x00" + key }

// jsonKeyLines is the line of every object key under a "packages" or "dependencies" object of a
// JSON document, by its path from the root (keyPath); a document that cannot be read has none.
func jsonKeyLines(content []byte) map[string]int {
	lines := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(content))
	type frame struct {
		path   string
		object bool
		key    bool // the next string in this object is a key
	}
	stack := []frame{{}}
	line, off := 1, int64(0)
	lineAt := func(end int64) int {
		line += bytes.Count(content[off:end], []byte{'\n'})
		off = end
		return line
	}
	last := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			return lines
		}
		top := &stack[len(stack)-1]
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				p := top.path
				if top.object {
					p = keyPath(top.path, last)
					top.key = true
				}
				stack = append(stack, frame{path: p, object: t == '{', key: t == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top.object && top.key {
				last = t
				top.key = false
				parent := top.path[strings.LastIndexByte(top.path, 0)+1:]
				if parent == "packages" || parent == "dependencies" {
					lines[keyPath(top.path, t)] = lineAt(dec.InputOffset())
				}
				continue
			}
			top.key = top.object
		default:
			top.key = top.object
		}
	}
}
