// Package judge grades the parts of an AppSecBench answer that need reading (exploit, fix,
// code quality, explanation) with an LLM judge: one rubric prompt per part that shows the
// record's ground truth before the answer, always in that stated order, with the answer cut at
// a fixed length and length earning nothing; the judge's reply is one JSON object
// {"score": 0-10, "reason": "..."}, and a reply without a readable score is graded failed,
// never 0. The judge calls go through the llm stack (response cache in the store, retries,
// limits) and are counted and costed. Calibrate measures a judge against the embedded
// calibration set of graded answers.
package judge

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/score"
)

// PromptVersion is the version of the rubric prompts and of how replies are read; it is
// recorded with every judged score.
const PromptVersion = 1

// MaxAnswerChars is where an answer is cut before the judge sees it: padding past it cannot
// reach the judge, and the prompt says so.
const MaxAnswerChars = 3000

//go:embed prompts.tmpl
var promptText string

// Judge is an LLM judge. It is safe for concurrent use.
type Judge struct {
	model  llm.Model
	prices llm.Prices
	tmpl   *template.Template

	mu    sync.Mutex
	calls int
	hits  int
	cost  float64
	price bool
}

// New makes a judge over model (a full llm stack); prices cost its calls.
func New(model llm.Model, prices llm.Prices) (*Judge, error) {
	t, err := template.New("judge").Option("missingkey=error").Parse(promptText)
	if err != nil {
		return nil, fmt.Errorf("judge: prompts: %w", err)
	}
	for _, p := range grade.JudgedParts() {
		if t.Lookup(p) == nil {
			return nil, fmt.Errorf("judge: no prompt for part %s", p)
		}
	}
	_, priced := prices.Lookup(model.Info().Spec())
	return &Judge{model: model, prices: prices, tmpl: t, price: priced}, nil
}

// Spec is the judge's PROVIDER:MODEL.
func (j *Judge) Spec() string { return j.model.Info().Spec() }

// view is what a rubric prompt shows.
type view struct {
	Language, CWE, CWEName, Title                  string
	Code                                           string // the vulnerable snippet
	RefExploit, RefPreconditions, RefFix, RefSteps string
	RefExplanation, RefSecure                      string
	Answer, AnswerCode                             string
	Max                                            int
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > MaxAnswerChars {
		return string(r[:MaxAnswerChars]) + fmt.Sprintf("\n[cut here: %d more characters not shown]", len(r)-MaxAnswerChars)
	}
	return s
}

// Messages are the judge's prompt for part of it.
func (j *Judge) Messages(part string, it *grade.Item) ([]llm.Message, error) {
	r := it.Record
	v := view{Language: r.Language, CWE: r.ExpectedCWE, CWEName: r.ExpectedCWEName, Title: r.Title, Code: it.VulCode,
		RefExploit: r.ExploitScenario, RefPreconditions: strings.Join(r.AttackPreconditions, "; "),
		RefFix: r.FixDescription, RefSteps: strings.Join(r.RemediationSteps, "; "), RefExplanation: r.Explanation,
		RefSecure: it.SecureCode, Max: MaxAnswerChars}
	if a := it.Vul; a != nil {
		switch part {
		case grade.Explanation:
			v.Answer = clip(a.Explanation)
		case grade.Exploit:
			if a.AppSec != nil {
				v.Answer = clip(a.AppSec.Exploit)
			}
		case grade.Fix:
			if a.AppSec != nil {
				v.Answer, v.AnswerCode = clip(a.AppSec.Fix), clip(a.AppSec.FixCode)
			}
		case grade.CodeQuality:
			if a.AppSec != nil {
				v.AnswerCode = clip(a.AppSec.FixCode)
			}
		}
	}
	var sys, user bytes.Buffer
	if err := j.tmpl.ExecuteTemplate(&sys, "system", v); err != nil {
		return nil, fmt.Errorf("judge prompt: %w", err)
	}
	if err := j.tmpl.ExecuteTemplate(&user, part, v); err != nil {
		return nil, fmt.Errorf("judge prompt %s: %w", part, err)
	}
	return []llm.Message{{Role: "system", Content: strings.TrimSpace(sys.String())}, {Role: "user", Content: strings.TrimSpace(user.String())}}, nil
}

// schema is the judge's answer object.
func schema() *llm.Schema {
	return &llm.Schema{Name: "judge_score", Strict: true, Schema: map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"score", "reason"},
		"properties": map[string]any{"score": map[string]any{"type": "integer", "minimum": 0, "maximum": 10},
			"reason": map[string]any{"type": "string"}}}}
}

