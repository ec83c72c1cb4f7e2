package llm

import (
	_ "embed"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed prices.yaml
var defaultPrices []byte

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input       float64
	CachedInput *float64 // cache reads; nil: the input rate
	CacheWrite  *float64 // cache creation (Anthropic bills it apart); nil: the input rate
	Output      float64  // reasoning tokens included
}

// Caps are what a model's API takes in a request.
type Caps struct {
	Temperature bool // a temperature may be sent
	Logprobs    bool // logprobs may be asked for (and come back)
	// MaxTokensParam names the answer budget: "max_tokens", or "max_completion_tokens" for
	// OpenAI's reasoning models, which refuse max_tokens.
	MaxTokensParam string
	// NoJSONSchema says the API refuses response_format json_schema (an older local server):
	// a Request's Schema is then not sent, and the answer is read from free text.
	NoJSONSchema bool
}

// DefaultCaps are a model's capabilities when the table says nothing about it.
func DefaultCaps() Caps { return Caps{Temperature: true, Logprobs: true, MaxTokensParam: "max_tokens"} }

// ReasoningCaps are those of OpenAI's reasoning models (o1, o3, o4-mini, gpt-5...): no
// temperature, no logprobs, max_completion_tokens.
func ReasoningCaps() Caps { return Caps{MaxTokensParam: "max_completion_tokens"} }

// entry is one row of the table.
type entry struct {
	price *Price // nil: listed for its capabilities only, unpriced
	caps  *Caps  // nil: DefaultCaps
	date  string // when the price was listed
	api   string // "openai": the provider serves an OpenAI-compatible API
	batch *float64
}

// Prices is the price and capability table, keyed "provider:model". Date is the table's date
// (the newest prices' date), to be printed with every cost: prices change.
type Prices struct {
	Date string
	// Batch is the share of the listed prices a provider's batch API charges (OpenAI's Batch
	// API and Anthropic's Message Batches: 0.5); 0: the table gives none. A row's batch: replaces it.
	Batch  float64
	models map[string]entry
	// atBatch: Cost charges the batch share (AtBatch).
	atBatch bool
}

// AtBatch is the table at batch prices: every Cost times the model's BatchFactor (a model with
// none stays at its list price).
func (p Prices) AtBatch() Prices {
	p.atBatch = true
	return p
}

// rawEntry is a row as written in YAML.
type rawEntry struct {
	Input        *float64 `yaml:"input"`
	CachedInput  *float64 `yaml:"cached_input"`
	CacheWrite   *float64 `yaml:"cache_write"`
	Output       *float64 `yaml:"output"`
	Reasoning    *bool    `yaml:"reasoning"`
	Capabilities *struct {
		Temperature    *bool  `yaml:"temperature"`
		Logprobs       *bool  `yaml:"logprobs"`
		MaxTokensParam string `yaml:"max_tokens_param"`
		JSONSchema     *bool  `yaml:"json_schema"`
	} `yaml:"capabilities"`
	Date  string   `yaml:"date"`
	API   string   `yaml:"api"`
	Batch *float64 `yaml:"batch"`
}

var rowKeys = map[string]bool{"input": true, "cached_input": true, "cache_write": true, "output": true,
	"reasoning": true, "capabilities": true, "date": true, "api": true, "batch": true}

// LoadPrices returns the embedded table, with the rows of path (when not "") merged in row by
// row: a row's prices replace the built-in ones when it gives any, its capabilities when it
// gives any, and its date (or its file's date:) goes with its prices.
func LoadPrices(path string) (Prices, error) {
	p, err := parsePrices(defaultPrices, "embedded prices")
	if err != nil {
		return Prices{}, err
	}
	if path == "" {
		return p, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Prices{}, fmt.Errorf("prices: %w", err)
	}
	over, err := parsePrices(b, path)
	if err != nil {
		return Prices{}, err
	}
	if over.Date != "" {
		p.Date = over.Date
	}
	if over.Batch != 0 {
		p.Batch = over.Batch
	}
	for k, v := range over.models {
		old := p.models[k]
		if v.price == nil {
			v.price, v.date = old.price, old.date
		}
		if v.caps == nil {
			v.caps = old.caps
		}
		if v.api == "" {
			v.api = old.api
		}
		if v.batch == nil {
			v.batch = old.batch
		}
		p.models[k] = v
	}
	return p, nil
}

