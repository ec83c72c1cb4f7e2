package redact_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/redact"
)

// chunks writes s to w in pieces of n bytes (the edges a bufio.Writer puts anywhere).
func chunks(t testing.TB, w io.Writer, s string, n int) {
	t.Helper()
	for len(s) > 0 {
		k := min(n, len(s))
		if _, err := io.WriteString(w, s[:k]); err != nil {
			t.Fatal(err)
		}
		s = s[k:]
	}
}

// A Stream scrubs a secret whatever the writes' edges, and leaves the rest byte for byte.
func TestStream(t *testing.T) {
	sc := redact.New("planted-key-1234")
	in := "id\tscore\nr1\t0.5 caught planted-key-1234 in a reason\n" +
		"dsn postgres://vb:s3cr3t@db/vb\nlast line without newline sk-proj-BBBBBBBBBBBBBBBBBBBB"
	want := "id\tscore\nr1\t0.5 caught [redacted] in a reason\n" +
		"dsn postgres://vb:[redacted]@db/vb\nlast line without newline [redacted]"
	for _, n := range []int{1, 2, 3, 7, 16, len(in)} {
		var b bytes.Buffer
		s := sc.Stream(&b)
		chunks(t, s, in, n)
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, b.String()); d != "" {
			t.Errorf("writes of %d bytes (-want +got):\n%s", n, d)
		}
	}
}

// A line longer than the Stream holds goes out in pieces, unchanged when it holds no secret,
// and a secret in it is still scrubbed.
func TestStreamLongLine(t *testing.T) {
	sc := redact.New()
	long := strings.Repeat(`{"k":"v","n":1} `, 20000) // 320 KB, no newline
	in := long + "sk-proj-BBBBBBBBBBBBBBBBBBBB " + long
	var b bytes.Buffer
	s := sc.Stream(&b)
	chunks(t, s, in, 4096)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := long + "[redacted] " + long; b.String() != want {
		t.Errorf("long line: got %d bytes, want %d; secret left: %v", b.Len(), len(want), strings.Contains(b.String(), "sk-proj"))
	}
}

// report is a score export's shape: many lines of ids, numbers and reasons, no secret.
func report(lines int) []byte {
	var b bytes.Buffer
	for i := range lines {
		fmt.Fprintf(&b, `{"case_id":"primevul-%d","label":"vul","score":0.%d,"explanation":"the buffer at line %d is copied without a bound check; the caller passes user input"}`+"\n", i, i%97, i)
	}
	return b.Bytes()
}

// BenchmarkStream writes a 100k-line (~17 MB) report through a bufio.Writer into a Stream, as a
// command's stdout is; BenchmarkStreamBaseline is the same without the scrubber.
func BenchmarkStream(b *testing.B)         { benchStream(b, true) }
func BenchmarkStreamBaseline(b *testing.B) { benchStream(b, false) }

func benchStream(b *testing.B, scrub bool) {
	rep := report(100_000)
	sc := redact.New("planted-key-1234")
	b.SetBytes(int64(len(rep)))
	for b.Loop() {
		var w io.Writer = io.Discard
		var s *redact.Stream
		if scrub {
			s = sc.Stream(io.Discard)
			w = s
		}
		bw := bufio.NewWriterSize(w, 64<<10)
		chunks(b, bw, string(rep), 1000)
		bw.Flush()
		if s != nil {
			s.Flush()
		}
	}
}
