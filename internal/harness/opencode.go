package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// opencodeInvoke runs `opencode run` with its events as JSON, every permission granted (--auto
// and the configuration's permission block) and no external plugins (--pure). Its provider is
// the gateway: an OpenAI-compatible one (@ai-sdk/openai-compatible, bundled: chat completions)
// for an OpenAI model, its anthropic provider with the gateway as base URL for an Anthropic
// one; the same model for its small tasks (titles). The configuration goes in
// OPENCODE_CONFIG_CONTENT; the project's own opencode.json, Claude Code's files, the models.dev
// catalogue, updates, LSP downloads, sharing and default plugins are all off.
func opencodeInvoke(r Run) invocation {
	provider := map[string]any{}
	model := "vulnbench/" + r.Model
	if r.API == llm.AnthropicMessages {
		model = "anthropic/" + r.Model
		provider["anthropic"] = map[string]any{"options": map[string]any{"baseURL": "{gateway}/v1", "apiKey": r.Token}}
	} else {
		provider["vulnbench"] = map[string]any{"npm": "@ai-sdk/openai-compatible", "name": "vulnbench gateway",
			"options": map[string]any{"baseURL": "{gateway}/v1", "apiKey": r.Token},
			"models":  map[string]any{r.Model: map[string]any{"name": r.Model, "tool_call": true}}}
	}
	config, _ := json.Marshal(map[string]any{
		"$schema": "https://opencode.ai/config.json", "provider": provider, "model": model, "small_model": model,
		"share": "disabled", "autoupdate": false,
		"permission": map[string]string{"edit": "allow", "bash": "allow", "webfetch": "deny"},
	})
	return invocation{
		args: []string{"run", "--format", "json", "--pure", "--auto", "-m", model}, // the prompt from standard input
		env: []string{"OPENCODE_CONFIG_CONTENT=" + string(config),
			"OPENCODE_DISABLE_PROJECT_CONFIG=1", "OPENCODE_DISABLE_CLAUDE_CODE=1", "OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
			"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_EXTERNAL_SKILLS=1"},
	}
}

// opencodeAnswer reads `opencode run --format json`'s events: the answer is the text of its
// last step (the text parts after the last step_start); an error event is the error.
func opencodeAnswer(res sandbox.Result) (string, error) {
	var step []string
	failed := ""
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Type string `json:"type"`
			Part struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"part"`
			Error struct {
				Name string `json:"name"`
				Data struct {
					Message string `json:"message"`
				} `json:"data"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Type {
		case "step_start":
			step = nil
		case "text":
			step = append(step, e.Part.Text)
		case "error":
			failed = strings.TrimSpace(e.Error.Name + ": " + e.Error.Data.Message)
		}
	}
	switch {
	case failed != "":
		return "", errors.New("opencode: " + failed)
	case len(step) > 0:
		return strings.Join(step, "\n"), nil
	}
	return "", fmt.Errorf("opencode printed no answer (exit %d): %s", res.ExitCode, tail(res))
}
