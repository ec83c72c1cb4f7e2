package llmtest

// TokenCounter counts the tokens of text for model, as a provider's tokenizer would (for
// example internal/tokens' Counter.Count without its second result).
type TokenCounter func(model, text string) int

// CountTokens makes h's usage counted with count rather than estimated as a quarter of the
// length: a reply whose InputTokens are 0 gets the sum of count over the request's system
// prompt, each message's content and each tool call's name and arguments; one whose
// OutputTokens are 0 gets the sum over its text and each tool call's name and arguments.
// Scripted counts and fault replies are left as they are. The sums are of the texts alone:
// real providers add a few tokens per message for their framing, and count tool definitions.
func CountTokens(count TokenCounter, h Handler) Handler {
	if h == nil {
		h = Fixed("")
	}
	return func(r Request) Reply {
		rep := h(r)
		if rep.Status != 0 && rep.Status/100 != 2 {
			return rep
		}
		if rep.InputTokens == 0 {
			n := count(r.Model, r.System)
			for _, m := range r.Messages {
				n += count(r.Model, m.Content) + callTokens(count, r.Model, m.ToolCalls)
			}
			rep.InputTokens = n
		}
		if rep.OutputTokens == 0 {
			rep.OutputTokens = count(r.Model, rep.Text) + callTokens(count, r.Model, rep.ToolCalls)
		}
		return rep
	}
}

func callTokens(count TokenCounter, model string, calls []ToolCall) int {
	n := 0
	for _, tc := range calls {
		n += count(model, tc.Name) + count(model, tc.Arguments)
	}
	return n
}
