// Package vexagent is the VEX-Bench agent (vex-agent): the agent loop with its tools over the
// case's snapshot, its code graph and the offline advisories, its prompt (the twelve ordered
// categories) and the parser of its answer.
package vexagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/agent/tools"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/modelkit"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Version of the vex-agent subject: its prompt, tools, observations, parser and loop.
const Version = "1"

// DefaultWall is the time limit of one case when the run sets none (VEX-Bench's 10 minutes).
const DefaultWall = 10 * time.Minute

// DefaultMaxSteps is the agent's step cap when the run's --max-steps is 0.
const DefaultMaxSteps = 40

// Config is the vex-agent's configuration: the model flags, the agent's and the advisories.
type Config struct {
	modelkit.Config
	modelkit.AgentConfig
	Advisories string `json:"advisories,omitempty"`
}

// NeedsRepository is what run's preflight asks: the agent reads the case's snapshot.
func (c Config) NeedsRepository(cs *suite.Case) bool { return subject.CaseRepo(cs) }

// NeedsAdvisories is what run's preflight asks: with --advisories, the case's CVE there.
func (c Config) NeedsAdvisories(cs *suite.Case) ([]string, string) {
	if c.Advisories == "" {
		return nil, ""
	}
	return subject.CaseAdvisory(cs), c.Advisories
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	return c.AgentConfig.Validate()
}

// Kind is the vex-agent subject kind.
func Kind() subject.Kind[Config] {
	return subject.Kind[Config]{
		Name: "vex-agent", Usage: "vex-agent", Kinds: []suite.Kind{suite.KindVEX}, Version: Version,
		Summary: "the VEX-Bench agent: list_dir, read_file, search, find_dependency, get_advisory and the code graph over the case's snapshot (--repos, --advisories); answers one of the twelve ordered categories; 10 minutes per case unless --timeout",
		Needs:   subject.Needs{Network: true},
		Flags:   append(modelkit.Flags(), modelkit.ToolProtocolFlag(), subject.AdvisoriesFlag()),
		Configure: func(_ string, v subject.Values) (Config, error) {
			return Config{Config: modelkit.ConfigOf(v), AgentConfig: modelkit.AgentConfigOf(v, DefaultMaxSteps), Advisories: v.String("advisories")}, nil
		},
		New: func(c Config, d subject.Deps) (subject.Subject, error) { return Build(c, d) },
	}
}

// Subject is the VEX-Bench agent on vex cases.
type Subject struct {
	modelkit.Base
	agent modelkit.AgentConfig
	db    *advisory.DB // nil: no advisories
}

// Build makes the subject of cfg with its model stack and its advisories.
func Build(cfg Config, d subject.Deps) (*Subject, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base, err := modelkit.Open(cfg.Config, d)
	if err != nil {
		return nil, err
	}
	s := &Subject{Base: base, agent: cfg.AgentConfig}
	if cfg.Advisories != "" {
		if s.db, err = advisory.Open(cfg.Advisories); err != nil {
			return nil, fmt.Errorf("subject vex-agent: %w", err)
		}
	}
	return s, nil
}

// Describe is what a run's manifest records beyond the config.
func (s *Subject) Describe() map[string]any {
	return s.Base.Describe(map[string]any{"tool_protocol": string(s.agent.Protocol()),
		"tools": []string{"list_dir", "read_file", "search", "find_dependency", "get_advisory", "get_callers", "get_callees", "get_definition"}})
}

// Tools are the agent's tools over snap and db, but the code graph's: list_dir, read_file,
// search, find_dependency and get_advisory.
func Tools(snap *snapshot.Snapshot, db *advisory.DB) []agent.Tool {
	return []agent.Tool{tools.ListDir(snap), tools.ReadFile(snap), tools.Search(snap), tools.FindDependency(snap), tools.GetAdvisory(db)}
}

// Assess implements subject.Subject: the loop over the case's snapshot, its code graph when one
// can be built, and the advisories.
func (s *Subject) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	if c.CVE == "" {
		return verdict.Verdict{}, fmt.Errorf("subject vex-agent: case %s has no cve", c.ID)
	}
	if env.Limits.Wall == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultWall)
		defer cancel()
	}
	snap, err := env.Snapshot(ctx)
	if err != nil {
		return verdict.Verdict{}, subject.NeedsRepo("vex-agent", c, err)
	}
	ts := Tools(snap, s.db)
	if ix, err := env.Graph(ctx); err == nil {
		ts = append(ts, tools.Graph(ix, query.Near{})...)
	}
	l := agent.Loop{Model: s.For(env), Tools: ts, Protocol: s.agent.Protocol(), System: SystemPrompt(), User: UserPrompt(c),
		MaxSteps: s.agent.Steps(env), Check: func(final string) error { _, _, err := ParseAnswer(final); return err },
		Temperature: s.Temperature, MaxTokens: s.MaxTokens, Repeat: u.Repeat, Trace: env.Trace}
	res, err := l.Run(ctx)
	if err != nil {
		return verdict.Verdict{Usage: verdict.Usage{ToolCalls: res.ToolCalls}}, modelkit.Fault(err)
	}
	return Conclude(res), nil
}

// Conclude turns the loop's result into a verdict: the final answer parsed; when a limit stopped
// the loop, the last reply's answer if it holds one, else failed.
func Conclude(res agent.Result) verdict.Verdict {
	text := res.Answer()
	cat, reasoning, err := ParseAnswer(text)
	var v verdict.Verdict
	switch {
	case err != nil && res.Stopped != nil:
		v = verdict.Verdict{Status: verdict.Failed, Reason: fmt.Sprintf("the agent stopped without an answer: %v", res.Stopped), Raw: text}
	case err != nil:
		v = verdict.Verdict{Status: verdict.Failed, Reason: err.Error(), Raw: text}
	default:
		v = verdict.Verdict{Status: verdict.OK, Label: suite.Ben, VEX: verdict.VEXAnswer(cat, firstLine(reasoning)), Explanation: reasoning}
		if cat == suite.VEXVulnerable {
			v.Label = suite.Vul
		}
		if res.Stopped != nil {
			v.Explanation += fmt.Sprintf(" [the agent stopped: %v; this is its last answer]", res.Stopped)
		}
	}
	v.Usage.ToolCalls = res.ToolCalls
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
