package baseline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/baseline"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
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
}

// The kind reads --seed, and the unit's repeat draws anew.
func TestRandomKindDrawsBySeedAndRepeat(t *testing.T) {
	c := &suite.Case{ID: "x", Kind: suite.KindFunction}
	a, _ := subjecttest.RunUnit(t, baseline.RandomKind(), nil, c, nil)
	again, _ := subjecttest.RunUnit(t, baseline.RandomKind(), map[string]string{"seed": "42"}, c, nil)
	b, _ := subjecttest.RunUnit(t, baseline.RandomKind(), nil, c, nil, subjecttest.Repeat(1))
	o, _ := subjecttest.RunUnit(t, baseline.RandomKind(), map[string]string{"seed": "43"}, c, nil)
	if *a.Score != *again.Score || *a.Score == *b.Score || *a.Score == *o.Score {
		t.Errorf("default seed %v, --seed 42 %v (want equal); repeat 1 %v, --seed 43 %v (want others)", *a.Score, *again.Score, *b.Score, *o.Score)
	}
}

func TestConstant(t *testing.T) {
	v, _ := subjecttest.RunUnit(t, baseline.ConstantKind(), nil, &suite.Case{ID: "a", Kind: suite.KindJIT}, nil, subjecttest.Arg("ben"))
	if v.Label != suite.Ben || v.Score != nil || v.Status != verdict.OK {
		t.Errorf("constant:ben = %+v", v)
	}
	if _, err := baseline.ConstantKind().Factory().Configure("maybe", nil); err == nil || !strings.Contains(err.Error(), "vul or ben") {
		t.Errorf("constant:maybe: err = %v", err)
	}
}
