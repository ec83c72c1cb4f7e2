package parsers

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/suite/appsec"
)

// TestAgreesWithRealTools holds the checkers of Default to the languages' own tools, where they are
// on PATH (php -l, ruby -c, terraform fmt): on every snippet of the seed-42 build and on a mutant
// of each (one bracket or quote deleted, drawn by a seeded generator), the two say the same:
// parses or not. The tools only parse: nothing runs.
func TestAgreesWithRealTools(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: hundreds of tool runs")
	}
	recs, err := appsec.Build(42)
	if err != nil {
		t.Fatal(err)
	}
	tools := []struct {
		lang, ext, bin string
		args           []string
		stdin          bool
	}{
		{"php", "php", "php", []string{"-l"}, false},
		{"ruby", "rb", "ruby", []string{"-c"}, false},
		{"terraform", "tf", "terraform", []string{"fmt", "-"}, true},
	}
	checkers := Default()
	ctx := context.Background()
	for _, tool := range tools {
		t.Run(tool.lang, func(t *testing.T) {
			bin, err := exec.LookPath(tool.bin)
			if err != nil {
				t.Skipf("%s is not on PATH", tool.bin)
			}
			rng := rand.New(rand.NewPCG(42, 7))
			dir := t.TempDir()
			var n, rejected int
			for _, r := range recs {
				if r.Language != tool.lang {
					continue
				}
				for _, code := range []string{r.VulnerableCode, r.SecureCode} {
					for _, src := range []string{code, mutant(code, rng)} {
						n++
						file := filepath.Join(dir, "snippet."+tool.ext)
						if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
							t.Fatal(err)
						}
						cmd := exec.CommandContext(ctx, bin, append(tool.args, file)...)
						if tool.stdin {
							cmd = exec.CommandContext(ctx, bin, tool.args...)
							cmd.Stdin = strings.NewReader(src)
						}
						out, err := cmd.CombinedOutput()
						var exit *exec.ExitError
						if err != nil && !errors.As(err, &exit) {
							t.Fatalf("%s: %v", tool.bin, err)
						}
						res := checkers.Check(ctx, tool.lang, src)
						if (err != nil) != (res.Status == appsec.SyntaxError) || res.Status == appsec.SyntaxUnchecked {
							t.Errorf("%s %s: %s says %v (%s), the checker %+v\n%s", r.BenchmarkID, tool.lang, tool.bin, err, firstLine(out), res, src)
						}
						if err != nil {
							rejected++
						}
					}
				}
			}
			if n == 0 || rejected == 0 || rejected == n {
				t.Errorf("%d snippets, %d rejected: want some of each", n, rejected)
			}
			t.Logf("%s: %d snippets and mutants, %d rejected by both", tool.bin, n, rejected)
		})
	}
}

// mutant deletes one bracket or quote of code, drawn by rng.
func mutant(code string, rng *rand.Rand) string {
	var at []int
	for i, c := range code {
		if strings.ContainsRune(`{}()[]"'`, c) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return code
	}
	i := at[rng.IntN(len(at))]
	return code[:i] + code[i+1:]
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}