// Judge implements grade.Judge: an empty answer is 0 without a call; a call that fails is an
// error; a reply without a readable score is Failed.
func (j *Judge) Judge(ctx context.Context, part string, it *grade.Item) (grade.JudgeScore, error) {
	msgs, err := j.Messages(part, it)
	if err != nil {
		return grade.JudgeScore{}, err
	}
	if empty(part, it) {
		return grade.JudgeScore{Fraction: 0, Reason: "no answer for this part"}, nil
	}
	resp, err := j.model.Complete(ctx, llm.Request{Messages: msgs, Temperature: 0, MaxTokens: 400, Schema: schema()})
	j.count(resp)
	if err != nil {
		return grade.JudgeScore{}, fmt.Errorf("judge %s: %w", j.Spec(), err)
	}
	return ParseReply(resp.Text), nil
}

func empty(part string, it *grade.Item) bool {
	a := it.Vul
	if a == nil {
		return true
	}
	switch part {
	case grade.Explanation:
		return strings.TrimSpace(a.Explanation) == ""
	case grade.Fix:
		return a.AppSec == nil || strings.TrimSpace(a.AppSec.Fix+a.AppSec.FixCode) == ""
	case grade.Exploit:
		return a.AppSec == nil || strings.TrimSpace(a.AppSec.Exploit) == ""
	case grade.CodeQuality:
		return a.AppSec == nil || strings.TrimSpace(a.AppSec.FixCode) == ""
	}
	return true
}

func (j *Judge) count(resp llm.Response) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls++
	if resp.Cached {
		j.hits++
		return
	}
	if c, ok := j.prices.Cost(j.Spec(), resp.Usage); ok {
		j.cost += c
	}
}

// Info names the judge for a score, with its calibration agreement.
func (j *Judge) Info(a Agreement) *score.JudgeInfo {
	j.mu.Lock()
	defer j.mu.Unlock()
	info := &score.JudgeInfo{Model: j.Spec(), PromptVersion: PromptVersion, Rho: a.Rho, MAE: a.MAE, BandAgreement: a.BandAgreement,
		Calls: j.calls, CacheHits: j.hits}
	if j.price {
		c := j.cost
		info.CostUSD = &c
	}
	return info
}

// ParseReply reads the judge's reply: the last JSON object with a numeric "score" in 0..10
// (an integer-valued number, or a numeric string), as a fraction of 10. Anything else is
// Failed, with the reason.
func ParseReply(text string) grade.JudgeScore {
	end := len(text)
	for end > 0 {
		i := strings.LastIndexByte(text[:end], '{')
		if i < 0 {
			break
		}
		end = i
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		dec.UseNumber()
		var obj map[string]any
		if dec.Decode(&obj) != nil {
			continue
		}
		raw, ok := obj["score"]
		if !ok {
			continue
		}
		var f float64
		var err error
		switch x := raw.(type) {
		case json.Number:
			f, err = x.Float64()
		case string:
			f, err = strconv.ParseFloat(strings.TrimSpace(x), 64)
		default:
			err = fmt.Errorf("not a number")
		}
		if err != nil || math.IsNaN(f) || f < 0 || f > 10 {
			return grade.JudgeScore{Failed: true, Reason: fmt.Sprintf("judge score %v is not a number from 0 to 10", raw)}
		}
		reason, _ := obj["reason"].(string)
		return grade.JudgeScore{Fraction: f / 10, Reason: reason}
	}
	return grade.JudgeScore{Failed: true, Reason: "no {\"score\": 0-10} object in the judge's reply"}
}

// Options say which judge to build.
type Options struct {
	Model      string // PROVIDER:MODEL
	BaseURL    string // an OpenAI-compatible server; "" for the provider's API
	PricesFile string // "" for the embedded table
	Cache      llm.CacheStore
	Getenv     func(string) string
}

// Open builds the judge of o over the llm stack: the response cache in the store, retries,
// limits; the API key only from the environment.
func Open(o Options) (*Judge, error) {
	prices, err := llm.LoadPrices(o.PricesFile)
	if err != nil {
		return nil, err
	}
	stack, err := llm.New(o.Model, llm.Options{BaseURL: o.BaseURL, Retry: llm.DefaultRetry(), Cache: o.Cache, Getenv: o.Getenv, Prices: &prices})
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	return New(stack, prices)
}

// Model is the model the judge calls.
func (j *Judge) Model() llm.Model { return j.model }

// Prices is the table that prices the judge's calls.
func (j *Judge) Prices() llm.Prices { return j.prices }
