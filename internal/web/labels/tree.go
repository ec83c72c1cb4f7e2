package labels

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/label"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// treeView is what a case page shows of the case's snapshot: a directory, a file, or the lines a
// search matched.
type treeView struct {
	Available bool
	Why       string // why the code is not shown
	Dir       string
	Crumbs    []crumb
	Entries   []entry
	More      int // entries or matches not shown
	File      string
	Lines     []codeLine
	Note      string // a file cut short, binary
	Query     string
	Matches   []match
}

type crumb struct{ Name, Path string }

type entry struct {
	Name, Path string
	Dir, Link  bool
	Size       int64
}

type codeLine struct {
	N    int
	Text string
	Mark bool
}

type match struct {
	File string
	Line int
	Text string
}

// Bounds of what one page shows.
const (
	maxEntries = 1000
	maxMatches = 200
	maxLine    = 400 // characters of a line shown in a search result
)

// tree opens the case's snapshot and reads what the page asks: a directory (dir), a file (file,
// its lines from..to marked) or a search (q, a literal text, case-insensitive).
func (s *Server) tree(ctx context.Context, p *label.Project, c *label.Case, dir, file, q string, from, to int) *treeView {
	v := &treeView{Dir: cleanPath(dir), Query: strings.TrimSpace(q)}
	if strings.TrimSpace(file) != "" {
		v.File = cleanPath(file)
	}
	repos := s.opt.Repos
	if repos == "" {
		repos = p.Config.Repos
	}
	switch {
	case s.opt.Snapshots == nil:
		v.Why = "the viewer was started without a snapshot cache"
		return v
	case c.Repo == nil || c.Repo.URL == "" || c.Repo.Commit == "":
		v.Why = "the case names no repository and commit"
		return v
	case repos == "":
		v.Why = "no repositories directory: start the viewer with serve --labels --repos DIR (or the project with label init --repos DIR)"
		return v
	}
	rd, err := snapshot.Locate(repos, c.Repo.URL)
	if err != nil {
		v.Why = err.Error()
		return v
	}
	snap, err := s.opt.Snapshots.Get(ctx, rd, c.Repo.Commit)
	if err != nil {
		v.Why = err.Error()
		return v
	}
	defer snap.Close()
	v.Available = true
	switch {
	case v.Query != "":
		v.search(snap)
	case v.File != "":
		v.read(snap, from, to)
		v.Dir = path.Dir(v.File)
	default:
		v.list(snap)
	}
	v.Crumbs = crumbs(v.Dir)
	return v
}

// cleanPath is a slash path inside the snapshot ("." for its root); paths that climb out are
// the root.
func cleanPath(p string) string {
	p = path.Clean("/" + strings.TrimSpace(p))
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "."
	}
	return p
}

func crumbs(dir string) []crumb {
	out := []crumb{{Name: "(root)", Path: "."}}
	if dir == "." {
		return out
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		out = append(out, crumb{Name: parts[i], Path: strings.Join(parts[:i+1], "/")})
	}
	return out
}

func (v *treeView) list(snap *snapshot.Snapshot) {
	ents, err := snap.ReadDir(v.Dir)
	if err != nil {
		v.Note = err.Error()
		return
	}
	slices.SortStableFunc(ents, func(a, b fs.DirEntry) int { // directories first
		if a.IsDir() != b.IsDir() {
			if a.IsDir() {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name(), b.Name())
	})
	for i, e := range ents {
		if i == maxEntries {
			v.More = len(ents) - maxEntries
			break
		}
		x := entry{Name: e.Name(), Path: path.Join(v.Dir, e.Name()), Dir: e.IsDir(), Link: e.Type()&fs.ModeSymlink != 0}
		if info, err := e.Info(); err == nil && !x.Dir {
			x.Size = info.Size()
		}
		v.Entries = append(v.Entries, x)
	}
}

func (v *treeView) read(snap *snapshot.Snapshot, from, to int) {
	c, err := snap.Read(v.File)
	if err != nil {
		v.Note = err.Error()
		return
	}
	if c.Binary {
		v.Note = "binary file, not shown"
		return
	}
	if c.Truncated {
		v.Note = "the file is cut at the viewer's limit"
	}
	if to < from {
		to = from
	}
	sc := bufio.NewScanner(bytes.NewReader(c.Data))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		v.Lines = append(v.Lines, codeLine{N: n, Text: sc.Text(), Mark: from > 0 && n >= from && n <= to})
	}
}

func (v *treeView) search(snap *snapshot.Snapshot) {
	needle := strings.ToLower(v.Query)
	err := snap.Walk(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		c, err := snap.Read(p)
		if err != nil {
			if errors.Is(err, snapshot.ErrBudget) {
				return fs.SkipAll
			}
			return nil
		}
		if c.Binary {
			return nil
		}
		sc := bufio.NewScanner(bytes.NewReader(c.Data))
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if !strings.Contains(strings.ToLower(line), needle) {
				continue
			}
			if len(v.Matches) == maxMatches {
				v.More++
				continue
			}
			if len(line) > maxLine {
				line = line[:maxLine] + "…"
			}
			v.Matches = append(v.Matches, match{File: p, Line: n, Text: strings.TrimSpace(line)})
		}
		return nil
	})
	if err != nil {
		v.Note = err.Error()
	}
}
