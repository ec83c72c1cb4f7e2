// Package vex is the VEX-Bench task as every vex subject asks it (vex-agent, the agent CLIs):
// the twelve ordered categories, the user prompt naming the case's vulnerability, the tolerant
// parser of the {"category","reasoning"} answer and the verdict it makes.
package vex

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Verdict is the verdict of a final answer: ok with the category and the reasoning's first line
// as its VEX answer (vul for "vulnerable", else ben), or failed with the parser's reason and the
// raw text kept.
func Verdict(text string) verdict.Verdict {
	cat, reasoning, err := ParseAnswer(text)
	if err != nil {
		return verdict.Verdict{Status: verdict.Failed, Reason: err.Error(), Raw: text}
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, VEX: verdict.VEXAnswer(cat, firstLine(reasoning)), Explanation: reasoning}
	if cat == suite.VEXVulnerable {
		v.Label = suite.Vul
	}
	return v
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 500 {
		s = strings.ToValidUTF8(s[:500], "") + "..."
	}
	return s
}

// ParseAnswer reads the agent's answer as SPEC section 4 says: surrounding prose and a fenced
// block are accepted, the first JSON object with a "category" that is valid is taken, the
// category is lower-cased, unknown categories are rejected.
func ParseAnswer(text string) (category, reasoning string, err error) {
	var firstErr error
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var a struct {
			Category  *string         `json:"category"`
			Reasoning json.RawMessage `json:"reasoning"`
		}
		if dec.Decode(&a) != nil || a.Category == nil {
			continue
		}
		cat := strings.ToLower(strings.TrimSpace(*a.Category))
		if !suite.ValidVEXCategory(cat) {
			if firstErr == nil {
				firstErr = fmt.Errorf("category %q is not one of %s", *a.Category, strings.Join(suite.VEXCategories, ", "))
			}
			continue
		}
		var r string
		if json.Unmarshal(a.Reasoning, &r) != nil {
			r = string(a.Reasoning)
		}
		return cat, r, nil
	}
	if firstErr != nil {
		return "", "", firstErr
	}
	return "", "", errors.New(`no JSON object with a "category" in the answer`)
}

// SystemPrompt is VEX-Bench's task instruction: the twelve categories in order, the first that
// applies wins.
func SystemPrompt() string {
	return `You assess whether a project is affected by a known vulnerability (CVE) in one of its dependencies, and if not, why.
The working directory is the project's source tree at one commit, without git history. There is no running process and
no deployment context: use only evidence you can see in the tree and in the advisory. Use the tools to find the advisory,
the dependency and its version (every manifest, lockfile and vendored copy of every module), and whether and how the
vulnerable code is used.

Pick the FIRST category that applies, in this order:
1. false_positive: the CVE-to-package mapping is wrong, or the advisory is withdrawn.
2. code_not_present: the vulnerable package is absent (no manifest, lockfile or vendored copy names it, or no affected version is used).
3. code_not_reachable: present, but no execution path from first-party code reaches the vulnerable code.
4. requires_configuration: exploitation needs an option that is off by default in this project.
5. requires_dependency: exploitation needs another dependency the project does not declare.
6. requires_environment: exploitation needs an OS, architecture, kernel or hardware the project does not use.
7. compiler_protected: the project's build hardening blocks the primitive.
8. runtime_protected: runtime isolation the project sets up (sandbox, seccomp) blocks it.
9. perimeter_protected: network or authentication controls shipped in the project block it.
10. mitigating_control_protected: other in-project mitigations (validation, encoding, guards) block it.
11. uncertain: only when the evidence is genuinely insufficient.
12. vulnerable: an affected version is present, the vulnerable code is imported and called from first-party non-test code,
    reachable from an attack surface, and not mitigated.

Answer with one JSON object and nothing else:
{"category": "<one of the twelve>", "reasoning": "<the evidence: files, call sites, versions, advisory text>"}`
}

// UserPrompt names the case's project and vulnerability.
func UserPrompt(c *suite.Case) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Vulnerability: %s\n", c.CVE)
	if c.Repo != nil && c.Repo.URL != "" {
		fmt.Fprintf(&b, "Project: %s\n", c.Repo.URL)
	}
	if c.Language != "" {
		fmt.Fprintf(&b, "Language: %s\n", c.Language)
	}
	b.WriteString("Is the project affected by this vulnerability? Investigate with the tools, then answer with the JSON object.")
	return b.String()
}
