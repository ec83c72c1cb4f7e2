package hygiene

import (
	"go/ast"
	"go/token"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The sandbox's one way back out (issue 30): every byte vulnbench reads from a place a
// sandboxed process could write goes through internal/sandbox's reader (readback.go), which
// hands it over as sandbox.Result.Files. The packages that run sandboxed processes and read what
// they leave (readBackConsumers) learn no host path of those places (Spec.Out is a flag, not a
// folder), and TestOneReadBack holds them to reading no file but the host's own files named in
// readBackAllowed, each with why it is not a sandbox's output. In internal/sandbox itself,
// openat2 is called in readback.go alone and every other read is allowed by name.
//
// internal/snapshot runs git in the sandbox and reads only its standard output, a pipe within a
// bound; the snapshot files it reads are those it wrote from that stream: it is not a consumer.

// readBackConsumers are the packages that run sandboxed processes and read what they leave.
func readBackConsumers() []string {
	return []string{"internal/harness", "internal/subject/agentcli", "internal/subject/sast", "internal/subject/govulncheck", "internal/sandbox"}
}

// readBackAllowed are the file reads those packages may make (FILE:FUNCTION), and why each is
// not a read of a sandboxed process's output.
func readBackAllowed() map[string]string {
	host := "the host's own files, never shown writable to a sandbox"
	return map[string]string{
		"internal/harness/harness.go:packageVersion":          "the CLI's package.json in its npm install, shown read-only: " + host,
		"internal/subject/sast/eslint.go:eslintVersion":       "eslint-plugin-security's package.json beside the scanner: " + host,
		"internal/subject/sast/view.go:skips":                 "the case's snapshot (written by vulnbench from git's objects), shown read-only",
		"internal/subject/sast/view.go:utf8File":              "a file of the case's snapshot, shown read-only",
		"internal/subject/sast/view.go:copyFile":              "a file of the case's snapshot, shown read-only",
		"internal/subject/sast/view.go:view":                  "the case's snapshot, copied to a scan's view, shown read-only",
		"internal/subject/govulncheck/govulncheck.go:modules": "the Go modules of the case's snapshot, shown read-only",
		"internal/sandbox/readback.go:openBeneath":            "the reader itself: the trusted root (/proc/PID/root, its own folder), then openat2",
		"internal/sandbox/unguarded.go:unguardedRead":         "built only with -tags vulnbench_unguarded: the reader switched off, for the battery's proof that it fails then",
		"internal/sandbox/readback.go:openat2":                "the reader itself",
		"internal/sandbox/bwrap.go:systemBinds":               "the host's system directories' links: " + host,
		"internal/sandbox/bwrap.go:helper":                    "the helper's program, started from a descriptor: " + host,
		"internal/sandbox/overlay.go:overlayOf":               "a read-only bind's host folder, opened (O_PATH) as its overlay's layer: " + host,
		"internal/sandbox/none.go:overlay":                    "a named bind's host source (a git view of vulnbench's making), listed to show it on the host under --sandbox none",
		"internal/sandbox/cgroup.go:ownCgroups":               "/proc/self/cgroup of vulnbench itself",
		"internal/sandbox/cgroup.go:candidates":               "the cgroup hierarchy: " + host,
		"internal/sandbox/cgroup.go:oomKilled":                "the cgroup's counters, written by the kernel",
		"internal/sandbox/cgroup.go:pids":                     "the cgroup's process list, written by the kernel",
		"internal/sandbox/cgroup.go:sweep":                    "the cgroup hierarchy: " + host,
		"internal/sandbox/sandbox.go:userNamespaces":          "the kernel's settings in /proc/sys",
		"internal/sandbox/scratch.go:copyTree":                "the project copied for a writable run: " + host + " (the copy is the sandbox's, never read back)",
		"internal/sandbox/scratch.go:copyFile":                "a file of the project copied for a writable run: " + host,
		"internal/sandbox/scratch.go:removeAll":               "removal of a unit's folder: nothing is read",
		"internal/sandbox/scratch.go:newUnit":                 "the lock of a unit's folder: nothing is read",
		"internal/sandbox/scratch.go:sweep":                   "the folders a dead vulnbench left: listed, locked, removed; nothing is read",
	}
}

// readCalls are the calls that read a file or a directory.
func readCalls() map[string]bool {
	return map[string]bool{
		"os.ReadFile": true, "os.Open": true, "os.OpenFile": true, "os.ReadDir": true, "os.Readlink": true, "os.DirFS": true,
		"os.OpenRoot": true, "os.OpenInRoot": true, "filepath.Walk": true, "filepath.WalkDir": true, "fs.ReadFile": true,
		"fs.WalkDir": true, "fs.ReadDir": true, "ioutil.ReadFile": true, "ioutil.ReadDir": true, "unix.Open": true,
		"unix.Openat": true, "unix.Openat2": true, "syscall.Open": true, "syscall.Openat": true, "unix.Readlink": true,
		"unix.Readlinkat": true, "exec.Command": false,
	}
}

// readSites are the file reads of the consumer packages: FILE:FUNCTION -> the first line.
func readSites(fset *token.FileSet, srcs []sourceFile) map[string]string {
	out := map[string]string{}
	consumers := readBackConsumers()
	for _, f := range srcs {
		dir := path.Dir(f.rel)
		in := false
		for _, c := range consumers {
			in = in || dir == c
		}
		if !in {
			continue
		}
		imports := map[string]string{} // local name -> package path
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			name := path.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			imports[name] = p
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				id, ok := sel.X.(*ast.Ident)
				if !ok || imports[id.Name] == "" {
					return true
				}
				if readCalls()[path.Base(imports[id.Name])+"."+sel.Sel.Name] {
					key := f.rel + ":" + fn.Name.Name
					if _, seen := out[key]; !seen {
						out[key] = fset.Position(call.Pos()).String()
					}
				}
				return true
			})
		}
	}
	return out
}

