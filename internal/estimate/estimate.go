// Package estimate says what a run will send and cost before it is made, calling no model: per
// subject and model, the prompt tokens (counted with the model family's tokenizer where one is
// offline, internal/tokens, else its stated approximation), the expected output tokens from the
// answer format (agents: a stated per-step model), the cost at the dated list prices and at batch
// prices beside it, and the time at the run's rate limit and concurrency.
package estimate

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/tokens"
)

// Input is one estimate: a subject kind configured as the run would configure it, over a suite.
type Input struct {
	Suite   string
	Reading *lineerr.Reading       // how Suite is read (--lossy-utf8); nil: strictly
	Keep    func(*suite.Case) bool // nil keeps every case (--after)
	Spec    string                 // the subject as given, e.g. "llm"
	// Factory and Config are the subject's kind and config: what its declaration says (its
	// model, its requests, its step cap, its settings: the answer budget, the rate, the prompt).
	Factory subject.Factory
	Config  subject.Config
	Repeats int
	// MaxSteps is the run's --max-steps (0: the kind's own step cap).
	MaxSteps    int
	Concurrency int
	Counter     *tokens.Counter
	// Getenv is the environment (API keys); nil: os.Getenv. No call is made, so a missing key is
	// given a stand-in.
	Getenv func(string) string
}

// build builds the subject as the run would, with a stand-in for a missing API key (the model
// stack is built and never sent anything).
func build(in Input) (subject.Subject, error) {
	env := in.Getenv
	if env == nil {
		env = os.Getenv
	}
	getenv := func(k string) string {
		if v := env(k); v != "" || (k != llm.KeyEnv("openai") && k != llm.KeyEnv("anthropic")) {
			return v
		}
		return "estimate-makes-no-call"
	}
	return in.Factory.New(in.Config, subject.Deps{Getenv: getenv})
}

// Row is the estimate of one subject and model.
type Row struct {
	Subject      string   `json:"subject"`
	Model        string   `json:"model"`
	Units        int      `json:"units"`
	Calls        int64    `json:"calls"`
	InputTokens  int64    `json:"input_tokens"`
	OutputTokens int64    `json:"output_tokens"`
	Encoding     string   `json:"encoding"`
	Exact        bool     `json:"exact_tokenizer"` // the model's own tokenizer counted the prompts
	CostUSD      *float64 `json:"cost_usd"`        // nil: unpriced
	BatchUSD     *float64 `json:"batch_cost_usd"`  // nil: unpriced or no batch price
	PriceDate    string   `json:"price_date,omitempty"`
	Seconds      float64  `json:"seconds"`
	// Method says how the tokens were counted and what was assumed, in words.
	Method []string `json:"method"`
}

// Duration is the estimated wall time.
func (r Row) Duration() time.Duration { return time.Duration(r.Seconds * float64(time.Second)) }

// The stated assumptions. Answers: the answer format's object with a one-sentence reason (the
// plain answer), a chain of thought of four steps of about 100 tokens before it, and for appsec
// cases the whole snippet rewritten in fix_code plus the other fields. Agents: each step resends
// the conversation so far; a step adds its answer and the tool's observation.
const (
	plainAnswer = `{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.9, "reason": "The function copies the caller's string into a fixed 8-byte stack buffer with strcpy and no length check, so a longer input overflows it."}`
	appsecExtra = `{"vulnerable": true, "cwe": "CWE-89", "owasp": "A03:2021", "severity": "High", "cvss_vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N", "exploit": "An attacker sends a name such as ' OR '1'='1 in the request; the query string is built by concatenation, so the condition is always true and every row is returned.", "fix": "Build the query with a parameterised statement and pass the name as a bound parameter; never concatenate request input into SQL.", "fix_code": "", "explanation": "The handler concatenates the request parameter into the SQL text, which the database then parses as code.", "confidence": 0.9}`
	// CoTTokens is the reasoning a chain of thought writes before its answer object.
	CoTTokens = 400
	// AgentInstructionTokens is an agent's first prompt beyond the case's code: its
	// instructions, the tools' descriptions and the answer format.
	AgentInstructionTokens = 1200
	// AgentStepOutput and AgentObservation are what one agent step adds to its conversation.
	AgentStepOutput, AgentObservation = 300, 700
	// CallSeconds is a call's assumed latency beyond its output (time to first token).
	CallSeconds = 1.0
	// OutputPerSecond is the assumed generation speed.
	OutputPerSecond = 60.0
)

// AgentSteps is the steps an agent is assumed to take: half its cap, at least one.
func AgentSteps(stepCap int) int { return max(1, (stepCap+1)/2) }

