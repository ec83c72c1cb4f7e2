// Package memprobe is the memory-probe subject kind, the run behind `vulnbench probe memory`
// (issue 24 item 5): for each case it cuts the code at a line boundary (probe.Cut), shows the
// model the prefix, asks it to continue, and checks whether the answer reproduces the next
// tokens exactly (probe.Continues, ten lexical tokens by default).
//
// The verdict says so per unit: label vul and category "memorised" when the answer continues
// the case's own code, label ben and category "unseen" otherwise; Raw keeps the answer and
// Explanation the cut (the prefix's lines and the tokens wanted), so the table can be
// recomputed from the store. A case too short to cut is a failed verdict, with no model call.
//
// The control is not asked of the model: it is computed from the stored answers when the table
// is made (probe.FromRun), by checking each case's answer against the continuation of another
// case of the run, its partner in a seeded derangement of the answered cases. The model never
// saw the partner's prefix, so an answer matches the partner's continuation only as often as
// code continued from an unrelated prefix happens to match it (shared boilerplate, common
// idioms): the share expected by chance for this suite, with no extra call or cost, and
// comparable because it is measured on the very answers the probe share is. A unit cannot hold
// it, since the partner depends on which cases of the run have answers.
package memprobe

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/probe"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Name is the kind's name, as in --subject memory-probe.
const Name = "memory-probe"

// Categories of the verdicts: the answer continued the case's code, or it did not.
const (
	Memorised = "memorised"
	Unseen    = "unseen"
)

// Config is the kind's configuration: the model flags and the probe's cut.
type Config struct {
	modelkit.Config
	Tokens int `json:"probe_tokens"` // tokens of the continuation an answer must reproduce
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if c.Tokens < 1 || c.Tokens > 200 {
		return fmt.Errorf("--probe-tokens %d is not in [1, 200]", c.Tokens)
	}
	return c.Config.Validate()
}

// Options is the cut the config asks for.
func (c Config) Options() probe.Options { return probe.Options{Tokens: c.Tokens} }

// Kind is the memory-probe kind.
func Kind() subject.Kind[Config, *Probe] {
	return subject.Kind[Config, *Probe]{
		Name: Name, Usage: Name, Version: "1", Kinds: []suite.Kind{suite.KindFunction, suite.KindAppSec},
		Summary: "the memorisation probe: asks a model to continue each case's code from a cut (see vulnbench probe memory)",
		Needs:   subject.Needs{Network: true},
		Flags: append(modelkit.Flags(), subject.Flag{Name: "probe-tokens", Default: probe.DefaultTokens,
			Usage: "memory-probe: tokens of the code after the cut an answer must reproduce exactly to count as memorised"}),
		Configure: func(_ string, v subject.Values) (Config, error) {
			return Config{Config: modelkit.ConfigOf(v), Tokens: v.Int("probe-tokens")}, nil
		},
		New: func(c Config, d subject.Deps) (*Probe, error) {
			base, err := modelkit.Open(c.Config, d)
			if err != nil {
				return nil, err
			}
			return &Probe{Base: base, opts: c.Options()}, nil
		},
		Model: func(c Config) subject.ModelNeed { return c.Need() },
		// The probe's prompt is its own: no prompting strategy applies.
		Settings: func(c Config) manifest.Settings { s := c.Config.Settings(); s.Prompt = ""; return s },
		Scrub:    func(c Config) Config { c.Config = c.Scrubbed(); return c },
	}
}

// Probe asks its model to continue each case's code.
type Probe struct {
	modelkit.Base
	opts probe.Options
}

// Prompt is what the model is asked: the prefix, to be continued verbatim.
func Prompt(language, prefix string) string {
	lang := strings.ToLower(language)
	return "Here is the beginning of a source file" + map[bool]string{true: " (" + lang + ")", false: ""}[lang != ""] +
		". It stops at the end of a line. Write the lines that come next in the original file, exactly as " +
		"they are there, starting right after the last line shown. Reply with code only: no explanation, " +
		"no repetition of the lines shown.\n\n```" + lang + "\n" + prefix + "```\n"
}

// Assess implements subject.Subject.
func (s *Probe) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	p, err := probe.Cut(u.Case.ID, u.Case.Date, u.Case.Code, s.opts)
	var short *probe.ErrTooShort
	if errors.As(err, &short) {
		return verdict.Verdict{Status: verdict.Failed, Reason: err.Error()}, nil
	} else if err != nil {
		return verdict.Verdict{}, err
	}
	resp, err := s.For(env).Complete(ctx, llm.Request{Temperature: s.Temperature, Repeat: u.Repeat,
		Messages: []llm.Message{{Role: "user", Content: Prompt(u.Case.Language, p.Prefix)}}})
	if err != nil {
		return verdict.Verdict{}, modelkit.Fault(err)
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Category: Unseen, Raw: resp.Text,
		Explanation: fmt.Sprintf("cut after line %d; wanted: %s", strings.Count(p.Prefix, "\n"), strings.Join(p.Want, " "))}
	if probe.Continues(resp.Text, p.Prefix, p.Want) {
		v.Label, v.Category = suite.Vul, Memorised
	}
	return v, nil
}
