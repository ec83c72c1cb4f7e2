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
	head, rest := splitPrompt(r.Prompt)
	return invocation{
		args: append(append([]string{"--json", "--auto-approve", "true", "--data-dir", "{home}/.cline/data", "-P", "openai-compatible", "-m", sandbox.Quote(r.Model)},
			r.effort.args...), head),
		input: rest,
		files: []sandbox.File{{Dst: "{home}/.cline/data/settings/providers.json", Data: b, Mode: 0o600, Expand: true}},
	}
}

// splitPrompt splits a prompt for cline, whose JSON mode needs its task as an argument (bounded
// by Linux to 128 KiB) and appends piped standard input to it after a blank line, trimmed: the
// head is the prompt's first paragraph, the rest goes to standard input, and cline puts them
// back together as they were. A prompt without a first paragraph short enough goes whole to
// standard input after a head of its own.
func splitPrompt(p string) (head, rest string) {
	const maxHead = 64 << 10
	if i := strings.Index(p, "\n\n"); i > 0 && i <= maxHead && strings.TrimSpace(p[:i]) == p[:i] {
		head, rest = p[:i], strings.TrimSpace(p[i+2:])
	}
	if head == "" || rest == "" {
		head, rest = "Your task:", p
	}
	if strings.HasPrefix(head, "@") || strings.HasPrefix(head, "-") || strings.HasPrefix(head, "/") {
		head = " " + head // not a flag, a file argument (@FILE) or a slash command
	}
	return head, rest
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