// Estimate builds the subject, goes over the suite once and returns the subject's row. The kind
// must declare a model; nothing is sent.
func Estimate(in Input) (Row, error) {
	if _, ok := in.Factory.ModelOf(in.Config); !ok {
		return Row{}, fmt.Errorf("subject %s calls no model: there is nothing to estimate", in.Spec)
	}
	subj, err := build(in)
	if err != nil {
		return Row{}, err
	}
	defer in.Factory.Close(subj)
	modeled, _ := in.Factory.Modeled(subj)
	set := in.Factory.SettingsOf(in.Config)
	stepCap := in.MaxSteps
	if in.Factory.Steps != nil {
		stepCap = in.Factory.StepsOf(in.Config, subject.Limits{Steps: in.MaxSteps})
	}
	if in.Repeats < 1 {
		in.Repeats = 1
	}
	if in.Counter == nil {
		in.Counter = tokens.New()
	}
	info := modeled.Model().Info()
	spec := info.Spec()
	enc, exact := tokens.EncodingOf(spec)
	row := Row{Subject: in.Spec, Model: spec, Encoding: enc, Exact: exact}
	req, isReq := in.Factory.Requester(subj)
	st, _ := prompt.ParseStrategy(set.Prompt)
	cot := st == prompt.CoT || st == prompt.CoTFS
	count := func(s string) int64 { n, _ := in.Counter.Count(spec, s); return int64(n) }
	plainOut, appsecOut := count(plainAnswer), count(appsecExtra)
	capOut := func(n int64) int64 {
		if set.MaxTokens > 0 {
			return min(n, int64(set.MaxTokens))
		}
		return n
	}
	_, problems, err := suite.Scan(in.Suite, in.Reading, true, func(c *suite.Case, _ int) error {
		if in.Keep != nil && !in.Keep(c) {
			return nil
		}
		row.Units += in.Repeats
		var prompt, out, calls int64
		if isReq {
			r, err := req.Request(subject.Unit{Case: c})
			if err != nil {
				return fmt.Errorf("case %s: %w", c.ID, err)
			}
			prompt, calls = requestTokens(count, r), 1
			out = plainOut
			if c.Kind == suite.KindAppSec {
				out = appsecOut + count(c.Code)
			}
			if cot {
				out += CoTTokens
			}
			out = capOut(out)
		} else {
			steps := int64(AgentSteps(stepCap))
			first := count(c.Code) + AgentInstructionTokens
			step := int64(AgentStepOutput + AgentObservation)
			prompt, calls = steps*first+step*steps*(steps-1)/2, steps
			out = steps * capOut(AgentStepOutput)
		}
		r := int64(in.Repeats)
		row.Calls += r * calls
		row.InputTokens += r * prompt
		row.OutputTokens += r * out
		return nil
	})
	if err != nil {
		return Row{}, err
	}
	if len(problems) > 0 {
		return Row{}, fmt.Errorf("%s: %w (vulnbench suite validate %s lists every problem)", in.Suite, problems[0], in.Suite)
	}
	row.Method = method(isReq, exact, enc, cot, stepCap)
	price(&row, modeled.Prices())
	row.Seconds = seconds(row, set.RPM, in.Concurrency)
	return row, nil
}

// requestTokens counts what a request's texts hold: every message's content and tool calls
// (the chat framing, a few tokens a message, is not counted, nor tool definitions).
func requestTokens(count func(string) int64, r llm.Request) int64 {
	var n int64
	for _, m := range r.Messages {
		n += count(m.Content)
		for _, tc := range m.ToolCalls {
			n += count(tc.Name) + count(tc.Arguments)
		}
	}
	return n
}

func price(row *Row, p llm.Prices) {
	u := llm.Usage{InputTokens: row.InputTokens, OutputTokens: row.OutputTokens}
	if c, ok := p.Cost(row.Model, u); ok {
		row.CostUSD = &c
		row.PriceDate = p.DateOf(row.Model)
	}
	if c, ok := p.BatchCost(row.Model, u); ok {
		row.BatchUSD = &c
	}
}

// seconds is the run's time: its calls at --rpm, or at what --concurrency workers do with the
// assumed latency, whichever is slower.
func seconds(row Row, rpm, concurrency int) float64 {
	if row.Calls == 0 {
		return 0
	}
	perCall := CallSeconds + float64(row.OutputTokens)/float64(row.Calls)/OutputPerSecond
	rate := float64(max(concurrency, 1)) / perCall // calls a second
	if rpm > 0 {
		rate = math.Min(rate, float64(rpm)/60)
	}
	return float64(row.Calls) / rate
}

func method(isReq, exact bool, enc string, cot bool, stepCap int) []string {
	var m []string
	if exact {
		m = append(m, "prompt tokens counted with the model's own tokenizer ("+enc+")")
	} else {
		m = append(m, "prompt tokens approximated with "+enc+" (the model's tokenizer is not available offline)")
	}
	if isReq {
		m = append(m, "prompts rendered exactly as the run sends them (texts only: the chat framing, a few tokens a message, is not counted)")
		out := "output: the answer object with a one-sentence reason; appsec cases also the whole snippet rewritten"
		if cot {
			out += fmt.Sprintf("; a chain of thought of %d tokens before it", CoTTokens)
		}
		m = append(m, out+" (capped by --max-tokens)")
	} else {
		m = append(m, fmt.Sprintf("agent step model: %d steps (half the cap of %d); step k sends the case's code + %d tokens of instructions and tools + (k-1)×(%d answer + %d observation) tokens; %d output tokens a step",
			AgentSteps(stepCap), stepCap, AgentInstructionTokens, AgentStepOutput, AgentObservation, AgentStepOutput))
	}
	m = append(m, fmt.Sprintf("time: %.0f s a call + output at %.0f tokens/s, at --concurrency and --rpm", CallSeconds, OutputPerSecond))
	return m
}
