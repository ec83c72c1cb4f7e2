package progs_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vulnbench/vulnbench/internal/progs"
)

func TestFind(t *testing.T) {
	prefix, path, gobin := t.TempDir(), t.TempDir(), t.TempDir()
	npmBin := filepath.Join(prefix, "node_modules", ".bin")
	write := func(dir, name string, mode os.FileMode) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inPrefix := write(npmBin, "both", 0o755)
	write(path, "both", 0o755)
	onPath := write(path, "pathonly", 0o755)
	inGo := write(gobin, "goonly", 0o755)
	write(npmBin, "notexec", 0o644)
	t.Setenv(progs.NodePrefixEnv, prefix)
	t.Setenv("PATH", path)
	t.Setenv("GOBIN", gobin)
	for _, tc := range []struct {
		name, want string
	}{
		{"both", inPrefix}, // vulnbench's prefix first
		{"pathonly", onPath},
		{"goonly", inGo},
		{inGo, inGo}, // a path is taken as it is
	} {
		got, err := progs.Find(tc.name)
		if err != nil || got != tc.want {
			t.Errorf("Find(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	_, err := progs.Find("notexec")
	want := "notexec is not installed (looked in " + npmBin + ", on PATH, in " + gobin + ")"
	if err == nil || err.Error() != want || !errors.Is(err, progs.ErrNotFound) {
		t.Errorf("Find(notexec) = %v, want %q", err, want)
	}
	if _, err := progs.Find(filepath.Join(path, "nothere")); err == nil {
		t.Error("a path that is not there was found")
	}
}
