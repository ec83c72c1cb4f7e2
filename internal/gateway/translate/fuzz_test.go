package translate_test

import (
	"testing"

	"github.com/vulnbench/vulnbench/internal/gateway/translate"
	"github.com/vulnbench/vulnbench/internal/llm"
)

// FuzzTranslate: any body an agent sends, in any format, is decoded or refused with an error,
// and what decodes is encoded in every other format or refused: never a panic (an agent in
// the sandbox writes these bodies).
func FuzzTranslate(f *testing.F) {
	for i, api := range apis {
		f.Add(i, []byte(requests[api]))
	}
	f.Add(3, []byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"x","args":[1]}}]}],"tools":[{"functionDeclarations":[{"name":"x","parameters":{"type":["OBJECT",1]}}]}]}`))
	f.Add(0, []byte(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":"not an object"}]}]}`))
	encoders := map[llm.API]*translate.Encoder{}
	for _, api := range apis {
		encoders[api] = translate.NewEncoder(api, models[api])
	}
	f.Fuzz(func(t *testing.T, i int, body []byte) {
		from := apis[(i%len(apis)+len(apis))%len(apis)]
		req, err := translate.Decode(from, body)
		if err != nil {
			return
		}
		for _, to := range apis {
			if to != from {
				_, _ = encoders[to].Encode(req)
			}
		}
	})
}
