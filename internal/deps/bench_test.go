package deps_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/vulnbench/vulnbench/internal/deps"
)

// BenchmarkExtract10k reads the facts of a 10,000-file monorepo: 100 modules (go.mod,
// requirements.txt, pom.xml, package-lock.json in turn) of 100 files each (issue 12's target:
// under 2 s).
func BenchmarkExtract10k(b *testing.B) {
	files := map[string]string{}
	tree := monorepo()
	kinds := []string{"svc/go.mod", "py/requirements.txt", "java/pom.xml", "web/package-lock.json"}
	for m := 0; m < 100; m++ {
		k := kinds[m%len(kinds)]
		base := k[len("xxx"):]
		for i := range base {
			if base[i] == '/' {
				base = base[i+1:]
				break
			}
		}
		files[fmt.Sprintf("mod%03d/%s", m, base)] = tree[k]
		for i := 0; i < 99; i++ {
			files[fmt.Sprintf("mod%03d/src/pkg%d/file%02d.go", m, i%10, i)] = "package x\n\nfunc F() {}\n"
		}
	}
	dir := writeTreeB(b, files)
	b.ResetTimer()
	for b.Loop() {
		facts, err := deps.Extract(context.Background(), dirFS(dir))
		if err != nil || len(facts.Problems) > 0 || len(facts.Manifests) != 100 {
			b.Fatalf("%v %v %d manifests", err, facts.Problems, len(facts.Manifests))
		}
	}
}
