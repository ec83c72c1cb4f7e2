package example_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Config is yesno's typed configuration: the model flags (--model, --base-url, --prompt, ...).
type Config struct{ modelkit.Config }

// Kind is the yesno kind: its name, version, the case kinds it judges, its flags and config,
// and what it declares: the model it calls, what the manifest records of it, its secrets.
func Kind() subject.Kind[Config, *YesNo] {
	return subject.Kind[Config, *YesNo]{
		Name: "yesno", Usage: "yesno", Version: "1", Kinds: []suite.Kind{suite.KindFunction},
		Summary: "asks a model whether the function is vulnerable, yes or no",
		Needs:   subject.Needs{Network: true}, Flags: modelkit.Flags(),
		Configure: func(_ string, v subject.Values) (Config, error) { return Config{modelkit.ConfigOf(v)}, nil },
		New: func(c Config, d subject.Deps) (*YesNo, error) {
			base, err := modelkit.Open(c.Config, d) // the model stack: cache, limits, retries, prices
			if err != nil {
				return nil, err
			}
			return &YesNo{base}, nil
		},
		Model:    func(c Config) subject.ModelNeed { return c.Need() },
		Settings: func(c Config) manifest.Settings { return c.Config.Settings() },
		Scrub:    func(c Config) Config { c.Config = c.Scrubbed(); return c },
	}
}

// YesNo asks its model about each case. modelkit.Base makes it a subject.Modeled: the runner
// meters the model for each unit and hands it over as env.Model.
type YesNo struct{ modelkit.Base }

// Assess implements subject.Subject.
func (s *YesNo) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	resp, err := s.For(env).Complete(ctx, llm.Request{Temperature: s.Temperature, Repeat: u.Repeat,
		Messages: []llm.Message{{Role: "user", Content: "Is this function vulnerable? Answer yes or no.\n\n" + u.Case.Code}}})
	if err != nil {
		return verdict.Verdict{}, modelkit.Fault(err) // a rejected key stops the run; other faults: this case's error
	}
	switch strings.ToLower(strings.TrimSpace(resp.Text)) {
	case "yes":
		return verdict.Verdict{Status: verdict.OK, Label: suite.Vul}, nil
	case "no":
		return verdict.Verdict{Status: verdict.OK, Label: suite.Ben}, nil
	}
	return verdict.Verdict{Status: verdict.Failed, Reason: "the answer is not yes or no", Raw: resp.Text}, nil
}

func TestYesNo(t *testing.T) {
	c := &suite.Case{ID: "c1", Kind: suite.KindFunction, Label: suite.Vul, Code: "strcpy(buf, input);"}
	for _, tt := range []struct{ reply, want string }{{"Yes", "ok vul"}, {"no", "ok ben"}, {"maybe", "failed "}} {
		var asked string
		script := func(r llmtest.Request) llmtest.Reply { asked = r.Prompt(); return llmtest.Reply{Text: tt.reply} }
		v, events := subjecttest.RunUnit(t, Kind(), map[string]string{"max-retries": "0"}, c, script)
		if got := string(v.Status) + " " + string(v.Label); got != tt.want || v.Usage.Calls != 1 || len(events) != 2 {
			t.Errorf("reply %q: %s, %d calls, %d trace events; want %s, 1 call, 2 events", tt.reply, got, v.Usage.Calls, len(events), tt.want)
		}
		if !strings.Contains(asked, c.Code) {
			t.Errorf("the model was not shown the code: %q", asked)
		}
	}
}
