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

// cline is Cline's CLI: an OpenAI-compatible provider; its effort is --thinking
// (none|low|medium|high|xhigh: minimal is low).
func cline() behaviour {
	return behaviour{apis: map[string]llm.API{"openai": llm.OpenAIChat}, invoke: clineInvoke, answer: clineAnswer,
		shell: func(cmd string) (string, string) {
			q, _ := json.Marshal([]string{cmd})
			return "run_commands", `{"commands":` + string(q) + `}`
		},
		effort: func(e llm.Effort, _ llm.API) (setting, bool) {
			v := string(e)
			if e == llm.EffortMinimal {
				v = "low"
			}
			return setting{args: []string{"--thinking", v}}, true
		}}
}

// clineInvoke runs `cline --json` (act mode, its tools auto-approved by default: the sandbox
// is the boundary) with its state in a data directory of the sandbox's home, where its provider
// settings name the gateway (as `cline auth -p openai -b URL` writes them; the base URL a
// placeholder the sandbox fills in).
func clineInvoke(r Run) invocation {
	providers := map[string]any{"version": 1, "lastUsedProvider": "openai-compatible", "modes": map[string]any{},
		"providers": map[string]any{"openai-compatible": map[string]any{"settings": map[string]any{
			"provider": "openai-compatible", "apiKey": r.Token, "model": sandbox.Quote(r.Model), "baseUrl": "{gateway}/v1"},
			"tokenSource": "manual", "updatedAt": "2026-01-01T00:00:00.000Z"}}} // without updatedAt cline ignores the settings
	b, _ := json.Marshal(providers)
	return invocation{
		args: join([]string{"--json", "--auto-approve", "true", "--data-dir", "{home}/.cline/data", "-P", "openai-compatible", "-m", sandbox.Quote(r.Model)},
			r.effort.args, argPrompt(r.Prompt)),
		argOnly: true, // its task is an argument
		files:   []sandbox.File{{Dst: "{home}/.cline/data/settings/providers.json", Data: b, Mode: 0o600, Expand: true}},
	}
}

// clineAnswer reads cline's JSON lines: the run_result line's text; a run that did not
// complete is the error.
func clineAnswer(res sandbox.Result) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	sc.Buffer(nil, 64<<20)
	var result *struct {
		FinishReason string `json:"finishReason"`
		Text         string `json:"text"`
		Error        string `json:"error"`
	}
	for sc.Scan() {
		var e struct {
			Type         string `json:"type"`
			FinishReason string `json:"finishReason"`
			Text         string `json:"text"`
			Error        string `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "run_result" {
			continue
		}
		result = &struct {
			FinishReason string `json:"finishReason"`
			Text         string `json:"text"`
			Error        string `json:"error"`
		}{e.FinishReason, e.Text, e.Error}
	}
	switch {
	case result == nil:
		return "", fmt.Errorf("cline printed no run_result (exit %d): %s", res.ExitCode, tail(res))
	case result.FinishReason != "completed":
		return "", errors.New("cline: " + result.FinishReason + ": " + result.Error + result.Text)
	}
	return result.Text, nil
}

// argPrompt keeps a prompt given as an argument from reading as a flag or a file argument (@FILE).
func argPrompt(p string) string {
	if strings.HasPrefix(p, "@") || strings.HasPrefix(p, "-") {
		return " " + p
	}
	return p
}
