package subject

import (
	"context"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/subject/baseline"
	"github.com/vulnbench/vulnbench/internal/subject/llmsubj"
	"github.com/vulnbench/vulnbench/internal/subject/predictions"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Builtin lists every subject kind vulnbench ships, in the order --help shows them.
func Builtin() *Registry {
	return NewRegistry(
		Factory{
			Name: "random", Usage: "random", Kinds: suite.Kinds,
			Summary: "seeded random guesser with a score in [0,1] (--seed); the floor every subject must beat",
			New: func(_ string, opt Options) (Subject, error) {
				return baseline.Random{Seed: opt.Seed}, nil
			},
		},
		Factory{
			Name: "constant", Usage: "constant:vul|ben", Kinds: suite.Kinds, ArgReq: true,
			Summary: "always answers the same label",
			New: func(arg string, _ Options) (Subject, error) {
				l := suite.Label(arg)
				if !l.Valid() {
					return nil, fmt.Errorf("subject constant:%s: the label must be vul or ben", arg)
				}
				return baseline.Constant{Label: l}, nil
			},
		},
		Factory{
			Name: "predictions", Usage: "predictions:FILE", Kinds: suite.Kinds, ArgReq: true,
			Summary: "replays predictions made elsewhere: vulnbench JSONL or PrimeVul's predictions.txt (matched by idx)",
			New: func(arg string, opt Options) (Subject, error) {
				return predictions.Load(arg, opt.Delay)
			},
		},
		Factory{
			Name: "llm", Usage: "llm", Kinds: []suite.Kind{suite.KindFunction, suite.KindJIT, suite.KindAppSec},
			Summary: "a model (--model PROVIDER:MODEL, --prompt vanilla|cot|fs|cot+fs) on the case's code; score from logprobs",
			Needs:   Needs{Network: true},
			New:     newLLM,
		},
		Factory{
			Name: "flawfinder", Usage: "flawfinder", Kinds: []suite.Kind{suite.KindFunction, suite.KindAppSec},
			Summary: "flawfinder on C/C++ code; vul when a hit reaches --min-level, score = highest level / 5",
			Needs:   Needs{Binaries: []Binary{{Name: "flawfinder", Install: "apt-get install flawfinder"}}},
			New: func(_ string, opt Options) (Subject, error) {
				return sast.NewFlawfinder(context.Background(), opt.MinLevel)
			},
		},
	)
}

func newLLM(_ string, opt Options) (Subject, error) {
	o := opt.LLM
	if o.Model == "" {
		return nil, fmt.Errorf("subject llm needs --model PROVIDER:MODEL (like openai:gpt-4o-mini)")
	}
	strategy, err := prompt.ParseStrategy(o.Prompt)
	if err != nil {
		return nil, err
	}
	prices, err := llm.LoadPrices(o.PricesFile)
	if err != nil {
		return nil, err
	}
	stack, err := llm.New(o.Model, llm.Options{BaseURL: o.BaseURL, Limits: o.Limits, Retry: o.Retry,
		CallTimeout: o.CallTimeout, Cache: o.Cache, Getenv: o.Getenv, Prices: &prices})
	if err != nil {
		return nil, err
	}
	prompts, err := prompt.New()
	if err != nil {
		return nil, err
	}
	return llmsubj.New(stack, prompts, strategy, prices, llmsubj.Params{Temperature: o.Temperature, MaxTokens: o.MaxTokens}), nil
}
