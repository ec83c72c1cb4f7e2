package prompt

import (
	"encoding/json"
	"errors"
	"strings"
)

// AppSecAnswer is a model's full answer on an appsec case: the verdict Parse reads, and the
// fields of the appsec answer format. The fields are as the model wrote them (trimmed); a
// marker answer (no JSON object) has only the verdict.
type AppSecAnswer struct {
	Answer
	OWASP       string
	Severity    string
	CVSSVector  string
	Exploit     string
	Fix         string
	FixCode     string
	Explanation string
}

// AppSecSchemaName names AppSecSchema in a structured-output request.
const AppSecSchemaName = "appsec_answer"

// AppSecSchema is the JSON Schema of the appsec answer object, in the form OpenAI's strict
// structured outputs take (every property required, nullable ones typed with "null", no
// additional properties). It asks for exactly what the appsec answer format lists.
func AppSecSchema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	nullable := func(desc string) map[string]any {
		return map[string]any{"type": []any{"string", "null"}, "description": desc}
	}
	props := map[string]any{
		"vulnerable":  map[string]any{"type": "boolean"},
		"cwe":         nullable("CWE id like CWE-89; null when not vulnerable"),
		"owasp":       nullable("OWASP Top 10 2021 category like A03:2021; null when not vulnerable"),
		"severity":    map[string]any{"type": "string", "enum": []any{"Critical", "High", "Medium", "Low", "None"}},
		"cvss_vector": nullable("CVSS 3.1 base vector like CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H; null when not vulnerable"),
		"exploit":     str("how an attacker would exploit it; empty when safe"),
		"fix":         str("how to fix it; empty when safe"),
		"fix_code":    str("the whole snippet rewritten securely; empty when safe"),
		"explanation": str("why the code is or is not vulnerable"),
		"confidence":  map[string]any{"type": "number", "description": "0 to 1"},
	}
	req := []any{"vulnerable", "cwe", "owasp", "severity", "cvss_vector", "exploit", "fix", "fix_code", "explanation", "confidence"}
	return map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
}

// ParseAppSec reads an appsec answer: the verdict as Parse reads it, and from the same answer
// object the appsec fields (read tolerantly: keys in any case, a few synonyms, non-strings
// ignored). A reply whose verdict does not parse is an error, as for Parse.
func ParseAppSec(text string) (AppSecAnswer, error) {
	if strings.TrimSpace(text) == "" {
		return AppSecAnswer{}, errors.New("empty answer")
	}
	skip := quotedCode(text)
	a, obj, ok, jsonErr := parseJSON(text, skip)
	if !ok {
		base, err := Parse(text)
		if err != nil {
			if jsonErr != nil {
				return AppSecAnswer{}, jsonErr
			}
			return AppSecAnswer{}, err
		}
		return AppSecAnswer{Answer: base, Explanation: base.Reason}, nil
	}
	out := AppSecAnswer{Answer: a}
	get := func(keys ...string) string {
		for _, k := range keys {
			if raw, found := field(obj, k); found {
				var s string
				if json.Unmarshal(raw, &s) == nil {
					return strings.TrimSpace(s)
				}
			}
		}
		return ""
	}
	out.OWASP = get("owasp", "owasp_2021", "owasp_category")
	out.Severity = get("severity")
	out.CVSSVector = get("cvss_vector", "cvss", "cvss_3.1")
	out.Exploit = get("exploit", "exploit_scenario")
	out.Fix = get("fix", "fix_description", "remediation")
	out.FixCode = get("fix_code", "secure_code", "fixed_code")
	out.Explanation = get("explanation", "reason", "reasoning")
	return out, nil
}
