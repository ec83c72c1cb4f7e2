package deps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// npmLockName is the name Dependency.Extractor gives an npm lockfile's entries: osv-scalibr's
// extractor's, whose results npmLock gives.
const npmLockName = "javascript/packagelockjson"

// npmLock reads an npm lockfile (package-lock.json, npm-shrinkwrap.json) as a stream: the
// top-level keys one token at a time and each package's entry decoded alone, so that a lockfile
// of any size is read in memory bounded by its largest entry (and the dependencies found).
// lockfileVersion 2 and 3 list every installed package under "packages", keyed by its path in
// node_modules; version 1 nests them under "dependencies".
func npmLock(r io.Reader, manifest string) (deps []Dependency, read int64, err error) {
	lr := &lineReader{r: r}
	deps, err = readNPMLock(json.NewDecoder(lr), lr, manifest)
	return deps, lr.read, err
}

// readNPMLock is npmLock over its decoder and the line reader beneath it.
func readNPMLock(dec *json.Decoder, lr *lineReader, manifest string) ([]Dependency, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	set := npmSet{manifest: manifest}
	var v1 []Dependency
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return nil, err
		}
		switch key {
		case "packages":
			if err := set.packages(dec, lr); err != nil {
				return set.list(), fmt.Errorf("packages: %w", err) // what was read before the fault
			}
		case "dependencies":
			if set.seen { // version 2's copy for version 1 readers, after "packages"
				if err := skipValue(dec); err != nil {
					return nil, fmt.Errorf("dependencies: %w", err)
				}
				continue
			}
			d := npmSet{manifest: manifest}
			if err := d.dependencies(dec, lr); err != nil {
				return nil, fmt.Errorf("dependencies: %w", err)
			}
			v1 = d.list()
		default:
			if err := skipValue(dec); err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if set.seen { // "packages" describes the install; "dependencies" is its v1 copy
		return set.list(), nil
	}
	return v1, nil
}

// npmEntry is what a lockfile says of one installed package (both versions' fields).
type npmEntry struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Link        bool   `json:"link"`
	Dev         bool   `json:"dev"`
	DevOptional bool   `json:"devOptional"`
	Optional    bool   `json:"optional"`
	InBundle    bool   `json:"inBundle"`
}

// groups are the dependency groups of an entry, as npm marks them: bundled, dev, optional; none
// for a production dependency.
func (e npmEntry) groups() []string {
	var g []string
	if e.InBundle {
		g = append(g, "bundled")
	}
	switch {
	case e.DevOptional:
		g = append(g, "dev", "optional")
	default:
		if e.Dev {
			g = append(g, "dev")
		}
		if e.Optional {
			g = append(g, "optional")
		}
	}
	return g
}

// npmSet collects entries by name and version: the same package installed at several paths is
// one dependency, production when any copy is, else in every group of its copies.
type npmSet struct {
	manifest string
	order    []string
	byKey    map[string]*Dependency
	seen     bool
}

func (s *npmSet) add(name, version string, line int, groups []string) {
	if s.byKey == nil {
		s.byKey = map[string]*Dependency{}
	}
	k := name + "@" + version
	if d := s.byKey[k]; d != nil {
		if len(d.Scopes) == 0 || len(groups) == 0 {
			d.Scopes = nil
		} else {
			d.Scopes = append(d.Scopes, groups...)
			slices.Sort(d.Scopes)
			d.Scopes = slices.Compact(d.Scopes)
		}
		d.Line = min(d.Line, line)
		return
	}
	s.order = append(s.order, k)
	s.byKey[k] = &Dependency{Ecosystem: "npm", Name: name, Version: version, Manifest: s.manifest, Line: line,
		Module: path.Dir(s.manifest), Scopes: groups, Extractor: npmLockName}
}

func (s *npmSet) list() []Dependency {
	out := make([]Dependency, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, *s.byKey[k])
	}
	return out
}

// packages reads lockfileVersion 2+'s "packages": path -> entry. The root ("") and links to
// workspaces are not dependencies; a package's name is its entry's (an alias's real name), else
// the last element of its path (with its @scope).
func (s *npmSet) packages(dec *json.Decoder, lr *lineReader) error {
	s.seen = true
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		p, err := stringToken(dec)
		if err != nil {
			return err
		}
		line := lr.lineAt(dec.InputOffset())
		var e npmEntry
		if err := dec.Decode(&e); err != nil {
			return fmt.Errorf("%q: %w", p, err)
		}
		if p == "" || e.Link {
			continue
		}
		name := e.Name
		if name == "" {
			name = npmPathName(p)
		}
		s.add(name, npmVersion(e.Version), line, e.groups())
	}
	_, err := dec.Token()
	return err
}

