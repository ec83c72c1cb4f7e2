package llmtest

import (
	"context"
	"net/http"
	"time"
	"unicode/utf8"
)

// sseEvent is one server-sent event: Anthropic and OpenAI's Responses API name their events
// (event: NAME); OpenAI's chat completions send data lines only (name "").
type sseEvent struct {
	name string
	data []byte
}

// streamer is a dialect that answers stream=true requests with server-sent events.
type streamer interface {
	stream(req Request, rep Reply, n int64) ([]sseEvent, *apiError)
}

// writeStream writes events as the providers do: text/event-stream, each event flushed, spread
// over slow when it is positive. With cut, the connection is closed after half the events.
func (s *Server) writeStream(ctx context.Context, w http.ResponseWriter, events []sseEvent, slow time.Duration, cut bool) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for i, e := range events {
		if cut && i == len(events)/2 {
			if flusher != nil {
				flusher.Flush()
			}
			drop(w)
			return
		}
		if i > 0 && slow > 0 && !s.wait(ctx, slow/time.Duration(len(events))) {
			return
		}
		var b []byte
		if e.name != "" {
			b = append(b, "event: "+e.name+"\n"...)
		}
		b = append(b, "data: "...)
		b = append(b, e.data...)
		b = append(b, "\n\n"...)
		if _, err := w.Write(b); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// pieces splits s into the deltas a stream sends: about size bytes each, never inside a UTF-8
// sequence. An empty s is no piece.
func pieces(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n := min(size, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// Sizes of the deltas the fake streams: text in pieces of a few words, tool arguments in
// pieces that split JSON anywhere (as the providers do).
const (
	textPiece = 12
	argsPiece = 7
)
