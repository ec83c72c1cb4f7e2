package llmtest

import (
	"sync/atomic"
)

// Fixed answers every request with text.
func Fixed(text string) Handler {
	return func(Request) Reply { return Reply{Text: text} }
}

// Sequence answers its i-th call with replies[i]; the last reply repeats.
// With no replies, it answers an empty text.
func Sequence(replies ...Reply) Handler {
	var calls atomic.Int64
	return func(Request) Reply {
		i := calls.Add(1) - 1
		if len(replies) == 0 {
			return Reply{}
		}
		return replies[min(i, int64(len(replies)-1))]
	}
}

// FailFirst answers its first n calls with fault, and the others as h does.
func FailFirst(n int, fault Reply, h Handler) Handler {
	var calls atomic.Int64
	return func(r Request) Reply {
		if calls.Add(1) <= int64(n) {
			return fault
		}
		return h(r)
	}
}

// Conversation answers each request with the reply for its turn: replies[i] answers a request
// whose conversation holds i assistant messages (the model's earlier turns). Unlike Sequence,
// the turn is read from the conversation itself, so concurrent conversations (one per case), a
// retried call and a resumed run each get the reply of their own turn. A turn past the last reply
// gets the last one. With check set, it is called with every request and its turn before the
// reply; a non-empty result is answered with HTTP 400 and that message, so a test sees the
// failure as an error of the call.
func Conversation(check func(r Request, turn int) string, replies ...Reply) Handler {
	return func(r Request) Reply {
		turn := r.Turn()
		if check != nil {
			if msg := check(r, turn); msg != "" {
				return Reply{Status: 400, ErrorMessage: "llmtest: " + msg}
			}
		}
		if len(replies) == 0 {
			return Reply{}
		}
		return replies[min(turn, len(replies)-1)]
	}
}

// Turn is the number of assistant messages in the request's conversation: 0 for its first call.
func (r Request) Turn() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// ToolResults returns the tool messages that follow the conversation's last assistant message:
// the answers to the tool calls of the model's previous turn (Anthropic's tool_result blocks read
// as tool messages too).
func (r Request) ToolResults() []Message {
	var out []Message
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != "assistant"; i-- {
		if r.Messages[i].Role == "tool" {
			out = append([]Message{r.Messages[i]}, out...)
		}
	}
	return out
}

// Last returns the conversation's last message; the zero Message when there is none.
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// Call is a scripted reply asking for tools, each named with its arguments as a JSON object.
func Call(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// ReAct is a scripted reply of the text ReAct protocol: a thought, an action and its input.
func ReAct(thought, action, input string) Reply {
	return Reply{Text: "Thought: " + thought + "\nAction: " + action + "\nAction Input: " + input}
}