// npmV1Entry is a lockfileVersion 1 dependency: its nested dependencies are read after it.
type npmV1Entry struct {
	Version  string `json:"version"`
	Dev      bool   `json:"dev"`
	Optional bool   `json:"optional"`
}

// dependencies reads lockfileVersion 1's nested "dependencies": name -> entry, each entry's own
// "dependencies" read the same way (token by token, so that depth costs no memory).
func (s *npmSet) dependencies(dec *json.Decoder, lr *lineReader) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		name, err := stringToken(dec)
		if err != nil {
			return err
		}
		line := lr.lineAt(dec.InputOffset())
		if err := expectDelim(dec, '{'); err != nil {
			return fmt.Errorf("%q: %w", name, err)
		}
		var e npmV1Entry
		for dec.More() {
			field, err := stringToken(dec)
			if err != nil {
				return err
			}
			switch field {
			case "version":
				err = dec.Decode(&e.Version)
			case "dev":
				err = dec.Decode(&e.Dev)
			case "optional":
				err = dec.Decode(&e.Optional)
			case "dependencies":
				err = s.dependencies(dec, lr)
			default:
				err = skipValue(dec)
			}
			if err != nil {
				return fmt.Errorf("%q: %s: %w", name, field, err)
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		version := e.Version
		if real, ok := strings.CutPrefix(version, "npm:"); ok { // an alias: npm:real-name@version
			if i := strings.LastIndexByte(real, '@'); i > 0 {
				name, version = real[:i], real[i+1:]
			}
		}
		var groups []string
		if e.Dev {
			groups = append(groups, "dev")
		}
		if e.Optional {
			groups = append(groups, "optional")
		}
		s.add(name, npmVersion(version), line, groups)
	}
	_, err := dec.Token()
	return err
}

// npmPathName is the package name at a node_modules path: its last element, with the scope
// before it ("node_modules/@babel/core" -> "@babel/core").
func npmPathName(p string) string {
	name := path.Base(p)
	if scope := path.Base(path.Dir(p)); strings.HasPrefix(scope, "@") {
		name = scope + "/" + name
	}
	return name
}

// npmVersion is a lockfile version that names a version; "" for what only names a source (a
// file: path, a git or tarball URL: no version to compare with an advisory's ranges).
func npmVersion(v string) string {
	if v == "" || strings.ContainsAny(v, ":/#") {
		return ""
	}
	return v
}

// skipValue reads past the next value, token by token: nothing of it is kept.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, tok)
	}
	return nil
}

func stringToken(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("expected a key, found %v", tok)
	}
	return s, nil
}

// lineReader counts the lines of what its reader gave, keeping only the recent chunks, so that
// the line of an offset the decoder has just read past can be told without keeping the file.
type lineReader struct {
	r      io.Reader
	read   int64   // bytes read so far
	chunks []chunk // the chunks read since the last offset asked, oldest first
}

type chunk struct {
	start int64
	lines int // newlines before start
	data  []byte
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		lines := 0
		if k := len(l.chunks); k > 0 {
			last := l.chunks[k-1]
			lines = last.lines + bytes.Count(last.data, []byte("\n"))
		}
		l.chunks = append(l.chunks, chunk{start: l.read, lines: lines, data: bytes.Clone(p[:n])})
		l.read += int64(n)
	}
	if errors.Is(err, io.EOF) {
		return n, io.EOF
	}
	return n, err
}

// lineAt is the 1-based line of offset off, which must not precede an offset asked before;
// chunks wholly before it are let go.
func (l *lineReader) lineAt(off int64) int {
	for len(l.chunks) > 1 && l.chunks[1].start <= off {
		l.chunks = l.chunks[1:]
	}
	if len(l.chunks) == 0 {
		return 1
	}
	c := l.chunks[0]
	end := min(int(off-c.start), len(c.data))
	return 1 + c.lines + bytes.Count(c.data[:max(0, end)], []byte("\n"))
}
