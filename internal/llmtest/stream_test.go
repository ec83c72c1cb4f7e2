package llmtest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// toolTurns is a scripted agent: turn 0 says something and asks for a shell command whose
// arguments stream in pieces, turn 1 answers.
func toolTurns(t *testing.T) Handler {
	return Conversation(func(r Request, turn int) string {
		if !r.Stream {
			return "not streamed"
		}
		if turn == 1 {
			res := r.ToolResults()
			if len(res) != 1 || res[0].Content != "root:x:0:0" || res[0].ToolCallID != "call_1" {
				return "turn 1 without the tool's result"
			}
		}
		return ""
	},
		Reply{Text: "Let me look at the file first.", ToolCalls: []ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"cat /etc/passwd | head -1","timeout":30}`}},
			InputTokens: 120, CachedInputTokens: 20, OutputTokens: 33},
		Reply{Text: `{"category":"vulnerable","reasoning":"ünïcode \"quoted\" text"}`, InputTokens: 180, OutputTokens: 21},
	)
}

// sseNames reads a stream's event names (or, for data-only streams, the chunk count).
func sseNames(t *testing.T, url, body string, header http.Header) []string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	var names []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			names = append(names, n)
		}
	}
	return names
}

func TestAnthropicStreaming(t *testing.T) {
	s := NewAnthropic(toolTurns(t))
	defer s.Close()
	c := anthropicClient(s)
	p := messageParams("Is the project vulnerable?")
	p.Tools = []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{}, "bash")}

	var msg anthropic.Message
	stream := c.Messages.NewStreaming(context.Background(), p)
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 2 || msg.Content[0].Text != "Let me look at the file first." || msg.Content[1].Name != "bash" ||
		string(msg.Content[1].Input) != `{"command":"cat /etc/passwd | head -1","timeout":30}` || msg.StopReason != "tool_use" {
		t.Fatalf("accumulated message: %+v", msg.Content)
	}
	// Input tokens are reported without the cached ones, as Anthropic does.
	if u := msg.Usage; u.InputTokens != 100 || u.CacheReadInputTokens != 20 || u.OutputTokens != 33 {
		t.Errorf("usage %+v; want input 100, cache read 20, output 33", u)
	}

	p.Messages = append(p.Messages, msg.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(msg.Content[1].ID, "root:x:0:0", false)))
	var answer anthropic.Message
	stream = c.Messages.NewStreaming(context.Background(), p)
	for stream.Next() {
		if err := answer.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil || len(answer.Content) != 1 || answer.Content[0].Text != `{"category":"vulnerable","reasoning":"ünïcode \"quoted\" text"}` {
		t.Fatalf("answer %+v, %v", answer.Content, err)
	}

	names := sseNames(t, s.URL+"/v1/messages", `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		http.Header{"X-Api-Key": {"k"}, "Content-Type": {"application/json"}})
	want := []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta", "content_block_delta",
		"content_block_stop", "content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta",
		"content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("event names (-want +got):\n%s", d)
	}
}

func TestChatStreaming(t *testing.T) {
	s := NewOpenAI(toolTurns(t))
	defer s.Close()
	c := openai.NewClient(option.WithBaseURL(s.BaseURL()), option.WithAPIKey("k"), option.WithMaxRetries(0))
	p := openai.ChatCompletionNewParams{Model: "gpt-4o",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Is the project vulnerable?")},
		Tools:         []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "bash"})},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	var acc openai.ChatCompletionAccumulator
	chunks := 0
	stream := c.Chat.Completions.NewStreaming(context.Background(), p)
	for stream.Next() {
		chunks++
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if chunks < 8 {
		t.Errorf("%d chunks; want the text and arguments in pieces", chunks)
	}
	m := acc.Choices[0].Message
	if m.Content != "Let me look at the file first." || len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "call_1" ||
		m.ToolCalls[0].Function.Arguments != `{"command":"cat /etc/passwd | head -1","timeout":30}` || acc.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("accumulated message %+v", acc.Choices[0])
	}
	if u := acc.Usage; u.PromptTokens != 120 || u.PromptTokensDetails.CachedTokens != 20 || u.CompletionTokens != 33 {
		t.Errorf("usage %+v", u)
	}
	p.Messages = append(p.Messages, m.ToParam(), openai.ToolMessage("root:x:0:0", "call_1"))
	var acc2 openai.ChatCompletionAccumulator
	stream = c.Chat.Completions.NewStreaming(context.Background(), p)
	for stream.Next() {
		acc2.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil || acc2.Choices[0].Message.Content != `{"category":"vulnerable","reasoning":"ünïcode \"quoted\" text"}` {
		t.Fatalf("answer %+v, %v", acc2.Choices, err)
	}
}

