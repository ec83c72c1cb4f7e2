package harness

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// PromptFile is where Command's program finds the prompt: {prompt_file} in its arguments.
const PromptFile = "{tmp}/vulnbench-prompt.txt"

// Command is any program as an agent (the cmd subject): argv is its command line, in which
// {prompt_file} names a file holding the prompt (stdin is empty). It reaches the model only through the gateway, whose URL and
// token it gets in the providers' usual variables (OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
// OPENAI_API_KEY, ANTHROPIC_API_KEY) and VULNBENCH_MODEL; its answer is what it prints.
func Command(argv []string) (CLI, error) {
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		return CLI{}, errors.New("--agent-cmd is empty: give the program and its arguments, e.g. --agent-cmd 'my-agent --prompt {prompt_file}'")
	}
	args := append([]string(nil), argv[1:]...)
	return CLI{Name: "cmd", Binary: argv[0],
		APIs: map[string]llm.API{"openai": llm.OpenAIChat, "anthropic": llm.AnthropicMessages},
		invoke: func(r Run) invocation {
			out := make([]string, len(args))
			for i, a := range args {
				out[i] = strings.ReplaceAll(a, "{prompt_file}", PromptFile)
			}
			return invocation{args: out,
				env: []string{"OPENAI_BASE_URL={gateway}/v1", "ANTHROPIC_BASE_URL={gateway}", "OPENAI_API_KEY=" + r.Token,
					"ANTHROPIC_API_KEY=" + r.Token, "VULNBENCH_MODEL=" + r.Model, "VULNBENCH_PROMPT_FILE=" + PromptFile},
				files: []sandbox.File{{Dst: PromptFile, Data: []byte(r.Prompt), Expand: true}}, fileOnly: true}
		},
		answer: commandAnswer}, nil
}

// commandAnswer is what the program printed; a program that printed nothing failed.
func commandAnswer(res sandbox.Result) (string, error) {
	if s := strings.TrimSpace(string(res.Stdout)); s != "" {
		return s, nil
	}
	return "", fmt.Errorf("the command printed nothing (exit %d): %s", res.ExitCode, tail(res))
}

// SplitCommand splits a command line into words as a shell would for plain words, '...' and
// "..." (no variables, no escapes but \" and \\ inside double quotes).
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == '\'' && ch == '\'', quote == '"' && ch == '"':
			quote = 0
		case quote == '"' && ch == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			cur.WriteByte(s[i])
		case quote != 0:
			cur.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("--agent-cmd %q: an unclosed %c quote", s, quote)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}
