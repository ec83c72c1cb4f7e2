package prompt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fewShotCWEs are the ten CWE Top 25 weaknesses the few-shot pairs cover, one pair each.
func fewShotCWEs() []string {
	return []string{"CWE-787", "CWE-79", "CWE-89", "CWE-416", "CWE-78", "CWE-20", "CWE-125", "CWE-22", "CWE-476", "CWE-190"}
}

// pair is one few-shot example pair, as stored in fewshot/*.yaml.
type pair struct {
	CWE        string  `yaml:"cwe"`
	Name       string  `yaml:"name"`
	Language   string  `yaml:"language"`
	Vulnerable example `yaml:"vulnerable"`
	Patched    example `yaml:"patched"`
}

// example is one half of a pair: the code, why it is vulnerable (or which safeguard makes it
// safe), and the answer a model should give.
type example struct {
	Code        string        `yaml:"code"`
	Explanation string        `yaml:"explanation"`
	Answer      exampleAnswer `yaml:"answer"`
}

// exampleAnswer is the JSON answer object the prompts ask for.
type exampleAnswer struct {
	Vulnerable *bool    `yaml:"vulnerable"`
	CWE        *string  `yaml:"cwe"`
	Confidence *float64 `yaml:"confidence"`
	Reason     string   `yaml:"reason"`
}

func decodePair(b []byte) (pair, error) {
	var p pair
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return pair{}, fmt.Errorf("decode: %w", err)
	}
	return p, nil
}

// check reports the first problem of one pair.
func (p pair) check() error {
	if !slices.Contains(fewShotCWEs(), p.CWE) {
		return fmt.Errorf("cwe %q is not one of %s", p.CWE, strings.Join(fewShotCWEs(), ", "))
	}
	if strings.TrimSpace(p.Name) == "" {
		return fmt.Errorf("%s: missing name", p.CWE)
	}
	if fenceTag(p.Language) == "" || languageName(p.Language) == "" {
		return fmt.Errorf("%s: missing language", p.CWE)
	}
	for _, h := range []struct {
		half string
		ex   example
		vul  bool
	}{{"vulnerable", p.Vulnerable, true}, {"patched", p.Patched, false}} {
		e := h.ex
		switch {
		case strings.TrimSpace(e.Code) == "":
			return fmt.Errorf("%s: %s example has no code", p.CWE, h.half)
		case strings.TrimSpace(e.Explanation) == "":
			return fmt.Errorf("%s: %s example has no explanation", p.CWE, h.half)
		case e.Answer.Vulnerable == nil || *e.Answer.Vulnerable != h.vul:
			return fmt.Errorf("%s: %s example's answer must say vulnerable: %t", p.CWE, h.half, h.vul)
		case e.Answer.Confidence == nil || *e.Answer.Confidence < 0 || *e.Answer.Confidence > 1:
			return fmt.Errorf("%s: %s example's answer needs a confidence in [0,1]", p.CWE, h.half)
		case strings.TrimSpace(e.Answer.Reason) == "":
			return fmt.Errorf("%s: %s example's answer has no reason", p.CWE, h.half)
		}
		if h.vul && (e.Answer.CWE == nil || *e.Answer.CWE != p.CWE) {
			return fmt.Errorf("%s: the vulnerable example's answer must name %s", p.CWE, p.CWE)
		}
		if !h.vul && e.Answer.CWE != nil {
			return fmt.Errorf("%s: the patched example's answer must have cwe: null", p.CWE)
		}
	}
	if strings.TrimSpace(p.Vulnerable.Code) == strings.TrimSpace(p.Patched.Code) {
		return fmt.Errorf("%s: the vulnerable and patched code are the same", p.CWE)
	}
	return nil
}

// checkPairs checks every pair, and that each CWE of the list has exactly one.
func checkPairs(ps []pair) error {
	seen := map[string]bool{}
	for _, p := range ps {
		if err := p.check(); err != nil {
			return err
		}
		if seen[p.CWE] {
			return fmt.Errorf("two pairs for %s", p.CWE)
		}
		seen[p.CWE] = true
	}
	var missing []string
	for _, c := range fewShotCWEs() {
		if !seen[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no pair for %s", strings.Join(missing, ", "))
	}
	return nil
}

// exampleView is a pair as the few-shot template shows it.
type exampleView struct {
	N          int
	CWE        string
	Name       string
	Language   string
	Vulnerable halfView
	Patched    halfView
}

type halfView struct {
	Code        string // fenced
	Explanation string
	Answer      string // the JSON answer object, on one line
}

func (p pair) view(n int) (exampleView, error) {
	v := exampleView{N: n, CWE: p.CWE, Name: p.Name, Language: languageName(p.Language)}
	for _, h := range []struct {
		dst *halfView
		ex  example
	}{{&v.Vulnerable, p.Vulnerable}, {&v.Patched, p.Patched}} {
		a, err := h.ex.Answer.json()
		if err != nil {
			return exampleView{}, err
		}
		*h.dst = halfView{
			Code:        codeBlock(h.ex.Code, p.Language),
			Explanation: strings.Join(strings.Fields(h.ex.Explanation), " "),
			Answer:      a,
		}
	}
	return v, nil
}

// json renders the answer as the prompts ask for it, fields in the documented order:
// {"vulnerable": true, "cwe": "CWE-787", "confidence": 0.9, "reason": "..."}.
func (a exampleAnswer) json() (string, error) {
	if a.Vulnerable == nil || a.Confidence == nil {
		return "", errors.New("incomplete answer")
	}
	cwe, err := marshal(a.CWE)
	if err != nil {
		return "", err
	}
	reason, err := marshal(strings.Join(strings.Fields(a.Reason), " "))
	if err != nil {
		return "", err
	}
	conf, err := marshal(*a.Confidence)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`{"vulnerable": %t, "cwe": %s, "confidence": %s, "reason": %s}`, *a.Vulnerable, cwe, conf, reason), nil
}

// marshal encodes v as JSON without HTML escaping (the prompt is not HTML).
func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}
