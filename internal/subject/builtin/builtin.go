// Package builtin is the explicit list of the subject kinds vulnbench ships: each with its flags,
// its typed configuration, its version, the case kinds and languages it judges, and what it needs.
package builtin

import (
	"net/url"
	"time"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/agent/react"
	vexagent "github.com/vulnbench/vulnbench/internal/agent/vex"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/baseline"
	"github.com/vulnbench/vulnbench/internal/subject/depaug"
	"github.com/vulnbench/vulnbench/internal/subject/govulncheck"
	"github.com/vulnbench/vulnbench/internal/subject/jitctx"
	"github.com/vulnbench/vulnbench/internal/subject/llmsubj"
	"github.com/vulnbench/vulnbench/internal/subject/predictions"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/subject/sca"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Registry lists every subject kind vulnbench ships, in the order --help shows them.
func Registry() *subject.Registry {
	kinds := []subject.Factory{random(), constant(), predictionsKind(), llmKind(), depaugKind(), reactKind()}
	kinds = append(kinds, scanners()...)
	return subject.NewRegistry(append(kinds, sarifKind(), scaKind(), govulncheckKind(), vexAgentKind())...)
}

var seedFlag = subject.Flag{Name: "seed", Default: int64(42), Usage: "seed for subjects that draw random numbers"}

func random() subject.Factory {
	return subject.Factory{
		Name: "random", Usage: "random", Kinds: suite.Kinds, Version: baseline.Version,
		Summary: "seeded random guesser with a score in [0,1] (--seed); the floor every subject must beat",
		Flags:   []subject.Flag{seedFlag},
		Configure: func(_ string, v subject.Values) (subject.Config, error) {
			return baseline.RandomConfig{Seed: v.Int64("seed")}, nil
		},
		New: func(cfg subject.Config, _ subject.Deps) (subject.Subject, error) {
			return baseline.Random{Seed: cfg.(baseline.RandomConfig).Seed}, nil
		},
	}
}

func constant() subject.Factory {
	return subject.Factory{
		Name: "constant", Usage: "constant:vul|ben", Kinds: suite.Kinds, ArgReq: true, Version: baseline.Version,
		Summary: "always answers the same label",
		Configure: func(arg string, _ subject.Values) (subject.Config, error) {
			c := baseline.ConstantConfig{Label: suite.Label(arg)}
			return c, c.Validate()
		},
		New: func(cfg subject.Config, _ subject.Deps) (subject.Subject, error) {
			return baseline.Constant{Label: cfg.(baseline.ConstantConfig).Label}, nil
		},
	}
}

func predictionsKind() subject.Factory {
	return subject.Factory{
		Name: "predictions", Usage: "predictions:FILE", Kinds: suite.Kinds, ArgReq: true, Version: predictions.Version,
		Summary: "replays predictions made elsewhere: vulnbench JSONL or PrimeVul's predictions.txt (matched by idx)",
		Flags: []subject.Flag{{Name: "delay", Default: time.Duration(0), Hidden: true, Resumable: true,
			Usage: "wait this long before each predictions answer (for tests)"}},
		Configure: func(arg string, v subject.Values) (subject.Config, error) {
			c := predictions.Config{File: arg, Delay: v.Duration("delay")}
			return c, c.Validate()
		},
		New: func(cfg subject.Config, _ subject.Deps) (subject.Subject, error) {
			c := cfg.(predictions.Config)
			return predictions.Load(c.File, c.Delay)
		},
	}
}

func llmKind() subject.Factory {
	return subject.Factory{
		Name: "llm", Usage: "llm", Kinds: []suite.Kind{suite.KindFunction, suite.KindJIT, suite.KindAppSec}, Version: llmsubj.Version,
		Summary: "a model (--model PROVIDER:MODEL, --prompt vanilla|cot|fs|cot+fs) on the case's code; score from logprobs, else the stated confidence",
		Needs:   subject.Needs{Network: true},
		Flags:   llmFlags(),
		Configure: func(_ string, v subject.Values) (subject.Config, error) {
			c := llmConfig(v)
			return c, c.Validate()
		},
		New: func(cfg subject.Config, d subject.Deps) (subject.Subject, error) {
			return llmsubj.Build(cfg.(llmsubj.Config), d.Cache, d.Getenv)
		},
	}
}

// llmFlags are the flags of every model subject (llm, depaug, react): shared by name, so one
// --model or --prompt serves whichever runs.
func llmFlags() []subject.Flag {
	return []subject.Flag{
		{Name: "model", Default: "", Usage: "llm, depaug, react: PROVIDER:MODEL, e.g. openai:gpt-4o-mini or anthropic:claude-3-5-haiku-latest (keys from OPENAI_API_KEY / ANTHROPIC_API_KEY)"},
		{Name: "base-url", Default: "", Scrub: ScrubURL, Usage: "llm: an OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio), e.g. http://127.0.0.1:8000/v1"},
		{Name: "prompt", Default: "vanilla", Usage: "llm: prompting strategy: vanilla, cot, fs or cot+fs"},
		{Name: "prices", Default: "", Resumable: true, Usage: "llm: YAML table of prices and request capabilities whose rows replace the built-in ones, e.g.\n" +
			"date: 2026-05\n" +
			"openai:my-model: {input: 0.5, cached_input: 0.05, cache_write: 0.5, output: 2.0}   # USD per million tokens\n" +
			"openai:my-reasoner: {input: 1, output: 4, reasoning: true}   # no temperature/logprobs, max_completion_tokens\n" +
			"openai:my-local: {capabilities: {temperature: false, logprobs: false, max_tokens_param: max_completion_tokens}}\n" +
			"moonshot:kimi-k2.6: {input: 0.6, output: 2.5, api: openai}   # priced for --model openai:kimi-k2.6 --base-url URL\n" +
			"(each cost is printed with its row's date:, else the file's)"},
		{Name: "temperature", Default: 0.0, Usage: "llm: sampling temperature"},
		{Name: "max-tokens", Default: 0, Usage: "llm: answer budget in tokens (0: the provider's default; Anthropic: 2048)"},
		{Name: "rpm", Default: 0, Resumable: true, Usage: "llm: requests per minute allowed (0: as the provider's rate-limit headers say, when it sends them; a 429 always halves the calls in flight)"},
		{Name: "tpm", Default: 0, Resumable: true, Usage: "llm: tokens per minute allowed (0: no limit)"},
		{Name: "max-retries", Default: llm.DefaultRetry().MaxRetries, Resumable: true, Usage: "llm: retries of a retryable fault (429, 5xx, timeout, dropped connection)"},
		{Name: "call-timeout", Default: 2 * time.Minute, Resumable: true, Usage: "llm: limit per model call (a call over it is retried; 0: no limit)"},
		{Name: "retry-base", Default: llm.DefaultRetry().Base, Resumable: true, Hidden: true, Usage: "llm: first backoff between retries (doubles each time)"},
	}
}

func llmConfig(v subject.Values) llmsubj.Config {
	return llmsubj.Config{Model: v.String("model"), BaseURL: v.String("base-url"), Prompt: v.String("prompt"),
		PricesFile: v.String("prices"), Temperature: v.Float("temperature"), MaxTokens: v.Int("max-tokens"),
		RPM: v.Int("rpm"), TPM: v.Int("tpm"), MaxRetries: v.Int("max-retries"),
		CallTimeout: v.Duration("call-timeout"), RetryBase: v.Duration("retry-base")}
}

// contextFlag is where depaug and react take a jit case's callers, callees and definitions from.
func contextFlag() subject.Flag {
	return subject.Flag{Name: "context", Default: string(jitctx.Auto), Usage: "depaug, react: where callers, callees and definitions come from: " +
		"live (the code graph of the case's snapshot, under --repos), precomputed (the graphs and bodies an imported JitVul case keeps in meta.context) " +
		"or auto (live when the case has a repository, else precomputed; a case with neither is an error)"}
}

func depaugKind() subject.Factory {
	return subject.Factory{
		Name: "depaug", Usage: "depaug", Kinds: []suite.Kind{suite.KindJIT}, Version: depaug.Version,
		Summary: "a model on a jit case's function plus its top-5 callers and callees by token Jaccard similarity, from the case's snapshot (--repos)",
		Needs:   subject.Needs{Network: true},
		Flags:   append(llmFlags(), contextFlag()),
		Configure: func(_ string, v subject.Values) (subject.Config, error) {
			c := depaug.Config{Config: llmConfig(v), K: depaug.DefaultK, Context: jitctx.Mode(v.String("context"))}
			return c, c.Validate()
		},
		New: func(cfg subject.Config, d subject.Deps) (subject.Subject, error) {
			return depaug.Build(cfg.(depaug.Config), d.Cache, d.Getenv)
		},
	}
}

func reactKind() subject.Factory {
	return subject.Factory{
		Name: "react", Usage: "react", Kinds: []suite.Kind{suite.KindJIT}, Version: react.Version,
		Summary: "a ReAct agent with get_callers, get_callees and get_definition over the case's snapshot (--repos); --max-steps defaults to 15 here",
		Needs:   subject.Needs{Network: true},
		Flags: append(llmFlags(),
			subject.Flag{Name: "tool-protocol", Default: "native", Usage: "react: how tools are called: native (the API's tool calls) or text (Thought / Action / Action Input / Observation, for servers without tools)"},
			subject.Flag{Name: "agent-extra-tools", Default: false, Usage: "react: also offer read_file and search over the snapshot (off: the paper's three tools)"},
			contextFlag()),
		Configure: func(_ string, v subject.Values) (subject.Config, error) {
			c := react.Config{Config: llmConfig(v), ToolProtocol: v.String("tool-protocol"), MaxSteps: agent.DefaultMaxSteps,
				ExtraTools: v.Bool("agent-extra-tools"), Context: jitctx.Mode(v.String("context"))}
			return c, c.Validate()
		},
		New: func(cfg subject.Config, d subject.Deps) (subject.Subject, error) {
			return react.Build(cfg.(react.Config), d.Cache, d.Getenv)
		},
	}
}

// scanners are the subject kinds of the scanner table (sast.Scanners), one per tool.
func scanners() []subject.Factory {
	minLevel := subject.Flag{Name: "min-level", Default: 1, Usage: "flawfinder: lowest hit level (0-5) that makes a case vul"}
	var fs []subject.Factory
	for _, s := range sast.Scanners() {
		f := subject.Factory{
			Name: s.Name, Usage: s.Name, Kinds: suite.Kinds, Languages: s.Languages, Version: sast.ToolVersion,
			Summary: s.Summary + "; jit and vex cases: one scan per snapshot, findings matched to the target",
			Needs:   subject.Needs{Binaries: []subject.Binary{{Name: s.Binary, Install: s.Install}}},
			Configure: func(_ string, v subject.Values) (subject.Config, error) {
				c := sast.ToolConfig{Tool: s.Name}
				if s.Levels {
					c.MinLevel = v.Int(minLevel.Name)
				}
				return c, c.Validate()
			},
			New: func(cfg subject.Config, _ subject.Deps) (subject.Subject, error) {
				return sast.NewTool(cfg.(sast.ToolConfig))
			},
		}
		if s.Levels {
			f.Flags = []subject.Flag{minLevel}
		}
		fs = append(fs, f)
	}
	return fs
}

func sarifKind() subject.Factory {
	return subject.Factory{
		Name: "sarif", Usage: "sarif:FILE", Kinds: []suite.Kind{suite.KindFunction, suite.KindJIT, suite.KindAppSec}, ArgReq: true, Version: sast.SARIFVersion,
		Summary: "scores any tool's SARIF file made elsewhere: a case is vul when a finding's file and lines meet its target (matcher version in the manifest)",
		Configure: func(arg string, _ subject.Values) (subject.Config, error) {
			c := sast.SARIFConfig{File: arg}
			return c, c.Validate()
		},
		New: func(cfg subject.Config, _ subject.Deps) (subject.Subject, error) {
			return sast.LoadSARIF(cfg.(sast.SARIFConfig))
		},
	}
}

// advisoriesFlag is read by every subject that looks CVEs up offline.
var advisoriesFlag = subject.Flag{Name: "advisories", Default: "",
	Usage: "OSV records for vex cases: a directory (GitHub Advisory Database, Go vulndb, any .json files) or an osv.dev all.zip"}

func scaKind() subject.Factory {
	return subject.Factory{
		Name: "sca", Usage: "sca", Kinds: []suite.Kind{suite.KindVEX}, Version: sca.Version,
		Summary: "plain version matching on vex cases (--advisories, --repos): an affected version in a manifest is vulnerable, else code_not_present",
		Flags:   []subject.Flag{advisoriesFlag},
		Configure: func(_ string, v subject.Values) (subject.Config, error) {
			c := sca.Config{Advisories: v.String("advisories")}
			return c, c.Validate()
		},
		New: func(cfg subject.Config, _ subject.Deps) (subject.Subject, error) {
			return sca.New(cfg.(sca.Config))
		},
	}
}

func govulncheckKind() subject.Factory {
	return subject.Factory{
		Name: "govulncheck", Usage: "govulncheck", Kinds: []suite.Kind{suite.KindVEX}, Languages: []string{"go"}, Version: govulncheck.Version,
		Summary: "symbol-level reachability on Go vex cases: govulncheck, offline, against a local Go vulnerability database written from --advisories (a project that does not build is an error)",
		Needs:   subject.Needs{Binaries: []subject.Binary{{Name: govulncheck.Binary, Install: govulncheck.Install}}},
		Flags:   []subject.Flag{advisoriesFlag},
		Configure: func(_ string, v subject.Values) (subject.Config, error) {
			c := govulncheck.Config{Advisories: v.String("advisories")}
			return c, c.Validate()
		},
		New: func(cfg subject.Config, _ subject.Deps) (subject.Subject, error) {
			return govulncheck.New(cfg.(govulncheck.Config))
		},
	}
}

func vexAgentKind() subject.Factory {
	return subject.Factory{
		Name: "vex-agent", Usage: "vex-agent", Kinds: []suite.Kind{suite.KindVEX}, Version: vexagent.Version,
		Summary: "the VEX-Bench agent: list_dir, read_file, search, find_dependency, get_advisory and the code graph over the case's snapshot (--repos, --advisories); answers one of the twelve ordered categories; 10 minutes per case unless --timeout",
		Needs:   subject.Needs{Network: true},
		Flags: append(llmFlags(),
			subject.Flag{Name: "tool-protocol", Default: "native", Usage: "react: how tools are called: native (the API's tool calls) or text (Thought / Action / Action Input / Observation, for servers without tools)"},
			advisoriesFlag),
		Configure: func(_ string, v subject.Values) (subject.Config, error) {
			c := vexagent.Config{Config: llmConfig(v), ToolProtocol: v.String("tool-protocol"), MaxSteps: vexagent.DefaultMaxSteps,
				Advisories: v.String("advisories")}
			return c, c.Validate()
		},
		New: func(cfg subject.Config, d subject.Deps) (subject.Subject, error) {
			return vexagent.Build(cfg.(vexagent.Config), d.Cache, d.Getenv)
		},
	}
}

// ScrubURL drops user info, query and fragment from a URL: what may hold a secret.
func ScrubURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
