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

// opencode is OpenCode: Chat Completions (a custom OpenAI-compatible provider) or Anthropic
// Messages; its effort is the model's --variant (OpenAI: the five levels; Anthropic: high and
// max, for high and xhigh).
func opencode() behaviour {
	return opencodeLike("opencode", "OPENCODE", "https://opencode.ai/config.json")
}

// kilo is Kilo's CLI, a fork of OpenCode run as it is (its variables named KILO_).
func kilo() behaviour { return opencodeLike("kilo", "KILO", "https://kilo.ai/config.json") }

func opencodeLike(name, envPrefix, schema string) behaviour {
	return behaviour{apis: map[string]llm.API{"openai": llm.OpenAIChat, "anthropic": llm.AnthropicMessages},
		invoke: func(r Run) invocation { return opencodeInvoke(r, envPrefix, schema) },
		answer: func(res sandbox.Result) (string, error) { return opencodeAnswer(name, res) },
		shell:  shellTool("bash", "command", `,"description":"Run it"`),
		effort: func(e llm.Effort, api llm.API) (setting, bool) {
			if api != llm.AnthropicMessages {
				return setting{args: []string{"--variant", string(e)}}, true
			}
			switch e {
			case llm.EffortHigh:
				return setting{args: []string{"--variant", "high"}}, true
			case llm.EffortXHigh:
				return setting{args: []string{"--variant", "max"}}, true
			}
			return setting{}, false
		}}
}

// StartupCuts are the variables (after OPENCODE_ or KILO_) that cut OpenCode's and Kilo's
// start-up per case: no watcher of the project's files, no native file-finder index of it
// (the snapshot is read-only and read once; docs/harness.md has the measurement).
var StartupCuts = []string{"EXPERIMENTAL_DISABLE_FILEWATCHER", "DISABLE_FFF"}

// opencodeInvoke runs `opencode run` (or Kilo's `kilo run`) with its events as JSON, every
// permission granted (--auto and the configuration's permission block) and no external
// plugins (--pure). Its provider is the gateway: an OpenAI-compatible one
// (@ai-sdk/openai-compatible, bundled: chat completions) for an OpenAI model, its anthropic
// provider with the gateway as base URL for an Anthropic one; the same model for its small
// tasks (titles). The configuration goes in PREFIX_CONFIG_CONTENT; the project's own
// configuration, Claude Code's files, the models.dev catalogue, updates, LSP downloads, sharing
// and default plugins are all off.
func opencodeInvoke(r Run, prefix, schema string) invocation {
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
		"$schema": schema, "provider": provider, "model": model, "small_model": model,
		"share": "disabled", "autoupdate": false,
		"permission": map[string]string{"edit": "allow", "bash": "allow", "webfetch": "deny"},
	})
	env := []string{prefix + "_CONFIG_CONTENT=" + string(config)}
	for _, v := range append([]string{"DISABLE_PROJECT_CONFIG", "DISABLE_CLAUDE_CODE", "DISABLE_MODELS_FETCH", "DISABLE_AUTOUPDATE",
		"DISABLE_DEFAULT_PLUGINS", "DISABLE_LSP_DOWNLOAD", "DISABLE_SHARE", "DISABLE_EXTERNAL_SKILLS"}, StartupCuts...) {
		env = append(env, prefix+"_"+v+"=1")
	}
	return invocation{
		args: append([]string{"run", "--format", "json", "--pure", "--auto", "-m", model}, r.effort.args...), // the prompt from standard input
		env:  env,
	}
}

// opencodeAnswer reads `opencode run --format json`'s events: the answer is the text of its
// last step (the text parts after the last step_start); an error event is the error.
func opencodeAnswer(name string, res sandbox.Result) (string, error) {
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
		return "", errors.New(name + ": " + failed)
	case len(step) > 0:
		return strings.Join(step, "\n"), nil
	}
	return "", fmt.Errorf("%s printed no answer (exit %d): %s", name, res.ExitCode, tail(res))
}
