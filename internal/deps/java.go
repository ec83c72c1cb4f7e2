package deps

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The readers of Java manifests: pom.xml (with its local parents) and Gradle lockfiles.

const (
	javaPom    = "java/pomxml"
	javaGradle = "java/gradlelockfile"
	maxParents = 100
)

// pomDep is a dependency as a POM writes it.
type pomDep struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Type       string `xml:"type"`
	Classifier string `xml:"classifier"`
	Scope      string `xml:"scope"`
	offset     int64  // where its element starts in the file, for its line
}

func (d *pomDep) UnmarshalXML(dec *xml.Decoder, start xml.StartElement) error {
	d.offset = dec.InputOffset()
	type plain pomDep
	var p plain
	if err := dec.DecodeElement(&p, &start); err != nil {
		return err
	}
	p.offset, p.GroupID, p.ArtifactID, p.Version = d.offset, strings.TrimSpace(p.GroupID), strings.TrimSpace(p.ArtifactID), strings.TrimSpace(p.Version)
	p.Type, p.Classifier, p.Scope = strings.TrimSpace(p.Type), strings.TrimSpace(p.Classifier), strings.TrimSpace(p.Scope)
	*d = pomDep(p)
	return nil
}

// key is what makes two dependencies one (Maven's: the type defaults to jar).
func (d pomDep) key() [4]string {
	t := d.Type
	if t == "" {
		t = "jar"
	}
	return [4]string{d.GroupID, d.ArtifactID, t, d.Classifier}
}

// pomProps are a POM's properties, in the order written.
type pomProps [][2]string

func (p *pomProps) UnmarshalXML(dec *xml.Decoder, _ xml.StartElement) error {
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			var v string
			if err := dec.DecodeElement(&v, &t); err != nil {
				return err
			}
			*p = append(*p, [2]string{t.Name.Local, strings.TrimSpace(v)})
		case xml.EndElement:
			return nil
		}
	}
}

type pomProfile struct {
	ActiveByDefault string   `xml:"activation>activeByDefault"`
	Properties      pomProps `xml:"properties"`
	Managed         []pomDep `xml:"dependencyManagement>dependencies>dependency"`
	Deps            []pomDep `xml:"dependencies>dependency"`
}

type pomParent struct {
	GroupID      string `xml:"groupId"`
	ArtifactID   string `xml:"artifactId"`
	Version      string `xml:"version"`
	RelativePath string `xml:"relativePath"`
}

func (p pomParent) complete() bool { return p.GroupID != "" && p.ArtifactID != "" && p.Version != "" }

// pom is what is read of a project object model.
type pom struct {
	GroupID    string       `xml:"groupId"`
	ArtifactID string       `xml:"artifactId"`
	Version    string       `xml:"version"`
	Packaging  string       `xml:"packaging"`
	Parent     pomParent    `xml:"parent"`
	Properties pomProps     `xml:"properties"`
	Managed    []pomDep     `xml:"dependencyManagement>dependencies>dependency"`
	Deps       []pomDep     `xml:"dependencies>dependency"`
	Profiles   []pomProfile `xml:"profiles>profile"`
}

// decodePOM reads a POM (UTF-8, or a Latin-1 or ASCII declared encoding; HTML's entities).
func decodePOM(r io.Reader, v any) error {
	dec := xml.NewDecoder(r)
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return in, nil
		case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "windows-1252", "cp1252":
			return latin1{bufio.NewReader(in)}, nil
		}
		return nil, fmt.Errorf("unsupported charset: %q", label)
	}
	return dec.Decode(v)
}

// latin1 reads Latin-1 as UTF-8.
type latin1 struct{ r *bufio.Reader }

func (l latin1) Read(p []byte) (int, error) {
	n := 0
	for n+utf8.UTFMax <= len(p) {
		b, err := l.r.ReadByte()
		if err != nil {
			return n, err
		}
		n += utf8.EncodeRune(p[n:], rune(b))
	}
	return n, nil
}

// properties are the values ${...} may name: the project's properties, then its coordinates.
func (p *pom) properties() map[string]string {
	m := map[string]string{}
	for _, kv := range p.Properties {
		m[kv[0]] = kv[1]
	}
	add := func(k, v string) {
		if v == "" {
			return
		}
		if _, ok := m[k]; !ok {
			m[k] = v
		}
		m["pom."+k], m["project."+k] = v, v
	}
	add("groupId", p.GroupID)
	add("version", p.Version)
	add("parent.groupId", p.Parent.GroupID)
	add("parent.version", p.Parent.Version)
	return m
}

// interpolate fills ${...} in the dependencies; one with a name left unresolved, or without
// its group or artifact, is left out.
func (p *pom) interpolate() {
	props := p.properties()
	fill := func(deps []pomDep) []pomDep {
		var out []pomDep
		for _, d := range deps {
			if d.GroupID == "" || d.ArtifactID == "" {
				continue
			}
			ok := true
			for _, s := range []*string{&d.GroupID, &d.ArtifactID, &d.Version, &d.Type, &d.Classifier, &d.Scope} {
				var resolved bool
				*s, resolved = interpolate(*s, props, map[string]bool{})
				ok = ok && resolved
			}
			if ok {
				out = append(out, d)
			}
		}
		return out
	}
	p.Deps, p.Managed = fill(p.Deps), fill(p.Managed)
}

