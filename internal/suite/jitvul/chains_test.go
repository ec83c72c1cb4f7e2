package jitvul

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/gittest"
)

// Walks from any commit get the same first-parent chain from the shared listings as from
// their own, whatever order they come in and whatever the limit.
func TestSharedFirstParents(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	gittest.Repo(t, dir, map[string]string{"a": "0"})
	for i := 1; i <= 6; i++ {
		gittest.Repo(t, dir, map[string]string{"a": fmt.Sprint(i)})
	}
	gittest.Run(t, dir, "checkout", "-q", "-b", "side", "HEAD~3")
	gittest.Repo(t, dir, map[string]string{"b": "side"})
	gittest.Run(t, dir, "checkout", "-q", "-")
	gittest.Run(t, dir, "merge", "-q", "--no-edit", "side")
	gittest.Repo(t, dir, map[string]string{"a": "7"})
	all := strings.Fields(gittest.Run(t, dir, "rev-list", "--all"))
	for _, max := range []int{3, 100} {
		r, err := openRepo(context.Background(), "git", dir)
		if err != nil {
			t.Fatal(err)
		}
		// oldest first, then newest first: both orders of filling the cache
		for _, order := range [][]string{reverse(all), all} {
			for _, c := range order {
				got, err := r.sharedFirstParents(context.Background(), c, max)
				if err != nil {
					t.Fatal(err)
				}
				want, err := r.firstParents(context.Background(), c, max)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got, cmp.AllowUnexported(link{})); d != "" {
					t.Errorf("max %d, from %s (-want +got):\n%s", max, c[:8], d)
				}
			}
		}
		if err := r.close(); err != nil {
			t.Fatal(err)
		}
	}
}

func reverse(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}
