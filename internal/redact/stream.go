package redact

import (
	"bytes"
	"io"
)

// maxHeld is the most of an unfinished line a Stream holds back; past it the line is written in
// pieces, cut at a space when there is one in the last quarter (no secret shape holds one).
const maxHeld = 64 << 10

// Stream is w with everything written through it scrubbed a line at a time: an unfinished line
// is held until its newline (or Flush), so that a secret that one write splits (a bufio
// buffer's edge in a big export) is still seen whole. What holds no secret goes out byte for
// byte. Call Flush at the end.
type Stream struct {
	w    io.Writer
	sc   *Scrubber
	held []byte
}

// Stream is w scrubbed line by line (see Stream).
func (sc *Scrubber) Stream(w io.Writer) *Stream { return &Stream{w: w, sc: sc} }

// Fd is the underlying writer's file descriptor (^0 when it has none), so that a terminal
// behind the scrubber is still seen as one.
func (s *Stream) Fd() uintptr { return writer{w: s.w}.Fd() }

func (s *Stream) Write(p []byte) (int, error) {
	n := len(p)
	if len(s.held) == 0 && n > 0 && p[n-1] == '\n' { // whole lines: no copy to hold
		return n, s.emit(p)
	}
	s.held = append(s.held, p...)
	cut := bytes.LastIndexByte(s.held, '\n') + 1
	if cut == 0 {
		if len(s.held) <= maxHeld {
			return n, nil
		}
		cut = len(s.held)
		if sp := bytes.LastIndexAny(s.held[len(s.held)-maxHeld/4:], " \t\r"); sp >= 0 {
			cut = len(s.held) - maxHeld/4 + sp + 1
		}
	}
	err := s.emit(s.held[:cut])
	s.held = s.held[:copy(s.held, s.held[cut:])]
	return n, err
}

// Flush writes the unfinished line held back, scrubbed.
func (s *Stream) Flush() error {
	if len(s.held) == 0 {
		return nil
	}
	err := s.emit(s.held)
	s.held = s.held[:0]
	return err
}

func (s *Stream) emit(b []byte) error {
	_, err := io.WriteString(s.w, s.sc.String(string(b)))
	return err
}
