// Package progs finds the programs vulnbench runs, one way for every subject and for the
// preflight: a name is looked for in vulnbench's npm prefix (node_modules/.bin, where make deps
// installs eslint and the agent CLIs), then on PATH, then in Go's bin directory (GOBIN, else
// GOPATH/bin: where go install, and so make deps, puts gosec and govulncheck); a path (a name
// with a slash, as --agent-bin may give) is taken as it is.
package progs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// NodePrefixEnv names vulnbench's npm prefix; unset, it is ~/.cache/vulnbench/node.
const NodePrefixEnv = "VULNBENCH_NODE"

// NodePrefix is vulnbench's own npm prefix: $VULNBENCH_NODE, else ~/.cache/vulnbench/node (as
// scripts/install-deps.sh installs into it); "" when neither is known.
func NodePrefix() string {
	if p := os.Getenv(NodePrefixEnv); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "vulnbench", "node")
}

// GoBin is where go install puts programs: $GOBIN, else the first GOPATH entry's bin, else
// ~/go/bin; "" when none is known.
func GoBin() string {
	if d := os.Getenv("GOBIN"); d != "" {
		return d
	}
	if p := os.Getenv("GOPATH"); p != "" {
		return filepath.Join(filepath.SplitList(p)[0], "bin")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, "go", "bin")
}

// ErrNotFound is matched by Find's error when the program is nowhere it looked.
var ErrNotFound = errors.New("program not found")

// NotFound is Find's error: the program and where it was looked for.
type NotFound struct {
	Name   string
	Looked []string // the places, in order
}

func (e *NotFound) Error() string {
	return fmt.Sprintf("%s is not installed (looked %s)", e.Name, strings.Join(e.Looked, ", "))
}

func (e *NotFound) Unwrap() error { return ErrNotFound }

// Find returns the program's path (see the package documentation).
func Find(name string) (string, error) {
	if name == "" {
		return "", &NotFound{Name: `""`, Looked: []string{"nowhere: no program was named"}}
	}
	if strings.ContainsRune(name, filepath.Separator) {
		if executable(name) {
			return name, nil
		}
		return "", &NotFound{Name: name, Looked: []string{"at that path"}}
	}
	var looked []string
	if p := NodePrefix(); p != "" {
		dir := filepath.Join(p, "node_modules", ".bin")
		if path := filepath.Join(dir, name); executable(path) {
			return path, nil
		}
		looked = append(looked, "in "+dir)
	}
	if path, err := exec.LookPath(name); err == nil {
		return path, nil
	}
	looked = append(looked, "on PATH")
	if d := GoBin(); d != "" {
		if path := filepath.Join(d, name); executable(path) {
			return path, nil
		}
		looked = append(looked, "in "+d)
	}
	return "", &NotFound{Name: name, Looked: looked}
}

// executable reports whether path is a regular file (links followed) that someone may run.
func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
