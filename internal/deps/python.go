package deps

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// The readers of Python manifests: requirements files, poetry.lock, Pipfile.lock, uv.lock,
// pyproject.toml and setup.py.

const (
	pyRequirements = "python/requirements"
	pyPoetryLock   = "python/poetrylock"
	pyPipfileLock  = "python/pipfilelock"
	pyUVLock       = "python/uvlock"
	pyProject      = "python/pyprojecttoml"
	pySetup        = "python/setup"
)

func pyDep(manifest, name, version, extractor string, line int) Dependency {
	return Dependency{Ecosystem: "PyPI", Name: name, Version: version, Manifest: manifest, Line: line, Module: path.Dir(manifest), Extractor: extractor}
}

var (
	reqComment     = regexp.MustCompile(`(^|\s+)#.*$`)
	reqUnsupported = regexp.MustCompile(`\*|<[^=]|,|!=`) // what is no single version: a range
	reqValidName   = regexp.MustCompile(`(?i)^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$`)
	reqEnvVar      = regexp.MustCompile(`\$\{[A-Z0-9_]+\}`)
	reqExtras      = regexp.MustCompile(`\[[^\[\]]*\]`)
	reqOptions     = regexp.MustCompile(`(?:\s+|^)(?:--hash|--global-option|--config-settings|-C).*`)
)

// readRequirements reads a requirements file: one requirement a line (a line ending in \ goes
// on), comments and per-requirement options (--hash...) cut, environment markers and extras
// left out; a requirement pinned with ==, === is a version, any other a range; a line naming an
// environment variable is skipped. A file it includes (-r FILE) is read too, its requirements at
// the line of the -r.
func readRequirements(fsys fs.FS, p string, content []byte) ([]Dependency, error) {
	out, includes, err := requirementsOf(p, content)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{p: true}
	for len(includes) > 0 {
		inc := includes[0]
		includes = includes[1:]
		if done[inc.path] {
			continue
		}
		b, err := fs.ReadFile(fsys, inc.path)
		if err != nil {
			continue // scalibr's rule: an include that cannot be read is left out
		}
		deps, more, err := requirementsOf(inc.path, b)
		if err != nil {
			continue
		}
		done[inc.path] = true
		includes = append(includes, more...)
		for _, d := range deps {
			d.Manifest, d.Line, d.Module = p, inc.line, path.Dir(p)
			out = append(out, d)
		}
	}
	return out, nil
}

// include is a -r FILE line: the file, and the line that names it.
type include struct {
	path string
	line int
}

func requirementsOf(p string, content []byte) ([]Dependency, []include, error) {
	var out []Dependency
	var includes []include
	sc := bufio.NewScanner(bytes.NewReader(content))
	n := 0
	for sc.Scan() {
		n++
		start := n
		var line string
		line, n = requirementLine(sc, n, &strings.Builder{})
		line = reqOptions.ReplaceAllString(line, "")
		requirement := strings.TrimSpace(line)
		l, _, _ := strings.Cut(strings.TrimSpace(line), ";") // environment markers
		l = strings.TrimSpace(reqExtras.ReplaceAllString(l, ""))
		if l == "" {
			continue
		}
		if after, ok := strings.CutPrefix(l, "-r"); ok {
			includes = append(includes, include{path: path.Join(path.Dir(p), strings.TrimSpace(after)), line: start})
		}
		if strings.HasPrefix(l, "-") {
			continue
		}
		name, version, comp := lowestVersion(l)
		if name == "" || (version == "" && comp != "") || !reqValidName.MatchString(name) {
			continue
		}
		d := pyDep(p, name, version, pyRequirements, start)
		if comp != "==" && comp != "===" {
			d.Range, d.Version = strings.TrimSpace(strings.TrimPrefix(requirement, name)), ""
		}
		out = append(out, d)
	}
	return out, includes, sc.Err()
}

