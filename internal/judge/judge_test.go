package judge

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
)

func TestShippedSetPassesItsChecks(t *testing.T) {
	s, err := LoadSet()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, a := range s.Answers {
		per[a.Part]++
	}
	if len(s.Answers) < 60 || len(per) != 4 {
		t.Errorf("%d answers over parts %v; want >= 60 over the four judged parts", len(s.Answers), per)
	}
}

func TestCheckFindsProblems(t *testing.T) {
	const rec = `records:
  - {id: r, language: go, cwe: CWE-78, code: c, secure: s, exploit: e, fix: f, explanation: x}
`
	set := func(answers string) fstest.MapFS {
		return fstest.MapFS{"calibration/a.yaml": {Data: []byte(rec + "answers:\n" + answers)}}
	}
	for _, tc := range []struct{ name, answers, want string }{
		{"score outside its band", "  - {id: a1, record: r, part: exploit, quality: good, score: 5, text: t}\n", "answer a1: score 5 is outside the good band"},
		{"unknown part", "  - {id: a1, record: r, part: style, quality: good, score: 9, text: t}\n", "answer a1: unknown part style"},
		{"unknown record", "  - {id: a1, record: q, part: exploit, quality: good, score: 9, text: t}\n", "answer a1: unknown record q"},
		{"no code for code quality", "  - {id: a1, record: r, part: code_quality, quality: good, score: 9, text: t}\n", "answer a1: no answer text for its part"},
		{"parts not covered", "  - {id: a1, record: r, part: exploit, quality: good, score: 9, text: t}\n", "part fix has no good answer"},
		{"too few answers", "  - {id: a1, record: r, part: exploit, quality: good, score: 9, text: t}\n", "1 answers; the set needs at least 60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadSet(set(tc.answers))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestParseReply(t *testing.T) {
	for _, tc := range []struct {
		text string
		want grade.JudgeScore
	}{
		{`{"score": 7, "reason": "partly right"}`, grade.JudgeScore{Fraction: 0.7, Reason: "partly right"}},
		{"Thinking...\n```json\n{\"score\": \"10\", \"reason\": \"r\"}\n```", grade.JudgeScore{Fraction: 1, Reason: "r"}},
		{`{"score": 0}`, grade.JudgeScore{Fraction: 0}},
		{`{"score": 11}`, grade.JudgeScore{Failed: true, Reason: "judge score 11 is not a number from 0 to 10"}},
		{`{"score": "high"}`, grade.JudgeScore{Failed: true, Reason: "judge score high is not a number from 0 to 10"}},
		{`{"grade": 7}`, grade.JudgeScore{Failed: true, Reason: `no {"score": 0-10} object in the judge's reply`}},
		{"I would give it a seven.", grade.JudgeScore{Failed: true, Reason: `no {"score": 0-10} object in the judge's reply`}},
		{"", grade.JudgeScore{Failed: true, Reason: `no {"score": 0-10} object in the judge's reply`}},
	} {
		if diff := cmp.Diff(tc.want, ParseReply(tc.text)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.text, diff)
		}
	}
}

// referee answers each judge prompt with score(answer) for the calibration answer the prompt
// shows, found by its text; it fails the test on a prompt that shows none.
func referee(t *testing.T, s *Set, score func(a CalAnswer) string) llmtest.Handler {
	return func(r llmtest.Request) llmtest.Reply {
		p := r.Prompt()
		for _, a := range s.Answers {
			body := strings.TrimSpace(a.Text)
			if a.Part == grade.CodeQuality {
				body = strings.TrimSpace(a.Code)
			}
			if strings.Contains(p, "ANSWER") && strings.Contains(p, clip(body)) && strings.Contains(p, "Part: "+partTitle(a.Part)) {
				return llmtest.Reply{Text: score(a)}
			}
		}
		return llmtest.Reply{Text: `{"score": 0, "reason": "unknown"}`}
	}
}

func partTitle(p string) string {
	return map[string]string{grade.Exploit: "EXPLOIT", grade.Fix: "FIX", grade.CodeQuality: "CODE QUALITY", grade.Explanation: "EXPLANATION"}[p]
}

func newJudge(t *testing.T, h llmtest.Handler) (*Judge, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewOpenAI(h)
	t.Cleanup(srv.Close)
	stack, err := llm.New("openai:judge-model", llm.Options{BaseURL: srv.BaseURL(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	j, err := New(stack, llm.Prices{})
	if err != nil {
		t.Fatal(err)
	}
	return j, srv
}

func TestCalibrate(t *testing.T) {
	s, err := LoadSet()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		score   func(a CalAnswer) string
		refused bool
	}{
		{"a judge that gives the reference scores", func(a CalAnswer) string {
			return fmt.Sprintf(`{"score": %d, "reason": "as the reference"}`, int(a.Score))
		}, false},
		{"a judge one point off everywhere", func(a CalAnswer) string {
			return fmt.Sprintf(`{"score": %d, "reason": "close"}`, int(min(10, a.Score+1)))
		}, false},
		// Length bias: the longer the answer, the higher the score. The padded off-topic answers
		// of the set make it disagree.
		{"a length-biased judge", func(a CalAnswer) string {
			return fmt.Sprintf(`{"score": %d, "reason": "long"}`, min(10, (len(a.Text)+len(a.Code))/40))
		}, true},
		{"a judge that always says 7", func(CalAnswer) string { return `{"score": 7, "reason": "fine"}` }, true},
		{"a judge whose replies cannot be read", func(CalAnswer) string { return "Looks good to me." }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, srv := newJudge(t, referee(t, s, tt.score))
			a, err := Calibrate(context.Background(), j, s)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("rho %.2f, MAE %.2f, band agreement %.2f, failed %d: %s", a.Rho, a.MAE, a.BandAgreement, a.Failed, a.Problem())
			if got := a.Problem() != ""; got != tt.refused {
				t.Errorf("refused = %v (%q), want %v; agreement %+v", got, a.Problem(), tt.refused, a)
			}
			if srv.Requests() != int64(len(s.Answers)) {
				t.Errorf("%d judge calls, want one per answer (%d)", srv.Requests(), len(s.Answers))
			}
			if got := srv.Log()[0]; got.ResponseFormat != "json_schema" || got.Schema == nil || got.Schema.Name != "judge_score" {
				t.Errorf("judge request format %q %+v, want the judge_score json_schema", got.ResponseFormat, got.Schema)
			}
		})
	}
}

func TestCalibrateReferenceIsPerfect(t *testing.T) {
	s, _ := LoadSet()
	j, _ := newJudge(t, referee(t, s, func(a CalAnswer) string { return fmt.Sprintf(`{"score": %v}`, a.Score) }))
	a, err := Calibrate(context.Background(), j, s)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rho < 0.999 || a.MAE != 0 || a.BandAgreement != 1 || a.Failed != 0 {
		t.Errorf("agreement %+v, want rho 1, MAE 0, bands 1", a)
	}
}

func TestPromptOrderAndLength(t *testing.T) {
	s, _ := LoadSet()
	j, _ := newJudge(t, nil)
	a := s.Answers[0]
	it := s.Item(a)
	msgs, err := j.Messages(a.Part, it)
	if err != nil {
		t.Fatal(err)
	}
	user := msgs[1].Content
	ref, ans := strings.Index(user, "REFERENCE"), strings.Index(user, "ANSWER")
	if ref < 0 || ans < 0 || ref > ans {
		t.Errorf("the reference must come before the answer:\n%s", user)
	}
	if !strings.Contains(msgs[0].Content, "Length earns nothing") || !strings.Contains(msgs[0].Content, "REFERENCE first and the ANSWER second") {
		t.Errorf("system prompt does not state the order and the length rule:\n%s", msgs[0].Content)
	}
	// A padded answer: the same answer followed by 20,000 characters of filler. What the judge
	// sees stops at MaxAnswerChars, so padding past it cannot buy points.
	padded := *it.Vul.AppSec
	padded.Exploit = a.Text + strings.Repeat(" This is a very serious vulnerability.", 500)
	pit := *it
	pv := *it.Vul
	pv.AppSec = &padded
	pit.Vul = &pv
	pm, err := j.Messages(a.Part, &pit)
	if err != nil {
		t.Fatal(err)
	}
	if len(pm[1].Content) > len(user)+MaxAnswerChars+100 || !strings.Contains(pm[1].Content, "more characters not shown") {
		t.Errorf("padded answer not cut: prompt of %d characters (plain %d)", len(pm[1].Content), len(user))
	}
}

func TestJudgeMalformedIsFailed(t *testing.T) {
	s, _ := LoadSet()
	replies := []llmtest.Reply{{Text: `{"score": 8, "reason": "ok"}`}, {Text: "no JSON here"}, {Text: `{"score": 42}`}}
	j, _ := newJudge(t, llmtest.Sequence(replies...))
	it := s.Item(s.Answers[0])
	var got []grade.JudgeScore
	for range replies {
		js, err := j.Judge(context.Background(), s.Answers[0].Part, it)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, js)
	}
	want := []grade.JudgeScore{{Fraction: 0.8, Reason: "ok"},
		{Failed: true, Reason: `no {"score": 0-10} object in the judge's reply`},
		{Failed: true, Reason: "judge score 42 is not a number from 0 to 10"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if info := j.Info(Agreement{}); info.Calls != 3 || info.PromptVersion != PromptVersion || info.Model != "openai:judge-model" {
		t.Errorf("info %+v", info)
	}
}

func TestGated(t *testing.T) {
	s, _ := LoadSet()
	it := s.Item(s.Answers[0])
	for _, tc := range []struct {
		name    string
		score   func(a CalAnswer) string
		force   bool
		refused bool
	}{
		{"agreeing judge grades", func(a CalAnswer) string { return fmt.Sprintf(`{"score": %v}`, a.Score) }, false, false},
		{"constant judge refused", func(CalAnswer) string { return `{"score": 5}` }, false, true},
		{"constant judge forced", func(CalAnswer) string { return `{"score": 5}` }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, srv := newJudge(t, referee(t, s, tc.score))
			g := &Gated{Of: j, Set: s, Force: tc.force}
			if _, ran := g.Agreement(); ran || srv.Requests() != 0 {
				t.Fatalf("calibrated before the first grade")
			}
			for range 3 {
				_, err := g.Judge(context.Background(), s.Answers[0].Part, it)
				var re *RefusedError
				if refused := errors.As(err, &re); refused != tc.refused || (err != nil && !tc.refused) {
					t.Fatalf("err %v, refused want %v", err, tc.refused)
				}
			}
			want := int64(len(s.Answers)) // calibrated once
			if !tc.refused {
				want += 3
			}
			if srv.Requests() != want {
				t.Errorf("%d calls, want %d", srv.Requests(), want)
			}
		})
	}
}

// A part none of whose replies the judge scored prints "unmeasured", not "MAE 0.000" (issue 35
// item 7); a part that was measured prints its figures.
func TestAgreementTextUnmeasuredPart(t *testing.T) {
	s, err := LoadSet()
	if err != nil {
		t.Fatal(err)
	}
	// The judge answers every part but the explanation; its explanation replies do not parse.
	j, _ := newJudge(t, func(req llmtest.Request) llmtest.Reply {
		if strings.Contains(req.Prompt(), "Part: EXPLANATION") {
			return llmtest.Reply{Text: "I would rather not say."}
		}
		return llmtest.Reply{Text: `{"score": 5, "reason": "middling"}`}
	})
	a, err := Calibrate(context.Background(), j, s)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := (AgreementDoc{Judge: j, Agreement: a}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !regexp.MustCompile(`(?m)^  explanation +n \d+, unmeasured: no reply scored$`).MatchString(out) {
		t.Errorf("the explanation part, never scored, is not shown unmeasured:\n%s", out)
	}
	if regexp.MustCompile(`(?m)^  explanation .*MAE`).MatchString(out) {
		t.Errorf("the explanation part shows an MAE it never measured:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  exploit +n \d+, MAE \d\.\d{3}, bands`).MatchString(out) {
		t.Errorf("the exploit part, scored, shows no MAE:\n%s", out)
	}
}