// interpolate replaces each ${name} of s by its value in props (recursively); false when a name
// has none or refers to itself.
func interpolate(s string, props map[string]string, resolving map[string]bool) (string, bool) {
	ok := true
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "}")
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		key := s[2:j]
		if resolving[key] {
			ok = false
			break
		}
		resolving[key] = true
		if v, found := props[key]; found {
			v, vok := interpolate(v, props, resolving)
			ok = ok && vok
			b.WriteString(v)
		} else {
			b.WriteString(s[:j+1])
			ok = false
		}
		resolving[key] = false
		s = s[j+1:]
	}
	b.WriteString(s)
	return b.String(), ok
}

// mergeParent adds what parent gives p: its coordinates where p has none, its properties and
// managed versions p does not set, its dependencies.
func (p *pom) mergeParent(parent pom) {
	if p.GroupID == "" {
		p.GroupID = parent.GroupID
	}
	if p.Version == "" {
		p.Version = parent.Version
	}
	have := map[string]bool{}
	for _, kv := range p.Properties {
		have[kv[0]] = true
	}
	for _, kv := range parent.Properties {
		if !have[kv[0]] {
			p.Properties = append(p.Properties, kv)
		}
	}
	p.Managed = append(p.Managed, parent.Managed...)
	p.Deps = append(p.Deps, parent.Deps...)
}

// mergeProfiles adds the profiles active by default.
func (p *pom) mergeProfiles() {
	for _, prof := range p.Profiles {
		if strings.ToLower(strings.TrimSpace(prof.ActiveByDefault)) != "true" {
			continue
		}
		props := prof.Properties
		have := map[string]bool{}
		for _, kv := range props {
			have[kv[0]] = true
		}
		for _, kv := range p.Properties {
			if !have[kv[0]] {
				props = append(props, kv)
			}
		}
		p.Properties = props
		p.Managed = append(p.Managed, prof.Managed...)
		p.Deps = append(p.Deps, prof.Deps...)
	}
}

// versionRequirement is the first version of a Maven requirement ("1.2", "[1.2,2.0)" → 1.2).
var versionRequirement = regexp.MustCompile(`[[(]?(.*?)(?:,|[)\]]|$)`)

// readPOM reads pom.xml (or a .pom): its dependencies after its properties are filled in, its
// local parents (relativePath, else ../pom.xml) merged and its managed versions applied, each
// at the line of its element; a scope other than compile is its scope.
func readPOM(fsys fs.FS, p string, content []byte) ([]Dependency, error) {
	var project pom
	if err := decodePOM(bytes.NewReader(content), &project); err != nil {
		return nil, fmt.Errorf("could not extract pom from %s: %w", p, err)
	}
	raw := rawDeps(content, project)
	project.interpolate()
	if err := mergeParents(fsys, p, &project); err != nil {
		return nil, err
	}
	deps := processDeps(project)
	used := map[int]bool{}
	parentLine := tagLine(content, "parent")
	byName := map[string]int{}
	var out []Dependency
	for _, d := range deps {
		name := d.GroupID + ":" + d.ArtifactID
		dep := Dependency{Ecosystem: "Maven", Name: name, Manifest: p, Module: path.Dir(p), Extractor: javaPom,
			Line: pomLine(raw, used, d, parentLine)}
		if m := versionRequirement.FindStringSubmatch(d.Version); m != nil {
			dep.Version = m[1]
		}
		if d.Scope != "" && d.Scope != "compile" {
			dep.Scopes = []string{d.Scope}
		}
		if i, ok := byName[name]; ok { // one entry a name: the last written wins
			out[i] = dep
			continue
		}
		byName[name] = len(out)
		out = append(out, dep)
	}
	return out, nil
}

// mergeParents merges p's parents found beside it (each where its child's relativePath, else
// ../pom.xml, says; a POM of the declared coordinates and packaging pom), the default profiles
// once a parent is declared, and fills the properties in again.
func mergeParents(fsys fs.FS, at string, p *pom) error {
	current := p.Parent
	visited := map[[3]string]bool{}
	local := true
	for n := 1; n < maxParents && current.complete(); n++ {
		k := [3]string{current.GroupID, current.ArtifactID, current.Version}
		if visited[k] {
			return errors.New("a cycle of parents is detected")
		}
		visited[k] = true
		var parent pom
		found := false
		if local {
			pp := parentPath(fsys, at, current.RelativePath)
			if pp != "" {
				f, err := fsys.Open(pp)
				if err != nil {
					return fmt.Errorf("failed to load parent at %s: %w", at, err)
				}
				err = decodePOM(f, &parent)
				f.Close()
				if err != nil {
					return fmt.Errorf("failed to load parent at %s: failed to unmarshal project: %w", at, err)
				}
				if parent.GroupID == current.GroupID && parent.ArtifactID == current.ArtifactID && parent.Version == current.Version && parent.Packaging == "pom" {
					found, at = true, pp
				} else {
					parent = pom{}
				}
			}
		}
		if !found {
			local = false // no registry is asked: a parent not beside its child adds nothing
		}
		p.mergeProfiles()
		p.mergeParent(parent)
		current = parent.Parent
	}
	p.interpolate()
	return nil
}

