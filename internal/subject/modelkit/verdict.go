package modelkit

import (
	"math"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// VerdictOf reads a model's answer: a failed verdict (with the raw text) when it cannot be parsed;
// the score from the logprobs of the answer token when there are, else from the stated confidence.
func VerdictOf(text string, logprobs []llm.TokenLogprob) verdict.Verdict {
	ans, perr := prompt.Parse(text)
	if perr != nil {
		return verdict.Verdict{Status: verdict.Failed, Reason: perr.Error(), Raw: text}
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, CWE: ans.CWE, Explanation: ans.Reason, Confidence: ans.Confidence}
	if ans.Vulnerable {
		v.Label = suite.Vul
	}
	if ans.Via == prompt.ViaJSON {
		if v.Score = VulnerableProbability(logprobs); v.Score != nil {
			v.ScoreSource = verdict.FromLogprob
		}
	}
	if v.Score == nil && ans.Confidence != nil {
		p := *ans.Confidence
		if !ans.Vulnerable {
			p = 1 - p
		}
		v.Score, v.ScoreSource = verdict.Float(p), verdict.FromStated
	}
	return v
}

// VulnerableProbability reads P(vulnerable) from the log-probabilities of the answer's
// "vulnerable": true|false token (its last occurrence, as the parser takes the last answer
// object). When the alternatives include the other value, the two are normalised against each
// other; otherwise P = p(token) for true and 1 - p(token) for false. nil when not found.
func VulnerableProbability(lps []llm.TokenLogprob) *float64 {
	var text strings.Builder
	found := -1
	for i, lp := range lps {
		before := text.String()
		text.WriteString(lp.Token)
		tok := strings.ToLower(strings.Trim(lp.Token, " \t\n\"'"))
		if tok != "true" && tok != "false" {
			continue
		}
		key := strings.LastIndex(before, `"vulnerable"`)
		if key >= 0 && strings.Trim(before[key+len(`"vulnerable"`):], " \t\n:\"") == "" {
			found = i
		}
	}
	if found < 0 {
		return nil
	}
	lp := lps[found]
	chosen := strings.ToLower(strings.Trim(lp.Token, " \t\n\"'"))
	pTrue, pFalse := math.NaN(), math.NaN()
	for _, alt := range append([]llm.TokenLogprob{lp}, lp.Top...) {
		switch strings.ToLower(strings.Trim(alt.Token, " \t\n\"'")) {
		case "true":
			if math.IsNaN(pTrue) {
				pTrue = math.Exp(alt.Logprob)
			}
		case "false":
			if math.IsNaN(pFalse) {
				pFalse = math.Exp(alt.Logprob)
			}
		}
	}
	var p float64
	switch {
	case !math.IsNaN(pTrue) && !math.IsNaN(pFalse) && pTrue+pFalse > 0:
		p = pTrue / (pTrue + pFalse)
	case chosen == "true":
		p = pTrue
	default:
		p = 1 - pFalse
	}
	p = min(1, max(0, p))
	return &p
}
