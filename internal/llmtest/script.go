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
