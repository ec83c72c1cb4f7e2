package llmtest

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

func TestOpenAIResponseFormat(t *testing.T) {
	strictSchema := map[string]any{"type": "object", "additionalProperties": false,
		"required":   []string{"vulnerable"},
		"properties": map[string]any{"vulnerable": map[string]any{"type": "boolean"}}}
	loose := map[string]any{"type": "object", "properties": map[string]any{"vulnerable": map[string]any{"type": "boolean"}}}
	jsonSchema := func(name string, schema map[string]any, strict bool) openai.ChatCompletionNewParamsResponseFormatUnion {
		return openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: schema, Strict: openai.Bool(strict)}}}
	}
	tests := []struct {
		name      string
		prompt    string
		format    openai.ChatCompletionNewParamsResponseFormatUnion
		wantParam string // "" when accepted
		wantType  string
		wantName  string
	}{
		{name: "strict json_schema accepted", prompt: "hi", format: jsonSchema("appsec_answer", strictSchema, true),
			wantType: "json_schema", wantName: "appsec_answer"},
		{name: "loose schema accepted when not strict", prompt: "hi", format: jsonSchema("a", loose, false),
			wantType: "json_schema", wantName: "a"},
		{name: "strict schema without additionalProperties false", prompt: "hi", format: jsonSchema("a", loose, true),
			wantParam: "response_format"},
		{name: "bad schema name", prompt: "hi", format: jsonSchema("has space", strictSchema, true),
			wantParam: "response_format.json_schema.name"},
		{name: "json_object needs the word json", prompt: "hi",
			format:    openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}},
			wantParam: "messages"},
		{name: "json_object with json in the prompt", prompt: "answer in JSON",
			format:   openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}},
			wantType: "json_object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewOpenAI(Fixed(`{"vulnerable": true}`))
			defer s.Close()
			p := userParams(tt.prompt)
			p.ResponseFormat = tt.format
			c := openaiClient(s)
			_, err := c.Chat.Completions.New(testCtx(t), p)
			if tt.wantParam != "" {
				var e *openai.Error
				if !errors.As(err, &e) || e.StatusCode != 400 || e.Param != tt.wantParam {
					t.Fatalf("error %v, want a 400 naming %q", err, tt.wantParam)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := s.Log()[0]
			name := ""
			if got.Schema != nil {
				name = got.Schema.Name
			}
			if diff := cmp.Diff([]string{tt.wantType, tt.wantName}, []string{got.ResponseFormat, name}); diff != "" {
				t.Errorf("logged format (-want +got):\n%s", diff)
			}
		})
	}
}
