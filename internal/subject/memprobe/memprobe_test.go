package memprobe_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/probe"
	"github.com/vulnbench/vulnbench/internal/subject/memprobe"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// code is a function of a dozen lines for case i, its lines distinct from every other case's.
func code(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "static int parse_%d(const char *s, size_t len, int mode)\n{\n", i)
	fmt.Fprintf(&b, "\tchar tmp%d[%d];\n\tsize_t j%d = 0;\n", i, 32+i, i)
	fmt.Fprintf(&b, "\tif (len > %d)\n\t\treturn -%d;\n", 100+i, 10+i)
	fmt.Fprintf(&b, "\twhile (j%d < len && s[j%d] != '%c')\n\t\ttmp%d[j%d] = s[j%d++];\n", i, i, 'a'+i%26, i, i, i)
	fmt.Fprintf(&b, "\tmode ^= tmp%d[%d] * %d;\n\treturn mode - %d;\n}\n", i, i%8, i+3, i*7)
	return b.String()
}

// reciter answers with the true rest of the code for the cases in recite, and with a plausible
// but wrong continuation for the others, identifying the case by its prefix in the prompt.
func reciter(cases []*suite.Case, recite map[string]bool, asked map[string]int) llmtest.Handler {
	return func(r llmtest.Request) llmtest.Reply {
		for _, c := range cases {
			p, err := probe.Cut(c.ID, c.Date, c.Code, probe.Options{})
			if err != nil || !strings.Contains(r.Prompt(), p.Prefix) {
				continue
			}
			asked[c.ID]++
			if recite[c.ID] {
				return llmtest.Reply{Text: "```c\n" + strings.TrimPrefix(c.Code, p.Prefix) + "```"}
			}
			return llmtest.Reply{Text: "\tfree(buf);\n\treturn 0;\n}\n"}
		}
		return llmtest.Reply{Text: "?"}
	}
}

// A model scripted to recite some cases: exactly those are memorised, in the verdicts and in
// the table, and the control is zero; a case too short to cut costs no call.
func TestRecitedCasesAndControl(t *testing.T) {
	var cases []*suite.Case
	recite := map[string]bool{"c02": true, "c05": true, "c06": true, "c11": true}
	for i := 0; i < 14; i++ {
		cases = append(cases, &suite.Case{ID: fmt.Sprintf("c%02d", i), Kind: suite.KindFunction, Label: suite.Vul,
			Language: "c", Date: fmt.Sprintf("%d-03-01T00:00:00Z", 2022+i%3), Code: code(i)})
	}
	cases = append(cases, &suite.Case{ID: "short", Kind: suite.KindFunction, Label: suite.Ben, Code: "int f(void)\n{\n\treturn 0;\n}\n"})
	asked := map[string]int{}
	var vs []verdict.Verdict
	var memorised []string
	for _, c := range cases {
		v, _ := subjecttest.RunUnit(t, memprobe.Kind(), map[string]string{"model": "openai:m", "max-retries": "0"}, c, reciter(cases, recite, asked))
		vs = append(vs, v)
		if v.Category == memprobe.Memorised {
			memorised = append(memorised, v.CaseID)
			if v.Label != suite.Vul {
				t.Errorf("%s: memorised with label %q", c.ID, v.Label)
			}
		}
		if c.ID == "short" && (v.Status != verdict.Failed || v.Usage.Calls != 0) {
			t.Errorf("short case: %s after %d calls (%s)", v.Status, v.Usage.Calls, v.Reason)
		}
		if c.ID != "short" && (v.Status != verdict.OK || asked[c.ID] != 1) {
			t.Errorf("%s: %s, asked %d times (%s)", c.ID, v.Status, asked[c.ID], v.Reason)
		}
	}
	if d := cmp.Diff([]string{"c02", "c05", "c06", "c11"}, memorised); d != "" {
		t.Errorf("memorised (-want +got):\n%s", d)
	}
	rep := probe.FromRun("s", cases, vs, probe.Options{}, 1)
	want := probe.Report{Suite: "s", Rule: probe.Rule, TooShort: 1, Rows: []probe.Row{
		{Year: "2022", Prompts: 5, Cases: 5, Memorised: 1, Share: 1.0 / 5}, // c06
		{Year: "2023", Prompts: 5, Cases: 5},
		{Year: "2024", Prompts: 4, Cases: 4, Memorised: 3, Share: 3.0 / 4}, // c02, c05, c11
		{Year: "all", Prompts: 14, Cases: 14, Memorised: 4, Share: 4.0 / 14},
	}, Memorised: []probe.Memorised{{Year: "2024", Cases: []string{"c02"}}, {Year: "2024", Cases: []string{"c05"}},
		{Year: "2022", Cases: []string{"c06"}}, {Year: "2024", Cases: []string{"c11"}}}}
	if d := cmp.Diff(want, rep); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}
}

// The prompt shows the prefix and no more of the code, and the config refuses a bad cut.
func TestPromptAndConfig(t *testing.T) {
	c := &suite.Case{ID: "c", Kind: suite.KindFunction, Label: suite.Vul, Language: "C", Code: code(1)}
	p, err := probe.Cut(c.ID, "", c.Code, probe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var prompt string
	v, _ := subjecttest.RunUnit(t, memprobe.Kind(), map[string]string{"model": "openai:m", "max-retries": "0"}, c,
		func(r llmtest.Request) llmtest.Reply { prompt = r.Prompt(); return llmtest.Reply{Text: "return 1;"} })
	if v.Status != verdict.OK || v.Category != memprobe.Unseen || v.Raw != "return 1;" {
		t.Errorf("verdict %+v", v)
	}
	if !strings.Contains(prompt, "```c\n"+p.Prefix+"```") || strings.Contains(prompt, strings.TrimPrefix(c.Code, p.Prefix)) {
		t.Errorf("prompt %q", prompt)
	}
	if err := (memprobe.Config{Tokens: 0}).Validate(); err == nil {
		t.Error("--probe-tokens 0 accepted")
	}
}
