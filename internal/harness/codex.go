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

// codexLastPath is where Codex writes its last message: in the sandbox's output folder.
const codexLastPath = "{out}/codex-last-message.txt"

// codex is OpenAI's Codex CLI: the Responses API; model_reasoning_effort takes the five levels.
func codex() behaviour {
	return behaviour{apis: map[string]llm.API{"openai": llm.OpenAIResponses}, invoke: codexInvoke, answer: codexAnswer,
		readBack: []string{codexLastPath},
		shell:    shellTool("exec_command", "cmd", `,"yield_time_ms":60000`),
		effort: func(e llm.Effort, _ llm.API) (setting, bool) {
			return setting{args: []string{"-c", "model_reasoning_effort=" + string(e)}}, true
		}}
}

// codexInvoke runs `codex exec` with its events as JSON lines and its last message written to
// the output directory, approvals and Codex's own sandbox off (--dangerously-bypass-approvals-
// and-sandbox: the sandbox is the boundary, and Codex's own needs the user namespaces the
// sandbox withholds), no session files (--ephemeral), outside a git repository. Its model
// provider is the gateway, over the Responses API (config.toml in CODEX_HOME, in the sandbox's
// home); update checks and analytics are off, web search (OpenAI's server-side tool: the web
// behind the sandbox's back) disabled, the history not kept.
func codexInvoke(r Run) invocation {
	config := fmt.Sprintf(`model = %q
model_provider = "vulnbench"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
web_search = "disabled"

[model_providers.vulnbench]
name = "vulnbench gateway"
env_key = "OPENAI_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[history]
persistence = "none"
`, r.Model)
	// The base URL is an argument: the sandbox fills in {gateway} in arguments, not in files.
	args := append(append([]string(nil), r.effort.args...), "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--ephemeral", "--color", "never",
		"-c", `model_providers.vulnbench.base_url="{gateway}/v1"`, "--output-last-message", codexLastPath)
	if r.Project != "" {
		args = append(args, "--cd", "{project}")
	}
	return invocation{
		args:  append(args, "-"), // the prompt from standard input
		env:   []string{"CODEX_HOME={home}/.codex", "OPENAI_API_KEY=" + r.Token, "RUST_LOG=error"},
		files: []sandbox.File{{Dst: "{home}/.codex/config.toml", Data: []byte(config)}},
	}
}

// codexAnswer reads the last message from the output folder, else from the JSON lines' last
// agent_message; a turn.failed or error event is the error, and so is a last-message file the
// sandbox's reader refused (a link out, a FIFO, a file past its cap).
func codexAnswer(res sandbox.Result) (string, error) {
	var last, failed string
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Type string `json:"type"`
			Item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
			Message string `json:"message"`
			Error   struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch {
		case e.Type == "item.completed" && e.Item.Type == "agent_message":
			last = e.Item.Text
		case e.Type == "turn.failed":
			failed = e.Error.Message
		case e.Type == "error" && failed == "":
			failed = e.Message
		}
	}
	b, err := res.File(codexLastPath)
	switch {
	case errors.Is(err, sandbox.ErrRefused):
		return "", fmt.Errorf("codex: its last message: %w", err)
	case err == nil && strings.TrimSpace(string(b)) != "":
		return string(b), nil
	}
	switch {
	case failed != "":
		return "", errors.New("codex: " + failed)
	case last != "":
		return last, nil
	}
	return "", fmt.Errorf("codex printed no answer (exit %d): %s", res.ExitCode, tail(res))
}
