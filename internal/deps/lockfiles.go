package deps

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// The readers ExtractFile alone runs (the mining of a repository's history reads one file at a
// time): yarn.lock (v1 and Berry), pnpm-lock.yaml (lockfile versions 5 to 9) and Gradle's version
// catalogs, each reading what osv-scalibr v0.5.3's extractor of the file reads (a test compares
// them on scalibr's test files).

const (
	npmYarnLock         = "javascript/yarnlock"
	npmPnpmLock         = "javascript/pnpmlock"
	javaVersionCatalog  = "java/gradleversioncatalog"
	maxLockfileLineSize = 4 << 20
)

var (
	// yarnVersionRE is an entry's version: `  version "1.2.3"` (v1) or `  version: 1.2.3` (Berry).
	yarnVersionRE = regexp.MustCompile(`^ {2}"?version"?:? "?([\w-.+]+)"?$`)
)

// readYarnLock reads a yarn.lock: one package per entry (its header's first descriptor names it;
// an npm: alias names the package it aliases), at the header's line, with the version the entry
// resolved. Berry's __metadata and the workspace's own root entry are none.
func readYarnLock(p string, content []byte) ([]Dependency, error) {
	type entry struct {
		header string
		line   int
		props  []string
	}
	var entries []*entry
	var cur *entry
	sc := bufio.NewScanner(bytes.NewReader(content))
	sc.Buffer(make([]byte, 64<<10), maxLockfileLineSize)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		switch {
		case !strings.HasPrefix(line, " "):
			cur = &entry{header: line, line: n}
			entries = append(entries, cur)
		case cur == nil:
			return nil, fmt.Errorf("%s:%d: malformed yarn.lock: a property before any entry", p, n)
		default:
			cur.props = append(cur.props, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out []Dependency
	for _, e := range entries {
		if e.header == "__metadata:" || strings.HasSuffix(e.header, "@workspace:.\":") {
			continue
		}
		d := Dependency{Ecosystem: "npm", Name: yarnName(e.header), Manifest: p, Line: e.line, Module: path.Dir(p), Extractor: npmYarnLock}
		for _, prop := range e.props {
			if m := yarnVersionRE.FindStringSubmatch(prop); m != nil {
				d.Version = m[1]
				break
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// yarnName is the package an entry's header names: its first descriptor's name
// (@scope/name@range, name@npm:other@range: other).
func yarnName(header string) string {
	s := strings.TrimSuffix(strings.TrimPrefix(header, `"`), ":")
	s, _, _ = strings.Cut(s, ",")
	s, scoped := strings.CutPrefix(s, "@")
	name, rest, _ := strings.Cut(s, "@")
	if alias, ok := strings.CutPrefix(rest, "npm:"); ok && strings.Contains(alias, "@") {
		return yarnName(alias)
	}
	if scoped {
		return "@" + name
	}
	return name
}

// pnpmPackage is what a pnpm-lock.yaml says of one package.
type pnpmPackage struct {
	Name    string `yaml:"name"`
	Version string `yaml:"version"`
	Dev     bool   `yaml:"dev"`
}

var (
	pnpmNameVersionRE = regexp.MustCompile(`^(.+)@([\w.-]+)(?:\(|$)`)
	startsWithDigit   = regexp.MustCompile(`^\d`)
)

// readPnpmLock reads every YAML document of a pnpm-lock.yaml: each key of packages is one
// package at that key's line, named and versioned by the key (/name/version before lockfile
// version 6, /name@version in 6, name@version from 9; peer suffixes dropped) unless its entry
// says; local (file:) and versionless keys are none; dev packages are in the dev group.
func readPnpmLock(p string, content []byte) ([]Dependency, error) {
	dec := yaml.NewDecoder(bytes.NewReader(content))
	out := []Dependency{}
	var errs []error
	for {
		var root yaml.Node
		if err := dec.Decode(&root); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		var lock struct {
			Version  string                 `yaml:"lockfileVersion"`
			Packages map[string]pnpmPackage `yaml:"packages"`
		}
		if err := root.Decode(&lock); err != nil {
			return nil, err
		}
		version, err := strconv.ParseFloat(lock.Version, 64)
		if err != nil {
			return nil, err
		}
		lines := map[string]int{}
		if len(root.Content) > 0 && root.Content[0].Kind == yaml.MappingNode {
			doc := root.Content[0]
			for i := 0; i+1 < len(doc.Content); i += 2 {
				if doc.Content[i].Value == "packages" && doc.Content[i+1].Kind == yaml.MappingNode {
					pk := doc.Content[i+1]
					for j := 0; j < len(pk.Content); j += 2 {
						lines[pk.Content[j].Value] = pk.Content[j].Line
					}
					break
				}
			}
		}
		for key, pkg := range lock.Packages {
			name, ver, err := pnpmKey(key, version)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if pkg.Name != "" {
				name = pkg.Name
			}
			if pkg.Version != "" {
				ver = pkg.Version
			}
			if name == "" || ver == "" {
				continue
			}
			d := Dependency{Ecosystem: "npm", Name: name, Version: ver, Manifest: p, Line: lines[key], Module: path.Dir(p), Extractor: npmPnpmLock}
			if pkg.Dev {
				d.Scopes = []string{"dev"}
			}
			out = append(out, d)
		}
	}
	return out, errors.Join(errs...)
}

// pnpmKey reads a packages key of a lockfile of version v.
func pnpmKey(key string, v float64) (name, version string, err error) {
	if strings.HasPrefix(key, "file:") {
		return "", "", nil
	}
	if v >= 9 {
		key, scoped := strings.CutPrefix(strings.Trim(key, "'"), "@")
		name, version, _ = strings.Cut(key, "@")
		if scoped {
			name = "@" + name
		}
		return name, version, nil
	}
	parts := strings.Split(key, "/")
	if len(parts) < 2 {
		return "", "", fmt.Errorf("invalid dependency path: %v", key)
	}
	parts = parts[1:]
	switch {
	case strings.HasPrefix(parts[0], "@") && len(parts) >= 2:
		name, parts = parts[0]+"/"+parts[1], parts[2:]
	default:
		name, parts = parts[0], parts[1:]
	}
	if len(parts) > 0 {
		version = parts[0]
	}
	if version == "" {
		if m := pnpmNameVersionRE.FindStringSubmatch(name); m != nil {
			name, version = m[1], m[2]
		} else {
			version = ""
		}
	}
	if version == "" || !startsWithDigit.MatchString(version) {
		return "", "", nil
	}
	version, _, _ = strings.Cut(version, "_")
	return name, version, nil
}

// readVersionCatalog reads a Gradle version catalog's libraries: "group:artifact[:version]", or
// a table with module or group and name, and a version given as a string, a reference to
// [versions], or strictly, require or prefer. No line: the catalog's own lines are found later.
func readVersionCatalog(p string, content []byte) ([]Dependency, error) {
	var cat struct {
		Versions  map[string]string `toml:"versions"`
		Libraries map[string]any    `toml:"libraries"`
	}
	if _, err := toml.NewDecoder(bytes.NewReader(content)).Decode(&cat); err != nil {
		return nil, fmt.Errorf("failed to parse %q: %w", p, err)
	}
	var out []Dependency
	for _, raw := range cat.Libraries {
		group, artifact, version, ok := catalogLibrary(raw, cat.Versions)
		if ok {
			out = append(out, Dependency{Ecosystem: "Maven", Name: group + ":" + artifact, Version: version, Manifest: p, Module: path.Dir(p), Extractor: javaVersionCatalog})
		}
	}
	return out, nil
}

func catalogLibrary(raw any, versions map[string]string) (group, artifact, version string, ok bool) {
	switch v := raw.(type) {
	case string:
		parts := strings.SplitN(v, ":", 3)
		if len(parts) < 2 {
			return "", "", "", false
		}
		if len(parts) == 3 {
			version = parts[2]
		}
		return parts[0], parts[1], version, true
	case map[string]any:
		if module, ok := v["module"].(string); ok {
			group, artifact, ok = strings.Cut(module, ":")
			if !ok {
				return "", "", "", false
			}
		} else if g, ok := v["group"].(string); ok {
			if artifact, ok = v["name"].(string); !ok {
				return "", "", "", false
			}
			group = g
		} else {
			return "", "", "", false
		}
		switch ver := v["version"].(type) {
		case string:
			version = ver
		case map[string]any:
			for _, k := range []string{"ref", "strictly", "require", "prefer"} {
				if s, ok := ver[k].(string); ok {
					if k == "ref" {
						s = versions[s]
					}
					version = s
					break
				}
			}
		}
		return group, artifact, version, true
	}
	return "", "", "", false
}
