// Package version says which vulnbench is running, from the build information the Go toolchain
// records in the binary: the module version and the VCS revision it was built from.
package version

import "runtime/debug"

// String is vulnbench's version, e.g. "v0.2.0 (abc1234)" for a tagged module build or
// "(devel) (abc1234+dirty)" for a build from a work tree with uncommitted changes; "(devel)"
// alone when the build recorded no revision (go test, go run of a file list).
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return Of(bi)
}

// Of formats a build's information as String does.
func Of(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if dirty {
		rev += "+dirty"
	}
	return v + " (" + rev + ")"
}
