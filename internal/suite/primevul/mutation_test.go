package primevul

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// TestImportSurvivesMutations feeds 3,000 seeded random mutations of the fixtures through Import
// and the suite checks: none may panic or hang, and what Import accepts must pass the checks.
// (It found a panic on a commit whose every row repeated an earlier idx.)
func TestImportSurvivesMutations(t *testing.T) {
	seeds := []string{"original.jsonl", "v01_paired.jsonl", "bad.jsonl"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		b, _ := os.ReadFile("testdata/" + seeds[i%3])
		for k := 0; k < 1+rng.IntN(8); k++ {
			switch rng.IntN(3) {
			case 0:
				if len(b) > 0 {
					b[rng.IntN(len(b))] = byte(rng.IntN(256))
				}
			case 1:
				if len(b) > 2 {
					j := rng.IntN(len(b))
					b = append(b[:j], b[j+1:]...)
				}
			case 2:
				j := rng.IntN(len(b) + 1)
				b = append(b[:j], append([]byte{"\n{}\":,["[rng.IntN(7)]}, b[j:]...)...)
			}
		}
		done := make(chan struct{})
		in := append([]byte(nil), b...)
		paired := i%2 == 0
		var failure string
		go func() {
			defer close(done)
			defer func() {
				if p := recover(); p != nil {
					failure = fmt.Sprint("panic: ", p)
				}
			}()
			opt := Options{Paired: "no"}
			if paired {
				opt.Paired = "yes"
			}
			var out bytes.Buffer
			w := suite.NewWriter(&out)
			_, errs, err := Import(bytes.NewReader(in), "f", w, opt)
			if err != nil || len(errs) > 0 {
				return
			}
			w.Flush()
			if _, problems, err := suite.ScanReader(&out, "o", nil, true, nil); err != nil || len(problems) > 0 {
				failure = fmt.Sprint("accepted input gives an invalid suite: ", err, problems)
			}
		}()
		select {
		case <-done:
			if failure != "" {
				t.Fatalf("input %d (paired %v) %q: %s", i, paired, in, failure)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("input %d (paired %v) still running after 5 s: %q", i, paired, in)
		}
	}
}
