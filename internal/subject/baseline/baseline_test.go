package baseline_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/baseline"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func TestRandomIsSeededUniformAndConsistent(t *testing.T) {
	ctx := context.Background()
	r := baseline.Random{Seed: 42}
	vul, n := 0, 20000
	sum := 0.0
	for i := 0; i < n; i++ {
		c := &suite.Case{ID: fmt.Sprintf("case-%d", i)}
		v, err := r.Assess(ctx, subject.Unit{Case: c, Repeat: 0}, subject.NewEnv(subject.EnvOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		s := *v.Score
		if s < 0 || s >= 1 {
			t.Fatalf("score %v outside [0,1)", s)
		}
		if (s >= 0.5) != (v.Label == suite.Vul) {
			t.Fatalf("label %s disagrees with score %v", v.Label, s)
		}
		if v.Label == suite.Vul {
			vul++
		}
		sum += s
		again, _ := r.Assess(ctx, subject.Unit{Case: c, Repeat: 0}, subject.NewEnv(subject.EnvOptions{}))
		if *again.Score != s {
			t.Fatalf("case %s: %v then %v", c.ID, s, *again.Score)
		}
	}
	// Binomial(20000, 0.5): sd ≈ 71, so ±400 is over 5 sd; a mean outside 0.5 ± 0.01 is likewise far out.
	if vul < n/2-400 || vul > n/2+400 {
		t.Errorf("%d of %d vul, want about half", vul, n)
	}
	if m := sum / float64(n); m < 0.49 || m > 0.51 {
		t.Errorf("mean score %v, want about 0.5", m)
	}
	c := &suite.Case{ID: "x"}
	a, _ := r.Assess(ctx, subject.Unit{Case: c, Repeat: 0}, subject.NewEnv(subject.EnvOptions{}))
	b, _ := r.Assess(ctx, subject.Unit{Case: c, Repeat: 1}, subject.NewEnv(subject.EnvOptions{}))
	o, _ := baseline.Random{Seed: 43}.Assess(ctx, subject.Unit{Case: c, Repeat: 0}, subject.NewEnv(subject.EnvOptions{}))
	if *a.Score == *b.Score || *a.Score == *o.Score {
		t.Errorf("repeat or seed does not change the draw: %v %v %v", *a.Score, *b.Score, *o.Score)
	}
}

func TestConstant(t *testing.T) {
	v, err := baseline.Constant{Label: suite.Ben}.Assess(context.Background(), subject.Unit{Case: &suite.Case{ID: "a"}, Repeat: 0}, subject.NewEnv(subject.EnvOptions{}))
	if err != nil || v.Label != suite.Ben || v.Score != nil || v.Status != "ok" {
		t.Errorf("Constant = %+v, %v", v, err)
	}
}
