package deps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// The parsers of the manifests osv-scalibr reads no dependencies from: package.json (scalibr
// reads the package itself), build.gradle(.kts) and setup.cfg.

const (
	ownPackageJSON = "vulnbench/packagejson"
	ownGradle      = "vulnbench/gradlebuild"
	ownSetupCfg    = "vulnbench/setupcfg"
)

// packageJSON reads the dependencies of every kind a package.json declares, each as the range
// written (an exact version as Version).
func packageJSON(p string, content []byte) ([]Dependency, error) {
	var pj map[string]json.RawMessage
	if err := json.Unmarshal(content, &pj); err != nil {
		return nil, &Problem{File: p, Extractor: ownPackageJSON, Err: fmt.Errorf("not a JSON object: %w", err)}
	}
	var out []Dependency
	for _, k := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"} {
		raw, ok := pj[k]
		if !ok {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, &Problem{File: p, Extractor: ownPackageJSON, Err: fmt.Errorf("%q is not an object of names", k)}
		}
		for name, v := range m {
			spec, ok := v.(string)
			if !ok {
				continue
			}
			d := Dependency{Ecosystem: "npm", Name: name, Manifest: p, Module: path.Dir(p), Direct: Direct, Extractor: ownPackageJSON}
			if k != "dependencies" {
				d.Scopes = []string{strings.TrimSuffix(k, "Dependencies")}
			}
			spec = strings.TrimSpace(spec)
			if npmExact.MatchString(spec) {
				d.Version = strings.TrimPrefix(strings.TrimPrefix(spec, "="), "v")
			} else {
				d.Range = spec
			}
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b Dependency) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// npmExact is a version an npm range names exactly: 1.2.3, =1.2.3, v1.2.3-beta.1.
var npmExact = regexp.MustCompile(`^=?v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

var (
	// gradleCoord is a "group:artifact:version" string literal (a classifier or @type may follow).
	gradleCoord = regexp.MustCompile(`["']([A-Za-z0-9_.\-]+):([A-Za-z0-9_.\-]+):([^"':@\s]+)(:[^"'@\s]+)?(@[A-Za-z0-9]+)?["']`)
	// gradleMap is the map notation: group: 'g', name: 'a', version: 'v' (or group = "g", ...).
	gradleMap = regexp.MustCompile(`group\s*[:=]\s*["']([^"']+)["']\s*,\s*name\s*[:=]\s*["']([^"']+)["']\s*,\s*version\s*[:=]\s*["']([^"']+)["']`)
	// gradleVar is a variable a version may name: def x = '1.2', val x = "1.2", x = '1.2' (ext).
	gradleVar = regexp.MustCompile(`(?m)^\s*(?:def\s+|val\s+|var\s+|set\(\s*)?["']?([A-Za-z_][A-Za-z0-9_.]*)["']?\s*[=,]\s*["']([0-9][^"'\s]*)["']`)
)

// gradleBuild reads the dependency coordinates a Gradle build script writes as string literals
// (and in map notation), a version naming a variable ($x, ${x}) resolved from the script's own
// assignments; others (from another file, a plugin) are left out.
func gradleBuild(p string, content []byte) []Dependency {
	vars := map[string]string{}
	for _, m := range gradleVar.FindAllSubmatch(content, -1) {
		vars[string(m[1])] = string(m[2])
	}
	resolve := func(v string) (string, bool) {
		if !strings.HasPrefix(v, "$") {
			return v, true
		}
		name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(v, "$"), "{"), "}")
		x, ok := vars[name]
		return x, ok
	}
	var out []Dependency
	seen := map[string]bool{}
	add := func(line int, group, artifact, version string) {
		v, ok := resolve(version)
		if !ok || group == "" || artifact == "" {
			return
		}
		name := group + ":" + artifact
		if seen[name+"@"+v] {
			return
		}
		seen[name+"@"+v] = true
		d := Dependency{Ecosystem: "Maven", Name: name, Manifest: p, Module: path.Dir(p), Line: line, Direct: Direct, Extractor: ownGradle}
		if strings.ContainsAny(v, "[](),+") {
			d.Range = v
		} else {
			d.Version = v
		}
		out = append(out, d)
	}
	for i, line := range bytes.Split(content, []byte("\n")) {
		if t := bytes.TrimSpace(line); bytes.HasPrefix(t, []byte("//")) || bytes.HasPrefix(t, []byte("*")) {
			continue
		}
		for _, m := range gradleCoord.FindAllSubmatch(line, -1) {
			add(i+1, string(m[1]), string(m[2]), string(m[3]))
		}
		for _, m := range gradleMap.FindAllSubmatch(line, -1) {
			add(i+1, string(m[1]), string(m[2]), string(m[3]))
		}
	}
	return out
}

