package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

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
			return readFile(s, a.Path, from, to), nil
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

// readFile is read_file's observation: lines from..to (1-based, 0: the start and the end).
func readFile(s *snapshot.Snapshot, path string, from, to int) string {
	c, err := s.Read(path)
	if err != nil {
		return "Cannot read " + path + ": " + err.Error()
	}
	if c.Binary {
		return path + " is a binary file, not shown."
	}
	lines := strings.Split(strings.TrimSuffix(string(c.Data), "\n"), "\n")
	if from < 1 {
		from = 1
	}
	if to < 1 || to > len(lines) {
		to = len(lines)
	}
	if from > to {
		return fmt.Sprintf("%s has %d lines; there is nothing from line %d.", path, len(lines), from)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s lines %d-%d of %d:\n", path, from, to, len(lines))
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\t%s\n", i, lines[i-1])
	}
	if c.Truncated {
		fmt.Fprintf(&b, "[cut: the file has %d bytes; only the first %d were read]\n", c.Size, len(c.Data))
	}
	return strings.TrimRight(b.String(), "\n")
}

// search is search's observation: matching lines as file:line: text, at most MaxSites.
func search(s *snapshot.Snapshot, pattern, path string) string {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "The pattern is not a valid regular expression: " + err.Error()
	}
	if path == "" {
		path = "."
	}
	var b strings.Builder
	n := 0
	werr := s.Walk(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		c, err := s.Read(p)
		if err != nil || c.Binary {
			return nil
		}
		for i, line := range strings.Split(string(c.Data), "\n") {
			if re.MatchString(line) {
				n++
				if n <= MaxSites {
					fmt.Fprintf(&b, "%s:%d: %s\n", p, i+1, strings.TrimSpace(line))
				}
			}
		}
		return nil
	})
	if werr != nil {
		return "Cannot search " + path + ": " + werr.Error()
	}
	if n == 0 {
		return "No line matches " + pattern + "."
	}
	if n > MaxSites {
		fmt.Fprintf(&b, "[cut: %d more matching lines not shown]\n", n-MaxSites)
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
