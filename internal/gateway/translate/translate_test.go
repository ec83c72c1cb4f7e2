package translate_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vulnbench/vulnbench/internal/gateway/translate"
	"github.com/vulnbench/vulnbench/internal/llm"
)

var apis = []llm.API{llm.AnthropicMessages, llm.OpenAIChat, llm.OpenAIResponses, llm.GeminiGenerate}

// requests are one conversation in each format: a system prompt, a question, the model's text
// and a shell call, the call's result, a follow-up, one tool with its schema, a budget of 1000,
// temperature 0.5 and high effort (Anthropic's and Gemini's 16,384 thinking tokens).
var requests = map[llm.API]string{
	llm.AnthropicMessages: `{"model":"claude-x","max_tokens":1000,"temperature":0.5,"stream":true,"thinking":{"type":"enabled","budget_tokens":16384},
		"system":[{"type":"text","text":"You audit code.","cache_control":{"type":"ephemeral"}}],
		"messages":[{"role":"user","content":"Is parse() safe?"},
		 {"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"text","text":"Looking."},{"type":"tool_use","id":"call_1","name":"bash","input":{"command":"cat parse.c"}}]},
		 {"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"int parse(char *s);"}]},{"type":"text","text":"Answer now."}]}],
		"tools":[{"name":"bash","description":"Run a shell command","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]}`,
	llm.OpenAIChat: `{"model":"gpt-x","max_completion_tokens":1000,"temperature":0.5,"stream":true,"stream_options":{"include_usage":true},"reasoning_effort":"high",
		"messages":[{"role":"developer","content":"You audit code."},{"role":"user","content":[{"type":"text","text":"Is parse() safe?"}]},
		 {"role":"assistant","content":"Looking.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"cat parse.c\"}"}}]},
		 {"role":"tool","tool_call_id":"call_1","content":"int parse(char *s);"},{"role":"user","content":"Answer now."}],
		"tools":[{"type":"function","function":{"name":"bash","description":"Run a shell command","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}}],"tool_choice":"auto"}`,
	llm.OpenAIResponses: `{"model":"gpt-x","max_output_tokens":1000,"temperature":0.5,"stream":true,"store":false,"reasoning":{"effort":"high"},"instructions":"You audit code.",
		"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Is parse() safe?"}]},
		 {"type":"reasoning","id":"rs_1","encrypted_content":"xyz","summary":[]},
		 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Looking."}]},
		 {"type":"function_call","call_id":"call_1","name":"bash","arguments":"{\"command\":\"cat parse.c\"}"},
		 {"type":"function_call_output","call_id":"call_1","output":"int parse(char *s);"},
		 {"role":"user","content":"Answer now."}],
		"tools":[{"type":"function","name":"bash","description":"Run a shell command","strict":false,"parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]}`,
	llm.GeminiGenerate: `{"systemInstruction":{"parts":[{"text":"You audit code."}]},
		"contents":[{"role":"user","parts":[{"text":"Is parse() safe?"}]},
		 {"role":"model","parts":[{"text":"thinking...","thought":true},{"text":"Looking."},{"functionCall":{"id":"call_1","name":"bash","args":{"command":"cat parse.c"}},"thoughtSignature":"c2ln"}]},
		 {"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"bash","response":{"output":"int parse(char *s);"}}}]},
		 {"role":"user","parts":[{"text":"Answer now."}]}],
		"tools":[{"functionDeclarations":[{"name":"bash","description":"Run a shell command","parameters":{"type":"OBJECT","properties":{"command":{"type":"STRING"}},"required":["command"]}}]}],
		"generationConfig":{"temperature":0.5,"maxOutputTokens":1000,"thinkingConfig":{"thinkingBudget":16384,"includeThoughts":true}}}`,
}