// setupCfg reads setup.cfg's [options] install_requires and [options.extras_require] lists (one
// requirement a line, or on the key's own line), each a PEP 508 requirement.
func setupCfg(p string, content []byte) []Dependency {
	var out []Dependency
	section, key := "", ""
	for i, raw := range strings.Split(string(content), "\n") {
		line := strings.TrimRight(raw, "\r")
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
			continue
		}
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			section, key = strings.ToLower(strings.Trim(t, "[] ")), ""
			continue
		}
		value := t
		if line[0] != ' ' && line[0] != '\t' { // a new key
			k, v, ok := strings.Cut(t, "=")
			if !ok {
				k, v, ok = strings.Cut(t, ":")
			}
			if !ok {
				key = ""
				continue
			}
			key, value = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		}
		scope := ""
		switch {
		case section == "options" && key == "install_requires":
		case section == "options.extras_require" && key != "":
			scope = key
		default:
			continue
		}
		name, rng := splitRequirement(value)
		if name == "" {
			continue
		}
		d := Dependency{Ecosystem: "PyPI", Name: name, Range: rng, Manifest: p, Module: path.Dir(p), Line: i + 1, Direct: Direct, Extractor: ownSetupCfg}
		if v, ok := strings.CutPrefix(rng, "=="); ok && !strings.ContainsAny(v, ",*;") {
			d.Version, d.Range = strings.TrimSpace(v), ""
		}
		if scope != "" {
			d.Scopes = []string{scope}
		}
		out = append(out, d)
	}
	return out
}

// Floor is the version a dependency declares: its pinned version, else the lowest version its
// range allows (>=X, ~=X, ==X.*, ^X, ~X, [X,...), X - Y, a bare X); ranged is true when it came
// from a range. "" when there is none (no lower bound, an alternation, a URL or a tag).
func Floor(d Dependency) (version string, ranged bool) {
	if d.Version != "" {
		return d.Version, false
	}
	r := strings.TrimSpace(d.Range)
	if r == "" || strings.Contains(r, "||") || strings.Contains(r, "://") {
		return "", false
	}
	if d.Ecosystem == "Maven" {
		if strings.HasPrefix(r, "[") {
			lo, _, _ := strings.Cut(strings.TrimPrefix(r, "["), ",")
			return strings.TrimSpace(lo), true
		}
		return "", false
	}
	best := ""
	for _, part := range strings.FieldsFunc(r, func(c rune) bool { return c == ',' || c == ' ' }) {
		part = strings.TrimSpace(part)
		for _, op := range []string{"===", ">=", "~=", "==", "^", "~", "="} {
			if v, ok := strings.CutPrefix(part, op); ok {
				v = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(v), ".*"), ".x")
				if v != "" && v[0] >= '0' && v[0] <= '9' || strings.HasPrefix(v, "v") && len(v) > 1 {
					best = strings.TrimPrefix(v, "v")
				}
				break
			}
		}
		if best != "" {
			break
		}
		if part != "" && part[0] >= '0' && part[0] <= '9' && d.Ecosystem == "npm" { // "1.2.3 - 2.0.0", or a bare 1.2
			best = part
			break
		}
	}
	return best, best != ""
}
