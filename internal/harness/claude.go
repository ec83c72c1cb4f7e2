package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// claude is Claude Code: Anthropic Messages; --effort low|medium|high|xhigh|max (minimal is
// low, the lowest it takes).
func claude() behaviour {
	return behaviour{apis: map[string]llm.API{"anthropic": llm.AnthropicMessages}, invoke: claudeInvoke, answer: claudeAnswer,
		shell: shellTool("Bash", "command", `,"description":"Run it"`),
		effort: func(e llm.Effort, _ llm.API) (setting, bool) {
			v := string(e)
			if e == llm.EffortMinimal {
				v = "low"
			}
			return setting{args: []string{"--effort", v}}, true
		}}
}

// claudeInvoke runs Claude Code non-interactively (-p) with its JSON result, every permission
// granted (--dangerously-skip-permissions: the sandbox is the boundary; Claude Code refuses it
// as root, and the sandbox's user is not), and nothing of the project's own settings, hooks,
// MCP servers or CLAUDE.md (--bare, --setting-sources user, --strict-mcp-config: a hostile
// repository's .claude/settings.json would otherwise add hooks or an apiKeyHelper). Every model
// it asks for (main, small and fast, subagents) is the unit's; updates, telemetry, error
// reports and other non-essential traffic are off.
func claudeInvoke(r Run) invocation {
	return invocation{
		args: append([]string{"-p", "--bare", "--output-format", "json", "--model", r.Model, "--dangerously-skip-permissions",
			"--setting-sources", "user", "--strict-mcp-config", "--no-session-persistence"}, r.effort.args...), // the prompt from standard input
		env: []string{
			"ANTHROPIC_BASE_URL={gateway}", "ANTHROPIC_API_KEY=" + r.Token,
			"IS_SANDBOX=1", // for --sandbox none as root, where it would refuse --dangerously-skip-permissions
			"ANTHROPIC_MODEL=" + r.Model, "ANTHROPIC_SMALL_FAST_MODEL=" + r.Model, "ANTHROPIC_DEFAULT_HAIKU_MODEL=" + r.Model,
			"ANTHROPIC_DEFAULT_SONNET_MODEL=" + r.Model, "ANTHROPIC_DEFAULT_OPUS_MODEL=" + r.Model, "CLAUDE_CODE_SUBAGENT_MODEL=" + r.Model,
			"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_NON_ESSENTIAL_MODEL_CALLS=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		},
	}
}

// claudeAnswer reads the result object `claude -p --output-format json` prints last.
func claudeAnswer(res sandbox.Result) (string, error) {
	out := strings.TrimSpace(string(res.Stdout))
	if i := strings.LastIndex(out, "\n{"); i >= 0 {
		out = out[i+1:]
	}
	var r struct {
		Type    string `json:"type"`
		IsError bool   `json:"is_error"`
		Result  string `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Type != "result" {
		return "", fmt.Errorf("claude printed no result object (exit %d): %s", res.ExitCode, tail(res))
	}
	if r.IsError {
		return "", errors.New("claude: " + r.Result)
	}
	return r.Result, nil
}

// tail is the end of what a process printed, for error messages.
func tail(res sandbox.Result) string {
	s := strings.TrimSpace(string(res.Stderr))
	if s == "" {
		s = strings.TrimSpace(string(res.Stdout))
	}
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	return s
}
