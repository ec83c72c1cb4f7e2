package llm

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed prices.yaml
var defaultPrices []byte

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input       float64  `yaml:"input"`
	CachedInput *float64 `yaml:"cached_input"`
	Output      float64  `yaml:"output"`
}

// Prices maps "provider:model" to its price.
type Prices map[string]Price

// LoadPrices returns the embedded table, with the entries of path (when not "") replacing it key
// by key.
func LoadPrices(path string) (Prices, error) {
	p, err := parsePrices(defaultPrices, "embedded prices")
	if err != nil {
		return nil, err
	}
	if path == "" {
		return p, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("prices: %w", err)
	}
	over, err := parsePrices(b, path)
	if err != nil {
		return nil, err
	}
	for k, v := range over {
		p[k] = v
	}
	return p, nil
}

func parsePrices(b []byte, name string) (Prices, error) {
	var p Prices
	if err := yaml.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for k, v := range p {
		if !strings.Contains(k, ":") {
			return nil, fmt.Errorf("%s: %q is not provider:model (like openai:gpt-4o-mini)", name, k)
		}
		if v.Input < 0 || v.Output < 0 || (v.CachedInput != nil && *v.CachedInput < 0) {
			return nil, fmt.Errorf("%s: %s has a negative price", name, k)
		}
	}
	return p, nil
}

// Lookup finds a model's price: the exact "provider:model", else the longest listed name that
// the model id extends with a dash (a dated snapshot such as gpt-4o-mini-2024-07-18).
func (p Prices) Lookup(spec string) (Price, bool) {
	if v, ok := p[spec]; ok {
		return v, true
	}
	best := ""
	for k := range p {
		if strings.HasPrefix(spec, k+"-") && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return Price{}, false
	}
	return p[best], true
}

// Cost is the USD cost of usage for spec; ok is false when the model is not priced ("unpriced",
// never $0).
func (p Prices) Cost(spec string, u Usage) (cost float64, ok bool) {
	pr, ok := p.Lookup(spec)
	if !ok {
		return 0, false
	}
	cached := pr.Input
	if pr.CachedInput != nil {
		cached = *pr.CachedInput
	}
	fresh := u.InputTokens - u.CachedInputTokens
	return (float64(fresh)*pr.Input + float64(u.CachedInputTokens)*cached + float64(u.OutputTokens)*pr.Output) / 1e6, true
}