func parsePrices(b []byte, name string) (Prices, error) {
	var doc map[string]yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return Prices{}, fmt.Errorf("%s: %w", name, err)
	}
	p := Prices{models: make(map[string]entry, len(doc))}
	if n, ok := doc["date"]; ok {
		if err := n.Decode(&p.Date); err != nil || n.Kind != yaml.ScalarNode {
			return Prices{}, fmt.Errorf("%s:%d: date is not like 2026-05", name, n.Line)
		}
		delete(doc, "date")
	}
	if n, ok := doc["batch"]; ok {
		if err := n.Decode(&p.Batch); err != nil || !(p.Batch > 0 && p.Batch <= 1) {
			return Prices{}, fmt.Errorf("%s:%d: batch is not a share of the listed prices in (0, 1], like 0.5", name, n.Line)
		}
		delete(doc, "batch")
	}
	for k, n := range doc {
		if !strings.Contains(k, ":") {
			return Prices{}, fmt.Errorf("%s:%d: %q is not provider:model (like openai:gpt-4o-mini)", name, n.Line, k)
		}
		if n.Kind != yaml.MappingNode {
			return Prices{}, fmt.Errorf("%s:%d: %s is not a mapping like {input: 1.0, output: 2.0}", name, n.Line, k)
		}
		for i := 0; i < len(n.Content); i += 2 {
			if f := n.Content[i].Value; !rowKeys[f] {
				return Prices{}, fmt.Errorf("%s:%d: %s: unknown field %q", name, n.Content[i].Line, k, f)
			}
		}
		var r rawEntry
		if err := n.Decode(&r); err != nil {
			return Prices{}, fmt.Errorf("%s:%d: %s: %w", name, n.Line, k, err)
		}
		e, err := r.entry(p.Date)
		if err != nil {
			return Prices{}, fmt.Errorf("%s:%d: %s %w", name, n.Line, k, err)
		}
		p.models[k] = e
	}
	return p, nil
}

func (r rawEntry) entry(fileDate string) (entry, error) {
	e := entry{date: r.Date, api: r.API, batch: r.Batch}
	if r.Batch != nil && !(*r.Batch > 0 && *r.Batch <= 1) {
		return e, fmt.Errorf("has batch %v; it is a share of the listed prices in (0, 1], like 0.5", *r.Batch)
	}
	if e.date == "" {
		e.date = fileDate
	}
	if r.API != "" && r.API != "openai" {
		return e, fmt.Errorf("has api %q; the only one known is openai (an OpenAI-compatible API)", r.API)
	}
	for _, v := range []*float64{r.Input, r.CachedInput, r.CacheWrite, r.Output} {
		if v != nil && *v < 0 {
			return e, fmt.Errorf("has a negative price")
		}
	}
	if r.Input != nil || r.Output != nil {
		if r.Input == nil || r.Output == nil {
			return e, fmt.Errorf("needs both input and output prices")
		}
		e.price = &Price{Input: *r.Input, CachedInput: r.CachedInput, CacheWrite: r.CacheWrite, Output: *r.Output}
	} else if r.CachedInput != nil || r.CacheWrite != nil {
		return e, fmt.Errorf("needs input and output prices")
	}
	if r.Reasoning != nil || r.Capabilities != nil {
		c := DefaultCaps()
		if r.Reasoning != nil && *r.Reasoning {
			c = ReasoningCaps()
		}
		if rc := r.Capabilities; rc != nil {
			if rc.Temperature != nil {
				c.Temperature = *rc.Temperature
			}
			if rc.Logprobs != nil {
				c.Logprobs = *rc.Logprobs
			}
			if rc.JSONSchema != nil {
				c.NoJSONSchema = !*rc.JSONSchema
			}
			switch rc.MaxTokensParam {
			case "":
			case "max_tokens", "max_completion_tokens":
				c.MaxTokensParam = rc.MaxTokensParam
			default:
				return e, fmt.Errorf("has max_tokens_param %q: use max_tokens or max_completion_tokens", rc.MaxTokensParam)
			}
		}
		e.caps = &c
	}
	return e, nil
}

