package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// Bounds of the observations (each also passes agent.Bound).
const (
	MaxDirEntries  = 300 // list_dir
	maxObservation = 32 << 10
)

// ListDir is list_dir over s: a directory's entries, subdirectories ending with /.
func ListDir(s *snapshot.Snapshot) agent.Tool {
	return agent.Tool{Name: "list_dir", Description: "Lists a directory of the repository: subdirectories end with /, files show their size.",
		Parameters: agent.StringParams(map[string]string{"path": "the directory, relative to the repository root (\".\" or \"\" for the root)"}),
		Run: func(_ context.Context, raw json.RawMessage) (string, error) {
			var a struct{ Path string }
			if err := json.Unmarshal(raw, &a); err != nil {
				return "The arguments could not be read: " + err.Error(), nil
			}
			return listDir(s, a.Path), nil
		}}
}

// ReadFile is read_file over s: lines of a file, numbered.
func ReadFile(s *snapshot.Snapshot) agent.Tool {
	counts := &lineCounts{}
	return agent.Tool{Name: "read_file", Description: "Returns lines of a file of the repository, numbered.",
		Parameters: map[string]any{"type": "object", "required": []string{"path"}, "properties": map[string]any{
			"path":       map[string]any{"type": "string", "description": "the file, relative to the repository root"},
			"start_line": map[string]any{"type": "integer", "description": "optional: the first line (1-based)"},
			"end_line":   map[string]any{"type": "integer", "description": "optional: the last line"}}},
		Run: func(_ context.Context, raw json.RawMessage) (string, error) {
			a, bad := parseArgs(raw)
			if bad != "" {
				return bad, nil
			}
			from, ok1 := Number(a.Start)
			to, ok2 := Number(a.End)
			if !ok1 || !ok2 {
				return "start_line and end_line must be positive whole numbers.", nil
			}
			return readFile(s, counts, a.Path, from, to), nil
		}}
}

// Search is search over s: the lines of its files that match a regular expression.
func Search(s *snapshot.Snapshot) agent.Tool {
	return agent.Tool{Name: "search", Description: "Finds the lines of the repository's files that match a regular expression (RE2 syntax).",
		Parameters: agent.StringParams(map[string]string{"pattern": "the regular expression", "path": "optional: a directory or file to search in"}, "pattern"),
		Run: func(_ context.Context, raw json.RawMessage) (string, error) {
			a, bad := parseArgs(raw)
			if bad != "" {
				return bad, nil
			}
			return search(s, a.Pattern, a.Path), nil
		}}
}

// readFile is read_file's observation: lines from..to (1-based, 0: the start and the end), read
// by streaming the file whatever its size, the listing bounded to maxObservation bytes. The line
// count is the whole file's (remembered in counts: a snapshot does not change), or says how much
// was read when the unit's read budget ran out.
func readFile(s *snapshot.Snapshot, counts *lineCounts, path string, from, to int) string {
	from = max(from, 1)
	var b strings.Builder
	shown, cutAt := 0, 0
	total, known := counts.get(path)
	res, err := scanLines(s, path, func(n int, line []byte) bool {
		if n >= from && (to < 1 || n <= to) && cutAt == 0 {
			if b.Len()+len(line) > maxObservation && shown > 0 {
				cutAt = n
			} else {
				fmt.Fprintf(&b, "%d\t%s\n", n, line)
				shown = n
			}
		}
		// with the count known, stop at the last line asked for or where the listing was cut
		return !known || (cutAt == 0 && (to < 1 || n < to))
	})
	if err != nil {
		return "Cannot read " + path + ": " + err.Error()
	}
	if res.binary {
		return path + " is a binary file, not shown."
	}
	if res.done {
		total, known = res.lines, true
		counts.put(path, total)
	}
	if !known { // the budget ran out before the end
		if shown == 0 {
			return fmt.Sprintf("%s: %s (%d lines); line %d was not reached.", path, res.partial("read"), res.lines, from)
		}
		return fmt.Sprintf("%s lines %d-%d (of at least %d):\n%s[%s]", path, from, shown, res.lines, b.String(), res.partial("read"))
	}
	if to < 1 || to > total {
		to = total
	}
	if from > to {
		return fmt.Sprintf("%s has %d lines; there is nothing from line %d.", path, total, from)
	}
	head := fmt.Sprintf("%s lines %d-%d of %d:\n", path, from, to, total)
	if cutAt > 0 {
		fmt.Fprintf(&b, "[cut: lines %d-%d not shown: ask for start_line %d]\n", cutAt, to, cutAt)
	}
	return head + strings.TrimRight(b.String(), "\n")
}

// lineCounts remembers the line counts of the files read whole, so that reading a range of a
// big file again stops at its last line.
type lineCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *lineCounts) get(path string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.n[path]
	return n, ok
}

func (c *lineCounts) put(path string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[path] = n
}

// search is search's observation: matching lines as file:line: text, at most MaxSites, over the
// whole of every text file (streamed); a file the unit's read budget cut short is named with how
// much of it was searched, and the files the budget left unread are counted.
func search(s *snapshot.Snapshot, pattern, path string) string {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "The pattern is not a valid regular expression: " + err.Error()
	}
	if path == "" {
		path = "."
	}
	var b strings.Builder
	var notes []string
	n, unread := 0, 0
	werr := s.Walk(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		res, err := scanLines(s, p, func(i int, line []byte) bool {
			if re.Match(line) {
				n++
				if n <= MaxSites {
					fmt.Fprintf(&b, "%s:%d: %s\n", p, i, bytes.TrimSpace(line))
				}
			}
			return true
		})
		switch {
		case err == nil && res.budget && res.read == 0:
			unread++
		case err == nil && res.budget:
			notes = append(notes, p+": "+res.partial("searched"))
		}
		return nil
	})
	if werr != nil {
		return "Cannot search " + path + ": " + werr.Error()
	}
	if n > MaxSites {
		fmt.Fprintf(&b, "[cut: %d more matching lines not shown]\n", n-MaxSites)
	}
	for _, note := range notes {
		fmt.Fprintf(&b, "[%s]\n", note)
	}
	if unread > 0 {
		fmt.Fprintf(&b, "[%d more %s not searched: this unit's read budget is spent]\n", unread, plural(unread, "file", "files"))
	}
	if n == 0 {
		return strings.TrimRight("No line matches "+pattern+".\n"+b.String(), "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// listDir is list_dir's observation.
func listDir(s *snapshot.Snapshot, p string) string {
	p = strings.TrimPrefix(strings.TrimSpace(p), "./")
	if p == "" || p == "/" {
		p = "."
	}
	ents, err := s.ReadDir(p)
	if err != nil {
		return "Cannot list " + p + ": " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d entries\n", p, len(ents))
	for i, e := range ents {
		if i == MaxDirEntries {
			fmt.Fprintf(&b, "[cut: %d more entries not shown]\n", len(ents)-MaxDirEntries)
			break
		}
		switch {
		case e.IsDir():
			b.WriteString(e.Name() + "/\n")
		case e.Type()&fs.ModeSymlink != 0:
			b.WriteString(e.Name() + " (symbolic link)\n")
		default:
			size := int64(-1)
			if info, err := e.Info(); err == nil {
				size = info.Size()
			}
			fmt.Fprintf(&b, "%s (%d bytes)\n", e.Name(), size)
		}
	}
	return agent.Bound(strings.TrimRight(b.String(), "\n"), 0, maxObservation)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
