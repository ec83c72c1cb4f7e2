package sandbox

import (
	"path/filepath"
	"strings"
)

// Program is how a host program (a scanner found on PATH) is shown in a sandbox: its path when
// the system directories already show it; else, bound read-only under /opt/vulnbench and named
// Name, the whole node_modules tree for a program inside one (npm packages find their files
// beside them; at its own path, as the tools' configurations name their plugins by it), or the
// program alone (a Go binary). The program's links are resolved first.
func Program(name, path string) (prog string, binds []Bind) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	for _, d := range systemDirs {
		if strings.HasPrefix(real, d+"/") {
			return real, nil
		}
	}
	if i := strings.LastIndex(real, "/node_modules/"); i >= 0 {
		modules := real[:i+len("/node_modules")]
		return real, []Bind{{Name: name, Src: modules, Dst: modules}}
	}
	return "{" + name + "}", []Bind{{Name: name, Src: real, Dst: "/opt/vulnbench/bin/" + filepath.Base(real)}}
}
