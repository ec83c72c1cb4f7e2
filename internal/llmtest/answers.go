package llmtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Answers answers every task vulnbench asks a model, in the task's own answer format, by a
// fixed rule of the prompt (it reads no code the way a model would): the figures of a run
// against it show that the pipeline works, not how good a model is. bench/llmserver and the
// documentation's journeys serve it.
//
//   - A VEX task (the twelve categories): "vulnerable" when the conversation (the case's prompt,
//     tool results included) names an affected version, else "code_not_present".
//   - An AppSecBench task (the full answer with "owasp"): every field filled, vulnerable when the
//     snippet holds a risky call (below), with the strict JSON-schema mode's fields all present.
//   - Anything else (function and jit cases, the CLIs' side calls): {"vulnerable", "cwe",
//     "confidence", "reason"}, vulnerable when the prompt holds a risky call: strcpy, strcat,
//     sprintf, gets, memcpy, system, eval, exec.
//
// With tools, a tool-calling subject's first turns call tools[0], tools[1], ... in order, each
// with the function the prompt asks about ({"function": NAME}, NAME from the prompt's first
// `NAME` after "function"), and then answer as above.
func Answers(tools ...string) Handler {
	return func(r Request) Reply {
		if turn := r.Turn(); turn < len(tools) && len(r.Messages) > 0 {
			name := ""
			if m := targetFunction.FindStringSubmatch(r.Messages[0].Content); m != nil {
				name = m[1]
			}
			args, _ := json.Marshal(map[string]string{"function": name})
			return Reply{ToolCalls: []ToolCall{{ID: fmt.Sprintf("call_%d", turn), Name: tools[turn], Arguments: string(args)}},
				InputTokens: 900, OutputTokens: 20}
		}
		return Reply{Text: Answer(r.Prompt()), InputTokens: 900, OutputTokens: 40}
	}
}

var (
	targetFunction = regexp.MustCompile("function `([^`]+)`")
	risky          = regexp.MustCompile(`\b(strcpy|strcat|sprintf|gets|memcpy|system|eval|exec)\s*\(`)
)

// Answer is Answers' text for a prompt.
func Answer(prompt string) string {
	vul := risky.MatchString(prompt)
	switch {
	case strings.Contains(prompt, `"category": "<one of the twelve>"`):
		cat := "code_not_present"
		if strings.Contains(strings.ToLower(prompt), "affected") && strings.Contains(prompt, "version") {
			cat = "vulnerable"
		}
		return fmt.Sprintf(`{"category": %q, "reasoning": "llmtest.Answers: a fixed rule, not an analysis"}`, cat)
	case strings.Contains(prompt, `"owasp"`):
		a := map[string]any{"vulnerable": vul, "cwe": nil, "owasp": nil, "severity": "None", "cvss_vector": nil,
			"exploit": "", "fix": "", "fix_code": "", "explanation": "llmtest.Answers: no risky call", "confidence": 0.6}
		if vul {
			a = map[string]any{"vulnerable": true, "cwe": "CWE-78", "owasp": "A03:2021", "severity": "High",
				"cvss_vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "exploit": "input reaches the risky call",
				"fix": "validate the input", "fix_code": "", "explanation": "llmtest.Answers: a risky call", "confidence": 0.7}
		}
		b, _ := json.Marshal(a)
		return string(b)
	default:
		if vul {
			return `{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.7, "reason": "llmtest.Answers: a risky call"}`
		}
		return `{"vulnerable": false, "cwe": null, "confidence": 0.6, "reason": "llmtest.Answers: no risky call"}`
	}
}