// find returns the row for spec: the exact "provider:model", else the longest listed name that
// the model id extends with a dash (a dated snapshot such as gpt-4o-mini-2024-07-18), else, for
// an openai: spec, the same model listed under a provider whose API is OpenAI-compatible (api:
// openai, like moonshot:kimi-k2.6 served at --base-url). has picks the rows that count.
func (p Prices) find(spec string, has func(entry) bool) (entry, bool) {
	if e, ok := p.models[spec]; ok && has(e) {
		return e, true
	}
	best := ""
	for k, e := range p.models {
		if has(e) && strings.HasPrefix(spec, k+"-") && len(k) > len(best) {
			best = k
		}
	}
	if best != "" {
		return p.models[best], true
	}
	provider, model, _ := strings.Cut(spec, ":")
	if provider != "openai" {
		return entry{}, false
	}
	var others []string
	for k, e := range p.models {
		if e.api == "openai" && !strings.HasPrefix(k, "openai:") {
			if _, m, _ := strings.Cut(k, ":"); m != "" && (spec == "openai:"+m || strings.HasPrefix(model, m+"-")) {
				others = append(others, k)
			}
		}
	}
	sort.Strings(others) // one answer, whatever the map's order
	for _, k := range others {
		if has(p.models[k]) {
			return p.models[k], true
		}
	}
	return entry{}, false
}

// Lookup finds a model's price (see find for how spec is matched); ok is false when the table
// has none for it.
func (p Prices) Lookup(spec string) (Price, bool) {
	e, ok := p.find(spec, func(e entry) bool { return e.price != nil })
	if !ok {
		return Price{}, false
	}
	return *e.price, true
}

// DateOf is the date of the price Lookup finds for spec ("" when unpriced or undated).
func (p Prices) DateOf(spec string) string {
	e, ok := p.find(spec, func(e entry) bool { return e.price != nil })
	if !ok {
		return ""
	}
	return e.date
}

// Capabilities are what spec's API takes: the row found as for prices (rows listed for their
// capabilities only count too), else DefaultCaps. Anthropic never returns logprobs.
func (p Prices) Capabilities(spec string) Caps {
	c := DefaultCaps()
	if e, ok := p.find(spec, func(e entry) bool { return e.caps != nil }); ok {
		c = *e.caps
	}
	if strings.HasPrefix(spec, "anthropic:") {
		c.Logprobs = false
	}
	return c
}

// BatchFactor is the share of spec's listed prices its provider's batch API charges: the row's
// batch:, else the table's; ok is false when spec is unpriced or no factor is given.
func (p Prices) BatchFactor(spec string) (factor float64, ok bool) {
	e, ok := p.find(spec, func(e entry) bool { return e.price != nil })
	if !ok {
		return 0, false
	}
	if e.batch != nil {
		return *e.batch, true
	}
	return p.Batch, p.Batch > 0
}

// BatchCost is Cost at batch prices (Cost times BatchFactor); ok is false when either is unknown.
func (p Prices) BatchCost(spec string, u Usage) (cost float64, ok bool) {
	f, ok := p.BatchFactor(spec)
	if !ok {
		return 0, false
	}
	p.atBatch = false
	c, ok := p.Cost(spec, u)
	return c * f, ok
}

// Cost is the USD cost of usage for spec; ok is false when the model is not priced ("unpriced",
// never $0). Cache reads and writes are billed at their rates (the input rate when the table
// has none); reasoning tokens are inside OutputTokens and billed once, at the output rate.
func (p Prices) Cost(spec string, u Usage) (cost float64, ok bool) {
	pr, ok := p.Lookup(spec)
	if !ok {
		return 0, false
	}
	cached, write := pr.Input, pr.Input
	if pr.CachedInput != nil {
		cached = *pr.CachedInput
	}
	if pr.CacheWrite != nil {
		write = *pr.CacheWrite
	}
	k := 1.0
	if p.atBatch {
		if f, ok := p.BatchFactor(spec); ok {
			k = f
		}
	}
	fresh := u.InputTokens - u.CachedInputTokens - u.CacheWriteTokens
	return k * (float64(fresh)*pr.Input + float64(u.CachedInputTokens)*cached + float64(u.CacheWriteTokens)*write +
		float64(u.OutputTokens)*pr.Output) / 1e6, true
}