// TestOneReadBack: the packages that run sandboxed processes read no file but those allowed by
// name, and openat2, the reader's own call, is in readback.go alone.
func TestOneReadBack(t *testing.T) {
	fset := token.NewFileSet()
	sites := readSites(fset, parseSources(t, moduleRoot(t), fset))
	allowed := readBackAllowed()
	var keys []string
	for k := range sites {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := allowed[k]; !ok {
			t.Errorf("%s (%s) reads a file: a sandboxed process's output is read through sandbox.Spec.Collect and Result.Files alone; if this is the host's own file, add %q to readBackAllowed with why", k, sites[k], k)
		}
	}
	for k := range allowed {
		if _, ok := sites[k]; !ok {
			t.Errorf("readBackAllowed entry %q reads nothing any more: remove it", k)
		}
	}
	for k := range sites {
		if strings.Contains(k, "openat2") && !strings.HasPrefix(k, "internal/sandbox/readback.go:") {
			t.Errorf("%s calls openat2 outside the reader", k)
		}
	}
}

// TestOneReadBackCanFail: a consumer that reads a file the sandbox's process left, the way the
// Codex answer file once was read, is caught.
func TestOneReadBackCanFail(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                "module github.com/vulnbench/vulnbench\n",
		"cmd/vulnbench/main.go": "package main\n",
		"internal/harness/codex.go": "package harness\n\nimport \"os\"\n\nfunc codexAnswer(out string) string {\n" +
			"\tb, _ := os.ReadFile(out + \"/codex-last-message.txt\")\n\treturn string(b)\n}\n",
		"internal/other/other.go": "package other\n\nimport \"os\"\n\nfunc Read() { os.ReadFile(\"x\") }\n",
	}
	writeTree(t, root, files)
	fset := token.NewFileSet()
	sites := readSites(fset, parseSources(t, root, fset))
	if len(sites) != 1 || sites["internal/harness/codex.go:codexAnswer"] == "" {
		t.Errorf("read sites = %v, want internal/harness/codex.go:codexAnswer alone", sites)
	}
}
