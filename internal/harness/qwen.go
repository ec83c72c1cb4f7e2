package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// qwen is Qwen Code (a fork of Gemini CLI that speaks Chat Completions): its effort is the
// request's reasoning_effort, set in its settings (model.generationConfig.samplingParams).
func qwen() behaviour {
	return behaviour{apis: map[string]llm.API{"openai": llm.OpenAIChat}, invoke: qwenInvoke, answer: qwenAnswer,
		shell: shellTool("run_shell_command", "command", `,"description":"Run it"`),
		effort: func(e llm.Effort, _ llm.API) (setting, bool) {
			return setting{desc: "settings model.generationConfig.samplingParams.reasoning_effort=" + string(e)}, true
		}}
}

// qwenInvoke runs `qwen` headless (a positional prompt) with its JSON output, every tool
// approved (--yolo: the sandbox is the boundary), its OpenAI auth pointed at the gateway and
// --safe-mode: none of the project's context files (QWEN.md), hooks, extensions, skills or MCP
// servers (a hostile repository's). Its settings turn telemetry, usage statistics and update
// checks off.
func qwenInvoke(r Run) invocation {
	settings := map[string]any{
		"telemetry": map[string]any{"enabled": false}, "privacy": map[string]any{"usageStatisticsEnabled": false},
		"general": map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	}
	if r.Effort != "" {
		settings["model"] = map[string]any{"generationConfig": map[string]any{"samplingParams": map[string]any{"reasoning_effort": string(r.Effort)}}}
	}
	b, _ := json.Marshal(settings)
	return invocation{
		args: []string{"--safe-mode", "--auth-type", "openai", "--openai-base-url", "{gateway}/v1", "--openai-api-key", r.Token,
			"-m", sandbox.Quote(r.Model), "-o", "json", "--yolo"}, // the prompt from standard input (not a TTY: headless)
		env:   []string{"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"},
		files: []sandbox.File{{Dst: "{home}/.qwen/settings.json", Data: b}},
	}
}

// qwenAnswer reads the result message of the JSON array `qwen -o json` prints.
func qwenAnswer(res sandbox.Result) (string, error) {
	out := strings.TrimSpace(string(res.Stdout))
	if i := strings.Index(out, "\n["); i >= 0 && !strings.HasPrefix(out, "[") {
		out = out[i+1:]
	}
	var msgs []struct {
		Type    string `json:"type"`
		IsError bool   `json:"is_error"`
		Result  string `json:"result"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &msgs); err != nil {
		return "", fmt.Errorf("qwen printed no JSON messages (exit %d): %s", res.ExitCode, tail(res))
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Type != "result" {
			continue
		}
		if m.IsError {
			return "", errors.New("qwen: " + strings.TrimSpace(m.Error.Message+" "+m.Result))
		}
		return m.Result, nil
	}
	return "", fmt.Errorf("qwen printed no result message (exit %d): %s", res.ExitCode, tail(res))
}