// parentPath is where a parent POM named by relativePath (default ../pom.xml) from the POM at
// child is, or "" when nothing is there.
func parentPath(fsys fs.FS, child, relativePath string) string {
	if relativePath == "" {
		relativePath = "../pom.xml"
	}
	p := path.Join(path.Dir(child), relativePath)
	info, err := fs.Stat(fsys, p)
	if err != nil {
		return ""
	}
	if !info.IsDir() {
		return p
	}
	p = path.Join(p, "pom.xml")
	if _, err := fs.Stat(fsys, p); err == nil {
		return p
	}
	return ""
}

// processDeps are p's dependencies, one a key (the first), each with the version and scope the
// managed dependencies give it where it sets none.
func processDeps(p pom) []pomDep {
	managed := map[[4]string]pomDep{}
	for _, m := range p.Managed {
		if m.Scope == "import" {
			continue
		}
		if _, ok := managed[m.key()]; !ok {
			managed[m.key()] = m
		}
	}
	seen := map[[4]string]bool{}
	var out []pomDep
	for _, d := range p.Deps {
		if seen[d.key()] {
			continue
		}
		seen[d.key()] = true
		if m, ok := managed[d.key()]; ok {
			if d.Version == "" {
				d.Version = m.Version
			}
			if d.Scope == "" {
				d.Scope = m.Scope
			}
		}
		out = append(out, d)
	}
	return out
}

// rawLine is a dependency element as written, at its line.
type rawLine struct {
	dep  pomDep
	line int
}

// rawDeps are the dependency elements of the POM and its profiles as written, each at its line.
func rawDeps(content []byte, p pom) []rawLine {
	all := slices.Clone(p.Deps)
	for _, prof := range p.Profiles {
		all = append(all, prof.Deps...)
	}
	slices.SortFunc(all, func(a, b pomDep) int { return int(a.offset - b.offset) })
	out := make([]rawLine, len(all))
	off, line := int64(0), 1
	for i, d := range all {
		line += bytes.Count(content[off:d.offset], []byte{'\n'})
		off = d.offset
		out[i] = rawLine{d, line}
	}
	return out
}

// pomLine is the line of the element d was read from: one written as it resolved, else the one
// element whose placeholders could have resolved to it, else the parent's line (d came from it).
func pomLine(raw []rawLine, used map[int]bool, d pomDep, parentLine int) int {
	for i, r := range raw {
		w := r.dep
		if used[i] || (w.Version != "" && (strings.Contains(w.Version, "${") || w.Version != d.Version)) {
			continue
		}
		if w.GroupID == d.GroupID && w.ArtifactID == d.ArtifactID && w.key()[2] == d.key()[2] && w.Classifier == d.Classifier {
			used[i] = true
			return r.line
		}
	}
	var candidates []int
	for i, r := range raw {
		w := r.dep
		if !used[i] && placeholderOf(w.GroupID, d.GroupID) && placeholderOf(w.ArtifactID, d.ArtifactID) &&
			(w.Version == "" || placeholderOf(w.Version, d.Version)) {
			candidates = append(candidates, i)
		}
	}
	if len(candidates) == 1 {
		used[candidates[0]] = true
		return raw[candidates[0]].line
	}
	return parentLine
}

// placeholderOf says whether raw, with one ${...} in it, could have resolved to resolved.
func placeholderOf(raw, resolved string) bool {
	if raw == resolved {
		return true
	}
	start, end := strings.Index(raw, "${"), strings.Index(raw, "}")
	if start < 0 || end < start {
		return false
	}
	prefix, suffix := raw[:start], raw[end+1:]
	return len(resolved) >= len(prefix)+len(suffix) && strings.HasPrefix(resolved, prefix) && strings.HasSuffix(resolved, suffix)
}

// tagLine is the line of the first element named name, or 0.
func tagLine(content []byte, name string) int {
	dec := xml.NewDecoder(bytes.NewReader(content))
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == name {
			return bytes.Count(content[:dec.InputOffset()], []byte{'\n'}) + 1
		}
	}
}

// readGradleLock reads a Gradle lockfile: group:artifact:version=configurations a line, at its
// line; comments, the empty= line and what is not such a line are left out.
func readGradleLock(p string, content []byte) ([]Dependency, error) {
	var out []Dependency
	sc := bufio.NewScanner(bytes.NewReader(content))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "empty=") {
			continue
		}
		parts := strings.SplitN(line, ":", 3)
		if len(parts) < 3 || !strings.Contains(parts[2], "=") {
			continue
		}
		version, _, _ := strings.Cut(parts[2], "=")
		out = append(out, Dependency{Ecosystem: "Maven", Name: parts[0] + ":" + parts[1], Version: version, Manifest: p, Line: n,
			Module: path.Dir(p), Extractor: javaGradle})
	}
	return out, sc.Err()
}
