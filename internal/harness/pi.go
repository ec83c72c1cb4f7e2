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

// piAPIs are pi's names of the wire formats, and the path under the gateway each is sent to.
var piAPIs = map[llm.API][2]string{
	llm.OpenAIChat: {"openai-completions", "/v1"}, llm.OpenAIResponses: {"openai-responses", "/v1"},
	llm.AnthropicMessages: {"anthropic-messages", ""}, llm.GeminiGenerate: {"google-generative-ai", "/v1beta"},
}

// pi is pi (pi-coding-agent): a provider of its own for each wire format; its effort is
// --thinking, which takes the five levels.
func pi() behaviour {
	return behaviour{apis: map[string]llm.API{"openai": llm.OpenAIChat, "anthropic": llm.AnthropicMessages, "gemini": llm.GeminiGenerate},
		invoke: piInvoke, answer: piAnswer, shell: shellTool("bash", "command", ""),
		effort: func(e llm.Effort, _ llm.API) (setting, bool) {
			return setting{args: []string{"--thinking", string(e)}}, true
		}}
}

// piInvoke runs `pi -p` with its events as JSON lines, no session file, and none of the
// extensions, skills, prompt templates, themes or context files (AGENTS.md, CLAUDE.md) it would
// discover in the project; --offline and PI_TELEMETRY=0 keep it off the network at start. Its
// provider "vulnbench" is the gateway, declared in models.json in its agent directory (the base
// URL a placeholder the sandbox fills in); the key is a literal (a value starting with ! would
// be a shell command to pi: the gateway's token never does).
func piInvoke(r Run) invocation {
	api := piAPIs[r.API]
	models := map[string]any{"providers": map[string]any{"vulnbench": map[string]any{
		"baseUrl": "{gateway}" + api[1], "api": api[0], "apiKey": r.Token,
		"models": []map[string]any{{"id": sandbox.Quote(r.Model), "reasoning": r.Effort != ""}},
	}}}
	b, _ := json.Marshal(models)
	return invocation{
		args: append([]string{"-p", "--mode", "json", "--no-session", "--provider", "vulnbench", "--model", sandbox.Quote(r.Model),
			"--no-extensions", "--no-skills", "--no-prompt-templates", "--no-themes", "--no-context-files", "--offline"}, r.effort.args...), // the prompt from standard input
		env:   []string{"PI_CODING_AGENT_DIR={home}/.pi/agent", "PI_OFFLINE=1", "PI_TELEMETRY=0"},
		files: []sandbox.File{{Dst: "{home}/.pi/agent/models.json", Data: b, Expand: true}},
	}
}

// piAnswer reads pi's JSON lines: the answer is the text of the last assistant message of its
// agent_end event; a message that stopped on an error is the error.
func piAnswer(res sandbox.Result) (string, error) {
	type message struct {
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StopReason   string `json:"stopReason"`
		ErrorMessage string `json:"errorMessage"`
	}
	var last *message
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e struct {
			Type     string    `json:"type"`
			Messages []message `json:"messages"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "agent_end" {
			continue
		}
		for i := range e.Messages {
			if e.Messages[i].Role == "assistant" {
				last = &e.Messages[i]
			}
		}
	}
	if last == nil {
		return "", fmt.Errorf("pi printed no answer (exit %d): %s", res.ExitCode, tail(res))
	}
	if last.StopReason == "error" || last.StopReason == "aborted" {
		return "", errors.New("pi: " + strings.TrimSpace(last.StopReason+": "+last.ErrorMessage))
	}
	var texts []string
	for _, c := range last.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}
