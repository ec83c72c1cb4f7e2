package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// gemini is Google's Gemini CLI: Gemini's generateContent only (the gateway translates for a
// model of another provider); its effort is a thinking budget, set for the unit's model in its
// settings (modelConfigs.customOverrides' generateContentConfig.thinkingConfig).
func gemini() behaviour {
	return behaviour{apis: map[string]llm.API{"gemini": llm.GeminiGenerate}, invoke: geminiInvoke, answer: geminiAnswer,
		shell: shellTool("run_shell_command", "command", `,"description":"Run it"`),
		effort: func(e llm.Effort, _ llm.API) (setting, bool) {
			return setting{desc: fmt.Sprintf("settings thinkingConfig.thinkingBudget=%d", e.ThinkingBudget())}, true
		}}
}

// geminiInvoke runs `gemini` headless (its standard input not a terminal) with its JSON output, every tool approved (--yolo: the sandbox
// is the boundary), the workspace trusted for the session (--skip-trust), its API pointed at the
// gateway (GOOGLE_GEMINI_BASE_URL, its "gateway" auth), and settings that turn usage statistics,
// telemetry and update checks off.
func geminiInvoke(r Run) invocation {
	settings := map[string]any{
		"privacy": map[string]any{"usageStatisticsEnabled": false}, "telemetry": map[string]any{"enabled": false},
		"general": map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		// GOOGLE_GEMINI_BASE_URL alone picks its "gateway" auth, which its headless mode refuses
		// ("Invalid auth method selected."): the API key's, with that base URL.
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		// google_web_search asks the model with Google Search grounding: the web behind the
		// sandbox's back.
		"tools": map[string]any{"exclude": []string{"google_web_search", "web_fetch"}},
	}
	if r.Effort != "" {
		settings["modelConfigs"] = map[string]any{"customOverrides": []any{map[string]any{
			"match":       map[string]any{"model": r.Model},
			"modelConfig": map[string]any{"generateContentConfig": map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": r.Effort.ThinkingBudget()}}},
		}}}
	}
	b, _ := json.Marshal(settings)
	return invocation{
		args: []string{"-m", sandbox.Quote(r.Model), "-o", "json", "--yolo", "--skip-trust"}, // the prompt from standard input (not a TTY: headless)
		env: []string{"GEMINI_API_KEY=" + r.Token, "GOOGLE_GEMINI_BASE_URL={gateway}", "GEMINI_CLI_NO_RELAUNCH=true",
			"GEMINI_CLI_TRUST_WORKSPACE=true"},
		files: []sandbox.File{{Dst: "{home}/.gemini/settings.json", Data: b}},
	}
}

// geminiAnswer reads the object `gemini -o json` prints: its response, or its error.
func geminiAnswer(res sandbox.Result) (string, error) {
	out := strings.TrimSpace(string(res.Stdout))
	if out == "" { // its error object goes to stderr
		out = strings.TrimSpace(string(res.Stderr))
	}
	if i := strings.Index(out, "\n{"); i >= 0 && !strings.HasPrefix(out, "{") {
		out = out[i+1:]
	}
	var r struct {
		Response *string `json:"response"`
		Error    *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return "", fmt.Errorf("gemini printed no JSON object (exit %d): %s", res.ExitCode, tail(res))
	}
	if r.Error != nil {
		return "", errors.New("gemini: " + strings.TrimSpace(r.Error.Type+": "+r.Error.Message))
	}
	if r.Response == nil {
		return "", fmt.Errorf("gemini printed no response (exit %d): %s", res.ExitCode, tail(res))
	}
	return *r.Response, nil
}
