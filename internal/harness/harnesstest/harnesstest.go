// Package harnesstest is the hostile-agent battery, as a kit: a scripted model, in every wire
// format the gateway speaks, makes an agent CLI subject run a list of probes through its own
// shell tool, as a hostile repository could steer a real model to: the host's files outside
// the snapshot, the store, /proc/*/environ, other loopback ports and the host's addresses, the
// gateway as a proxy, writes outside, ptrace, mount and user namespaces, disk and memory fills,
// a fork bomb, a process left running, and a link (to a root-only file, /proc/self/environ,
// /dev/zero), a FIFO, a device node and a 1 GiB sparse file planted at every path vulnbench
// reads back (harness.CLI.ReadBack). The run goes through the whole of vulnbench (cli.Run: the
// runner, the store, the gateway, the sandbox), and Battery asserts that nothing from outside
// reached the verdicts, the trace, the store (its file and WAL), any export, the viewer or the
// model; that each limit ended its unit as an error naming it; that vulnbench's memory stayed
// bounded; and that nothing was left (process, folder, cgroup).
//
// Every harness runs it with its real CLI: a new harness gets it by adding one Row to Rows
// (its subject, its model, the wire format, how the scripted model calls its shell tool), and a
// new wire format by one entry in servers.
package harnesstest

import (
	"fmt"
	"os/exec"

	"github.com/vulnbench/vulnbench/internal/harness"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
)

// Row is one harness under the battery.
type Row struct {
	Subject string  // the subject kind: a row of the harness table, or cmd
	Model   string  // its --model
	API     llm.API // the wire format the scripted model answers in (the fake provider's)
	// Shell is the scripted model's call of the CLI's own shell tool running command, in the
	// CLI's terms (Claude Code's Bash, Codex's exec_command, ...); id is the call's id.
	Shell func(id, command string) llmtest.ToolCall
	// Flags are more `vulnbench run` flags the row needs (cmd's --agent-cmd); dir is a folder
	// of the battery's own where a program can be written.
	Flags func(dir string) ([]string, error)
}

// Rows are the harnesses the battery runs against: one row each, one per row of the harness
// table (internal/harness/clis.tsv: its shell tool is the CLI's Shell), then cmd.
func Rows() []Row {
	var rows []Row
	for _, name := range harness.Names() {
		cli := harness.CLIs()[name]
		model := models()[name]
		if model == "" {
			model = "openai:gpt-4.1"
		}
		provider, _, _ := llm.ParseSpec(model)
		rows = append(rows, Row{Subject: name, Model: model, API: cli.APIs[provider], Shell: func(id, command string) llmtest.ToolCall {
			tool, args := cli.Shell(command)
			return llmtest.ToolCall{ID: id, Name: tool, Arguments: args}
		}})
	}
	return append(rows, Row{Subject: "cmd", Model: "openai:gpt-4.1", API: llm.OpenAIChat, Shell: toolCall("shell", "command", ""), Flags: cmdAgent})
}

// models are the rows' models where not an OpenAI one over Chat Completions.
func models() map[string]string {
	return map[string]string{"claude-code": "anthropic:claude-sonnet-4-5", "codex": "openai:gpt-5.4-mini", "gemini-cli": "gemini:gemini-2.5-flash"}
}

// toolCall is a shell tool named name taking the command in field, with more JSON fields.
func toolCall(name, field, more string) func(id, command string) llmtest.ToolCall {
	return func(id, command string) llmtest.ToolCall {
		args := fmt.Sprintf(`{%q:%q`, field, command)
		if more != "" {
			args += "," + more
		}
		return llmtest.ToolCall{ID: id, Name: name, Arguments: args + "}"}
	}
}

// servers are the scripted model's servers, one per wire format the gateway speaks: the fake
// provider that answers a handler's replies in that format.
func servers() map[llm.API]func(llmtest.Handler, ...llmtest.Option) *llmtest.Server {
	return map[llm.API]func(llmtest.Handler, ...llmtest.Option) *llmtest.Server{
		llm.AnthropicMessages: llmtest.NewAnthropic,
		llm.OpenAIChat:        llmtest.NewOpenAI,
		llm.OpenAIResponses:   llmtest.NewOpenAI,
		llm.GeminiGenerate:    llmtest.NewGemini,
	}
}

// Server is the scripted model h served in api's wire format.
func Server(api llm.API, h llmtest.Handler) (*llmtest.Server, error) {
	s, ok := servers()[api]
	if !ok {
		return nil, fmt.Errorf("harnesstest: no scripted model speaks %s: add it to servers", api)
	}
	return s(h), nil
}

// installed says why the row's CLI cannot run here ("" when it can).
func (r Row) installed() string {
	if r.Subject == "cmd" {
		if _, err := exec.LookPath("python3"); err != nil {
			return "the cmd row's agent is a python3 program: " + err.Error()
		}
		return ""
	}
	cli, ok := harness.CLIs()[r.Subject]
	if !ok {
		return "no harness named " + r.Subject
	}
	if _, err := cli.Locate(""); err != nil {
		return err.Error()
	}
	return ""
}

// readBack are the paths the row's CLI leaves for vulnbench to read back, as the process sees
// them: the battery plants there.
func (r Row) readBack() []string {
	return harness.CLIs()[r.Subject].ReadBack
}
