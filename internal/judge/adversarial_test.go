package judge

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/vulnbench/vulnbench/internal/grade"
)

// judgeFunc is a grade.Judge computed in the test, without a model.
type judgeFunc func(part string, it *grade.Item) grade.JudgeScore

func (f judgeFunc) Judge(_ context.Context, part string, it *grade.Item) (grade.JudgeScore, error) {
	return f(part, it), nil
}

// words are the distinct lower-case words of s of three letters or more.
func words(s string) map[string]bool {
	w := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(f) >= 3 {
			w[f] = true
		}
	}
	return w
}

// overlapJudge scores an answer by the share of the reference's words it repeats (the
// reference of its part: the record's exploit, fix and secure code, or explanation), and reads
// nothing else: it cannot tell a right answer in other words from a wrong one in the same words.
func overlapJudge(part string, it *grade.Item) grade.JudgeScore {
	var ref, ans string
	switch part {
	case grade.Exploit:
		ref, ans = it.Record.ExploitScenario, it.Vul.AppSec.Exploit
	case grade.Fix:
		ref, ans = it.Record.FixDescription+" "+it.SecureCode, it.Vul.AppSec.Fix+" "+it.Vul.AppSec.FixCode
	case grade.CodeQuality:
		ref, ans = it.SecureCode, it.Vul.AppSec.FixCode
	case grade.Explanation:
		ref, ans = it.Record.Explanation, it.Vul.Explanation
	}
	rw, aw := words(ref), words(ans)
	hit := 0
	for w := range rw {
		if aw[w] {
			hit++
		}
	}
	if len(rw) == 0 {
		return grade.JudgeScore{}
	}
	return grade.JudgeScore{Fraction: min(1, 1.5*float64(hit)/float64(len(rw)))}
}

// A judge that scores by word overlap with the reference is refused by a wide margin: the set
// holds wrong answers in the reference's words (negated, the wrong CWE, a fix that keeps the
// flaw) and right answers in other words (issue 25, finding 9).
func TestWordOverlapJudgeIsRefused(t *testing.T) {
	s, err := LoadSet()
	if err != nil {
		t.Fatal(err)
	}
	a, err := Calibrate(context.Background(), judgeFunc(overlapJudge), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("word-overlap judge on %d answers: rho %.2f, MAE %.2f, band agreement %.2f: %s", a.N, a.Rho, a.MAE, a.BandAgreement, a.Problem())
	if margin := 0.15; !(a.Rho < MinRho-margin) || a.Problem() == "" {
		t.Errorf("word-overlap judge: rho %.2f, want below %.2f (the bar %.2f less a margin of %.2f); problem %q", a.Rho, MinRho-margin, MinRho, margin, a.Problem())
	}
}

// With no reply readable there is nothing to compare: the MAE and band checks fail rather than
// read as met.
func TestNothingComparableFailsEveryCheck(t *testing.T) {
	s, err := LoadSet()
	if err != nil {
		t.Fatal(err)
	}
	a, err := Calibrate(context.Background(), judgeFunc(func(string, *grade.Item) grade.JudgeScore {
		return grade.JudgeScore{Failed: true, Reason: "unreadable"}
	}), s)
	if err != nil {
		t.Fatal(err)
	}
	p := a.Problem()
	for _, want := range []string{"unreadable", "rho", "MAE", "band agreement"} {
		if !strings.Contains(p, want) {
			t.Errorf("all %d replies unreadable: problem %q; want it to name %q", a.N, p, want)
		}
	}
	if a.Compared != 0 {
		t.Errorf("compared %d, want 0", a.Compared)
	}
}