// requirementLine is a requirement's text: the line without its comment, joined with the next
// ones while it ends in \; "" for a line naming an environment variable.
func requirementLine(sc *bufio.Scanner, n int, b *strings.Builder) (string, int) {
	l := reqComment.ReplaceAllString(sc.Text(), "")
	if reqEnvVar.MatchString(l) {
		return "", n
	}
	if strings.HasSuffix(l, `\`) {
		b.WriteString(l[:len(l)-1])
		if sc.Scan() {
			return requirementLine(sc, n+1, b)
		}
		return b.String(), n
	}
	b.WriteString(l)
	return b.String(), n
}

// lowestVersion splits a requirement into its name, the version it pins and the comparator;
// a requirement that is a range (several clauses, <, !=, a wildcard) has no version.
func lowestVersion(s string) (name, version, comp string) {
	if reqUnsupported.MatchString(s) {
		for _, sep := range []string{"===", "==", ">=", "<=", "~=", "!=", "<"} {
			s, _, _ = strings.Cut(s, sep)
		}
		return strings.TrimSpace(s), "", ""
	}
	for _, sep := range []string{"===", "==", ">=", "<=", "~="} {
		if a, b, ok := strings.Cut(s, sep); ok {
			return strings.TrimSpace(a), strings.TrimSpace(b), sep
		}
	}
	return strings.TrimSpace(s), "", ""
}

// readPoetryLock reads poetry.lock's packages, each at its name line; an optional package is in
// the optional group, one of groups other than main in those.
func readPoetryLock(p string, content []byte) ([]Dependency, error) {
	var lock struct {
		Packages []struct {
			Name     string   `toml:"name"`
			Version  string   `toml:"version"`
			Optional bool     `toml:"optional"`
			Groups   []string `toml:"groups"`
		} `toml:"package"`
	}
	if err := toml.Unmarshal(content, &lock); err != nil {
		return nil, err
	}
	lines := packageLines(content, len(lock.Packages), func(i int) string { return lock.Packages[i].Name }, true)
	out := make([]Dependency, 0, len(lock.Packages))
	for i, pk := range lock.Packages {
		d := pyDep(p, pk.Name, pk.Version, pyPoetryLock, lines[i])
		switch {
		case pk.Optional:
			d.Scopes = []string{"optional"}
		case !slices.Contains(pk.Groups, "main"):
			d.Scopes = pk.Groups
		}
		out = append(out, d)
	}
	return out, nil
}

// packageLines is the line of the name of each of the count [[package]] tables of a TOML lock
// (name(i) the i-th's), in order (0 when it cannot be found); stopAtMetadata ends the search at
// poetry's [metadata] table.
func packageLines(content []byte, count int, name func(int) string, stopAtMetadata bool) []int {
	names := make([]string, count)
	for i := range names {
		names[i] = name(i)
	}
	lines := make([]int, count)
	sc := bufio.NewScanner(bytes.NewReader(content))
	i, in := 0, false
	for n := 1; sc.Scan() && i < len(names); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "[[package]]":
			in = true
			continue
		case stopAtMetadata && line == "[metadata]":
			return lines
		case in && strings.HasPrefix(line, "["):
			in = false
			continue
		case !in:
			continue
		}
		if name, ok := tomlName(line); ok && name == names[i] {
			lines[i] = n
			i++
			in = false
		}
	}
	return lines
}

// tomlName reads a name = "..." line.
func tomlName(line string) (string, bool) {
	if k, _, ok := strings.Cut(line, "="); !ok || !strings.HasPrefix(line, "name") || strings.TrimSpace(k) != "name" {
		return "", false
	}
	var v struct {
		Name string `toml:"name"`
	}
	if err := toml.Unmarshal([]byte(line), &v); err != nil {
		return "", false
	}
	return v.Name, true
}

// readPipfileLock reads Pipfile.lock's default and develop packages pinned with ==, each at its
// key's line in its group, the develop ones in the dev group.
func readPipfileLock(p string, content []byte) ([]Dependency, error) {
	if len(bytes.TrimSpace(content)) == 0 {
		return nil, nil
	}
	type pkg struct {
		Version string `json:"version"`
	}
	var lock struct {
		Default map[string]pkg `json:"default"`
		Develop map[string]pkg `json:"develop"`
	}
	if err := json.Unmarshal(content, &lock); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Dependency
	for _, g := range []struct {
		group, key string
		pkgs       map[string]pkg
	}{{"", "default", lock.Default}, {"dev", "develop", lock.Develop}} {
		for _, name := range sortedKeys(g.pkgs) {
			v := g.pkgs[name].Version
			if len(v) < 3 || !strings.HasPrefix(v, "==") || seen[name+"@"+v[2:]] {
				continue
			}
			seen[name+"@"+v[2:]] = true
			d := pyDep(p, name, v[2:], pyPipfileLock, pipfileLine(content, g.key, name))
			if g.group != "" {
				d.Scopes = []string{g.group}
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// pipfileLine is the line of "name": inside the group "key": of a Pipfile.lock, 0 when none.
func pipfileLine(content []byte, key, name string) int {
	sc := bufio.NewScanner(bytes.NewReader(content))
	group := ""
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(t, `"default":`):
			group = "default"
		case strings.HasPrefix(t, `"develop":`):
			group = "develop"
		case group == key && strings.HasPrefix(t, `"`+name+`":`):
			return n
		}
	}
	return 0
}

// readUVLock reads uv.lock's packages but the project itself (source virtual "."), each at its
// name line, in the optional-dependency groups of the last package (the project) that name it.
func readUVLock(p string, content []byte) ([]Dependency, error) {
	var lock struct {
		Packages []struct {
			Name    string `toml:"name"`
			Version string `toml:"version"`
			Source  struct {
				Virtual string `toml:"virtual"`
			} `toml:"source"`
			Groups map[string][]struct {
				Name string `toml:"name"`
			} `toml:"optional-dependencies"`
		} `toml:"package"`
	}
	if err := toml.Unmarshal(content, &lock); err != nil {
		return nil, err
	}
	lines := packageLines(content, len(lock.Packages), func(i int) string { return lock.Packages[i].Name }, false)
	var out []Dependency
	for i, pk := range lock.Packages {
		if pk.Source.Virtual == "." {
			continue
		}
		d := pyDep(p, pk.Name, pk.Version, pyUVLock, lines[i])
		for group, deps := range lock.Packages[len(lock.Packages)-1].Groups {
			for _, dep := range deps {
				if dep.Name == pk.Name {
					d.Scopes = append(d.Scopes, group)
				}
			}
		}
		sort.Strings(d.Scopes)
		out = append(out, d)
	}
	return out, nil
}

// readPyProject reads a pyproject.toml's [project] dependencies and optional dependencies (a
// project without a name declares none), each a requirement: a version when pinned with ==
// alone, else its range.
func readPyProject(p string, content []byte) ([]Dependency, error) {
	var f struct {
		Project struct {
			Name                 string              `toml:"name"`
			Dependencies         []string            `toml:"dependencies"`
			OptionalDependencies map[string][]string `toml:"optional-dependencies"`
		} `toml:"project"`
	}
	if err := toml.Unmarshal(content, &f); err != nil {
		return nil, fmt.Errorf("failed to parse pyproject.toml: %w", err)
	}
	if f.Project.Name == "" {
		return nil, nil
	}
	var out []Dependency
	add := func(req, scope string) {
		name, rng := splitRequirement(req)
		if name == "" {
			return
		}
		d := pyDep(p, name, "", pyProject, 0)
		d.Range, d.Direct = rng, Direct
		if v, ok := strings.CutPrefix(rng, "=="); ok && !strings.ContainsAny(v, ",*;") {
			d.Version, d.Range = strings.TrimSpace(v), ""
		}
		if scope != "" {
			d.Scopes = []string{scope}
		}
		out = append(out, d)
	}
	for _, r := range f.Project.Dependencies {
		add(r, "")
	}
	for _, g := range sortedKeys(f.Project.OptionalDependencies) {
		for _, r := range f.Project.OptionalDependencies[g] {
			add(r, g)
		}
	}
	slices.SortStableFunc(out, func(a, b Dependency) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

var setupRequirement = regexp.MustCompile(`['"]\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(==|>=|<=)\s*([\w.]+)`)

// readSetupPy reads the quoted requirements of a setup.py with a version (name==, >= or <=
// version), each at its line; comment lines and templated strings are left out.
func readSetupPy(p string, content []byte) ([]Dependency, error) {
	var out []Dependency
	sc := bufio.NewScanner(bytes.NewReader(content))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, m := range setupRequirement.FindAllStringSubmatch(line, -1) {
			if strings.Contains(m[0], "%s") || strings.ContainsAny(m[0], "%{}") {
				continue
			}
			out = append(out, pyDep(p, strings.TrimSpace(m[1]), strings.TrimSpace(m[3]), pySetup, n))
		}
	}
	return out, sc.Err()
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
