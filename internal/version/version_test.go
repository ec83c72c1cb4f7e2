package version_test

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/version"
)

func TestOf(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "abc1234def5678"}
	tests := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"tagged", "v0.2.0", []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "false"}}, "v0.2.0 (abc1234)"},
		{"work tree with changes", "(devel)", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, rev}, "(devel) (abc1234+dirty)"},
		{"no version recorded", "", []debug.BuildSetting{rev}, "(devel) (abc1234)"},
		{"no revision", "(devel)", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, "(devel)"},
		{"short revision kept whole", "v1.0.0", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "v1.0.0 (abc)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/vulnbench/vulnbench", Version: tt.version}, Settings: tt.settings}
			if diff := cmp.Diff(tt.want, version.Of(bi)); diff != "" {
				t.Errorf("Of (-want +got):\n%s", diff)
			}
		})
	}
}

// TestString checks that the running binary's own information is read: a test binary has no
// revision and the "(devel)" version.
func TestString(t *testing.T) {
	if diff := cmp.Diff("(devel)", version.String()); diff != "" {
		t.Errorf("String (-want +got):\n%s", diff)
	}
}