// conversation is what every one of requests says.
func conversation() translate.Request {
	return translate.Request{HasTemperature: true, Request: llm.Request{
		Messages: []llm.Message{
			{Role: "system", Content: "You audit code."},
			{Role: "user", Content: "Is parse() safe?"},
			{Role: "assistant", Content: "Looking.", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"cat parse.c"}`}}},
			{Role: "tool", ToolCallID: "call_1", Content: "int parse(char *s);"},
			{Role: "user", Content: "Answer now."},
		},
		Tools: []llm.Tool{{Name: "bash", Description: "Run a shell command", Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"command": map[string]any{"type": "string"}}, "required": []any{"command"}}}},
		MaxTokens: 1000, Temperature: 0.5, Effort: llm.EffortHigh,
	}}
}

// models are the upstream models the pairs encode for: gpt-4.1 takes a temperature and no
// effort, gpt-5 the reverse.
var models = map[llm.API]string{llm.AnthropicMessages: "claude-sonnet-4-5", llm.OpenAIChat: "gpt-4.1", llm.OpenAIResponses: "gpt-5", llm.GeminiGenerate: "gemini-2.5-flash"}

// carried is what of the conversation reaches format to with its model: Anthropic takes no
// effort across formats (its thinking needs its own signed blocks back), gpt-4.1 none either.
func carried(to llm.API) translate.Request {
	want := conversation()
	if to == llm.AnthropicMessages || to == llm.OpenAIChat {
		want.Effort = ""
	}
	return want
}

var ignoreStream = cmpopts.IgnoreFields(translate.Request{}, "Stream", "StreamUsage")

// TestDecode: each format's request reads as the one conversation.
func TestDecode(t *testing.T) {
	for _, api := range apis {
		got, err := translate.Decode(api, []byte(requests[api]))
		if err != nil {
			t.Fatalf("%s: %v", api, err)
		}
		if d := cmp.Diff(conversation(), got, ignoreStream); d != "" {
			t.Errorf("%s: decoded (-want +got):\n%s", api, d)
		}
		if want := api != llm.GeminiGenerate; got.Stream != want {
			t.Errorf("%s: Stream %v, want %v", api, got.Stream, want)
		}
	}
}

// TestPairs: every directed pair A→B: A's request, decoded and encoded in B, reads back in B
// as the conversation (what B carries of it), never streamed.
func TestPairs(t *testing.T) {
	for _, from := range apis {
		for _, to := range apis {
			if from == to {
				continue
			}
			t.Run(translate.Name(from)+"→"+translate.Name(to), func(t *testing.T) {
				req, err := translate.Decode(from, []byte(requests[from]))
				if err != nil {
					t.Fatal(err)
				}
				body, err := translate.NewEncoder(to, models[to]).Encode(req)
				if err != nil {
					t.Fatal(err)
				}
				back, err := translate.Decode(to, body)
				if err != nil {
					t.Fatalf("%v\n%s", err, body)
				}
				if back.Stream {
					t.Errorf("the upstream request asks for a stream: %s", body)
				}
				if d := cmp.Diff(carried(to), back, ignoreStream); d != "" {
					t.Errorf("%s read back (-want +got):\n%s\nbody: %s", translate.Name(to), d, body)
				}
				if to != llm.GeminiGenerate && !strings.Contains(string(body), `"model":"`+models[to]+`"`) {
					t.Errorf("the body names another model than %s: %s", models[to], body)
				}
			})
		}
	}
}

// answer is an upstream's answer: text, two tool calls, a stop for tools and every usage count.
func answer() translate.Answer {
	return translate.Answer{ID: "a1", Text: "Checking two files.", Stop: translate.StopTools,
		ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "bash", Arguments: `{"command":"cat a.c"}`}, {ID: "toolu_2", Name: "read", Arguments: `{"path":"b.c","lines":[1,2]}`}},
		Usage:     llm.Usage{InputTokens: 1200, CachedInputTokens: 200, OutputTokens: 90, ReasoningTokens: 30}}
}

// TestAnswerPairs: every directed pair: B's answer (as B's JSON, read by llm as the gateway's
// upstream call reads it) rendered in A, JSON and streamed, reads in A (by llm's readers of A,
// which read what the CLIs' SDKs read) as the same text, tool calls, stop and usage.
func TestAnswerPairs(t *testing.T) {
	for _, up := range apis {
		for _, cli := range apis {
			if up == cli {
				continue
			}
			for _, stream := range []bool{false, true} {
				name := translate.Name(cli) + "←" + translate.Name(up)
				if stream {
					name += "/stream"
				}
				t.Run(name, func(t *testing.T) {
					want := answer()
					_, upBody, err := translate.Render(up, "m", want, translate.Request{})
					if err != nil {
						t.Fatal(err)
					}
					u, a, err := llm.ReadRaw(up, upBody, false)
					if err != nil {
						t.Fatal(err)
					}
					canon := translate.FromLLM(a, u)
					canon.ID = "a1"
					ct, body, err := translate.Render(cli, "m", canon, translate.Request{Stream: stream, StreamUsage: true})
					if err != nil {
						t.Fatal(err)
					}
					if got := strings.HasPrefix(ct, "text/event-stream"); got != stream {
						t.Errorf("content type %q for stream=%v", ct, stream)
					}
					u2, a2, err := llm.ReadRaw(cli, body, stream)
					if err != nil {
						t.Fatalf("%v\n%s", err, body)
					}
					got := translate.FromLLM(a2, u2)
					got.ID = "a1"
					if d := cmp.Diff(usageIn(want, up, cli), got); d != "" {
						t.Errorf("(-want +got):\n%s\n%s", d, body)
					}
				})
			}
		}
	}
}

// usageIn is the answer as formats count usage: Anthropic has no reasoning count (its thinking
// tokens are output tokens).
func usageIn(a translate.Answer, apis ...llm.API) translate.Answer {
	if slices.Contains(apis, llm.AnthropicMessages) {
		a.Usage.ReasoningTokens = 0
	}
	return a
}

// TestStops: each stop survives every format's answer.
func TestStops(t *testing.T) {
	for _, api := range apis {
		for _, stop := range []translate.Stop{translate.StopEnd, translate.StopLength} {
			a := translate.Answer{ID: "x", Text: "partial", Stop: stop, Usage: llm.Usage{InputTokens: 3, OutputTokens: 2}}
			_, body, err := translate.Render(api, "m", a, translate.Request{})
			if err != nil {
				t.Fatal(err)
			}
			u, got, err := llm.ReadRaw(api, body, false)
			if err != nil {
				t.Fatalf("%s: %v", api, err)
			}
			if s := translate.FromLLM(got, u).Stop; s != stop {
				t.Errorf("%s: stop %s read back as %s (%q)", api, stop, s, got.FinishReason)
			}
		}
	}
}

// TestUntranslatable: what no other format carries is refused by name, never dropped.
func TestUntranslatable(t *testing.T) {
	for _, tc := range []struct {
		api        llm.API
		body, want string
	}{
		{llm.AnthropicMessages, `{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}]}`, `"image" block (messages[0].content[0])`},
		{llm.AnthropicMessages, `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"web_search_20250305","name":"web_search"}]}`, `server-defined tool "web_search"`},
		{llm.AnthropicMessages, `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{}}]}]}]}`, `"image" part (messages[0].content[0].content[0])`},
		{llm.OpenAIChat, `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:"}}]}]}`, `"image_url" part (messages[0].content[0])`},
		{llm.OpenAIChat, `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"custom","custom":{"name":"patch"}}]}`, `"custom" tool (tools[0])`},
		{llm.OpenAIResponses, `{"input":"hi","tools":[{"type":"web_search"}]}`, `"web_search" tool (tools[0])`},
		{llm.OpenAIResponses, `{"input":"hi","previous_response_id":"resp_1"}`, `previous_response_id`},
		{llm.OpenAIResponses, `{"input":[{"type":"item_reference","id":"x"}]}`, `"item_reference" item (input[0])`},
		{llm.OpenAIResponses, `{"input":[{"role":"user","content":[{"type":"input_image","image_url":"x"}]}]}`, `"input_image" part (input[0].content[0])`},
		{llm.GeminiGenerate, `{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}]}`, `inlineData part (contents[0].parts[0])`},
		{llm.GeminiGenerate, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"googleSearch":{}}]}`, `googleSearch tool (tools[0])`},
	} {
		_, err := translate.Decode(tc.api, []byte(tc.body))
		var u *translate.Untranslatable
		if !errors.As(err, &u) {
			t.Errorf("%s %s: error %v, want an Untranslatable", tc.api, tc.body, err)
			continue
		}
		err = translate.Untranslated(err, llm.AnthropicMessages)
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cannot translate "+translate.Name(tc.api)+" to anthropic") {
			t.Errorf("%s: %q, want it to name %q", tc.api, err, tc.want)
		}
	}
}

// TestGeminiCallsWithoutIDs: Gemini's calls without ids get one each, and each response
// answers the first open call of its name.
func TestGeminiCallsWithoutIDs(t *testing.T) {
	got, err := translate.Decode(llm.GeminiGenerate, []byte(`{"contents":[{"role":"user","parts":[{"text":"go"}]},
		{"role":"model","parts":[{"functionCall":{"name":"ls","args":{}}},{"functionCall":{"name":"ls","args":{"d":"x"}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"ls","response":{"output":"a"}}},{"functionResponse":{"name":"ls","response":{"error":"no x"}}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Message{{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "gemini_call_1", Name: "ls", Arguments: "{}"}, {ID: "gemini_call_2", Name: "ls", Arguments: `{"d":"x"}`}}},
		{Role: "tool", ToolCallID: "gemini_call_1", Content: "a"}, {Role: "tool", ToolCallID: "gemini_call_2", Content: `{"error":"no x"}`}}
	if d := cmp.Diff(want, got.Messages); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestRenderRefusesBadArguments: a tool call whose arguments are no JSON object cannot be an
// Anthropic or Gemini call.
func TestRenderRefusesBadArguments(t *testing.T) {
	a := translate.Answer{ToolCalls: []llm.ToolCall{{ID: "c", Name: "bash", Arguments: `{"command": "ls`}}}
	for _, api := range []llm.API{llm.AnthropicMessages, llm.GeminiGenerate} {
		if _, _, err := translate.Render(api, "m", a, translate.Request{}); err == nil || !strings.Contains(err.Error(), `tool "bash"`) {
			t.Errorf("%s: %v, want a refusal naming the tool", api, err)
		}
	}
}

// TestResponsesNamespaces: a Responses namespace's tools are canonical tools NAMESPACE__TOOL
// (Codex groups its sub-agent tools so), its calls in the history too, and a model's call of
// one goes back as the tool's call in its namespace.
func TestResponsesNamespaces(t *testing.T) {
	req, err := translate.Decode(llm.OpenAIResponses, []byte(`{"input":[{"role":"user","content":"go"},
		{"type":"function_call","call_id":"c1","namespace":"agents","name":"spawn","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}],
		"tools":[{"type":"namespace","name":"agents","description":"Sub-agents.","tools":[{"type":"function","name":"spawn","description":"Start one.","parameters":{"type":"object"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Tool{{Name: "agents__spawn", Description: "Sub-agents. Start one.", Parameters: map[string]any{"type": "object"}}}
	if d := cmp.Diff(want, req.Tools); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if got := req.Messages[1].ToolCalls[0].Name; got != "agents__spawn" {
		t.Errorf("the history's call is named %q", got)
	}
	for _, stream := range []bool{false, true} {
		req.Stream = stream
		_, body, err := translate.Render(llm.OpenAIResponses, "m", translate.Answer{ID: "x", Stop: translate.StopTools,
			ToolCalls: []llm.ToolCall{{ID: "c2", Name: "agents__spawn", Arguments: "{}"}, {ID: "c3", Name: "bash", Arguments: "{}"}}}, req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(body), `"name":"spawn","namespace":"agents"`) || !strings.Contains(string(body), `"name":"bash","status"`) {
			t.Errorf("stream=%v: the calls are not in their namespaces: %s", stream, body)
		}
	}
}

// TestEmptyTextLeftOut: a message with no text and no tool call says nothing, and Anthropic
// refuses an empty text block: it is left out in every format.
func TestEmptyTextLeftOut(t *testing.T) {
	for api, body := range map[llm.API]string{
		llm.AnthropicMessages: `{"messages":[{"role":"user","content":""},{"role":"user","content":[{"type":"text","text":""}]},{"role":"user","content":"go"}]}`,
		llm.OpenAIChat:        `{"messages":[{"role":"system","content":""},{"role":"user","content":[]},{"role":"assistant","content":null},{"role":"user","content":"go"}]}`,
		llm.OpenAIResponses:   `{"input":[{"role":"developer","content":""},{"role":"assistant","content":[]},{"role":"user","content":"go"}]}`,
		llm.GeminiGenerate:    `{"contents":[{"role":"user","parts":[{"text":""}]},{"role":"model","parts":[]},{"role":"user","parts":[{"text":"go"}]}]}`,
	} {
		got, err := translate.Decode(api, []byte(body))
		if err != nil {
			t.Fatalf("%s: %v", api, err)
		}
		if d := cmp.Diff([]llm.Message{{Role: "user", Content: "go"}}, got.Messages); d != "" {
			t.Errorf("%s (-want +got):\n%s", api, d)
		}
	}
}