func TestResponses(t *testing.T) {
	s := NewOpenAI(toolTurns(t))
	defer s.Close()
	c := openai.NewClient(option.WithBaseURL(s.BaseURL()), option.WithAPIKey("k"), option.WithMaxRetries(0))
	input := responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("You audit code.", responses.EasyInputMessageRoleDeveloper),
		responses.ResponseInputItemParamOfMessage("Is the project vulnerable?", responses.EasyInputMessageRoleUser),
	}
	p := responses.ResponseNewParams{Model: "gpt-5-codex", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "bash", Parameters: map[string]any{"type": "object"}}}}}
	stream := c.Responses.NewStreaming(context.Background(), p)
	var types []string
	var args strings.Builder
	var done responses.Response
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		switch e := ev.AsAny().(type) {
		case responses.ResponseFunctionCallArgumentsDeltaEvent:
			args.WriteString(e.Delta)
		case responses.ResponseCompletedEvent:
			done = e.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta", "response.output_text.delta", "response.output_text.done",
		"response.content_part.done", "response.output_item.done", "response.output_item.added"}
	if d := cmp.Diff(want, types[:len(want)]); d != "" {
		t.Errorf("event types (-want +got):\n%s", d)
	}
	if types[len(types)-1] != "response.completed" || args.String() != `{"command":"cat /etc/passwd | head -1","timeout":30}` {
		t.Errorf("last event %s, arguments streamed %q", types[len(types)-1], args.String())
	}
	if u := done.Usage; u.InputTokens != 120 || u.InputTokensDetails.CachedTokens != 20 || u.OutputTokens != 33 || len(done.Output) != 2 {
		t.Errorf("completed response: usage %+v, %d output items", u, len(done.Output))
	}
	if got := s.Log()[0]; got.System != "You audit code." || len(got.Messages) != 1 || !got.Stream || got.Tools[0] != "bash" {
		t.Errorf("logged request %+v", got)
	}

	// The next turn: the call and its output back in the input; not streamed is refused by the
	// script (its check), so stream again, and read the answer.
	out := responses.ResponseInputItemParamOfFunctionCallOutput("root:x:0:0")
	out.OfFunctionCallOutput.CallID = openai.String("call_1")
	input = append(input, responses.ResponseInputItemParamOfFunctionCall(done.Output[1].Arguments.OfString, "call_1", "bash"), out)
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	stream = c.Responses.NewStreaming(context.Background(), p)
	var text string
	for stream.Next() {
		if e, ok := stream.Current().AsAny().(responses.ResponseTextDoneEvent); ok {
			text = e.Text
		}
	}
	if err := stream.Err(); err != nil || text != `{"category":"vulnerable","reasoning":"ünïcode \"quoted\" text"}` {
		t.Errorf("second turn: %q, %v", text, err)
	}
}

// TestResponsesErrors: what the Responses API refuses, the fake refuses.
func TestResponsesErrors(t *testing.T) {
	s := NewOpenAI(Fixed("x"))
	defer s.Close()
	for _, tc := range []struct{ body, want string }{
		{`{"model":"m"}`, "Missing required parameter: 'input'."},
		{`{"model":"m","input":[{"type":"function_call_output","call_id":"c9","output":"x"}]}`, "No tool call found for function call output with call_id c9."},
		{`{"model":"m","input":[{"role":"user","content":"a"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]}`, "No tool output found for function call c1."},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/responses", strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Error struct{ Message string } }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != 400 || body.Error.Message != tc.want {
			t.Errorf("%s: %d %q; want 400 %q", tc.body, resp.StatusCode, body.Error.Message, tc.want)
		}
	}
}

// TestStreamFaults: a mid-stream error event and a cut connection reach the SDKs as errors.
func TestStreamFaults(t *testing.T) {
	for _, fault := range []Reply{{Text: strings.Repeat("word ", 40), StreamError: true}, {Text: strings.Repeat("word ", 40), StreamCut: true}} {
		a := NewAnthropic(Sequence(fault))
		ac := anthropicClient(a)
		stream := ac.Messages.NewStreaming(context.Background(), messageParams("x"))
		var msg anthropic.Message
		for stream.Next() {
			_ = msg.Accumulate(stream.Current())
		}
		if stream.Err() == nil {
			t.Errorf("anthropic %+v: no error", fault)
		}
		a.Close()

		o := NewOpenAI(Sequence(fault))
		c := openai.NewClient(option.WithBaseURL(o.BaseURL()), option.WithAPIKey("k"), option.WithMaxRetries(0))
		rs := c.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{Model: "m",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("x")}})
		failed := false
		for rs.Next() {
			failed = failed || rs.Current().Type == "response.failed"
		}
		if rs.Err() == nil && !failed {
			t.Errorf("responses %+v: no error and no response.failed", fault)
		}
		o.Close()
	}
}
