package suite_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// Records hands each non-blank line to fn with its number (the first without its BOM), turns
// refused lines and fn's *LineErrors into FILE:LINE problems and goes on, and stops at a read
// failure or another error of fn.
func TestRecords(t *testing.T) {
	long := strings.Repeat("x", suite.DefaultMaxLine+1)
	for _, tc := range []struct {
		name     string
		in       string
		stopAt   int // fn returns a plain error on this line
		lines    []string
		problems []string
		refused  int
		err      string
	}{
		{name: "bom cut from the first line only", in: "\xef\xbb\xbf{\"a\":1}\r\n\n  \n\xef\xbb\xbf{\"b\":2}\n",
			lines: []string{"1:{\"a\":1}", "4:\xef\xbb\xbf{\"b\":2}"}},
		{name: "fn's line problems", in: "ok\nbad\nok\n", lines: []string{"1:ok", "2:bad", "3:ok"},
			problems: []string{"in.jsonl:2: bad line"}},
		{name: "a refused line", in: long + "\nok\n", lines: []string{"2:ok"}, refused: 1,
			problems: []string{fmt.Sprintf("in.jsonl:1: line is %.1f MiB, over the %d MiB limit for one record", float64(len(long)+1)/(1<<20), suite.DefaultMaxLine>>20)}},
		{name: "fn stops it", in: "a\nb\nc\n", stopAt: 2, lines: []string{"1:a", "2:b"}, err: "stop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := &suite.Problems{File: "in.jsonl"}
			var lines []string
			refused, err := suite.Records(strings.NewReader(tc.in), "in.jsonl", nil, probs, func(b []byte, line int) error {
				lines = append(lines, fmt.Sprintf("%d:%s", line, b))
				if string(b) == "bad" {
					return &suite.LineError{Err: errors.New("bad line")}
				}
				if line == tc.stopAt {
					return errors.New("stop")
				}
				return nil
			})
			got := ""
			if err != nil {
				got = err.Error()
			}
			var ps []string
			for _, p := range probs.List() {
				ps = append(ps, p.Error())
			}
			if diff := cmp.Diff(tc.err, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.lines, lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.problems, ps); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if refused != tc.refused {
				t.Errorf("refused %d, want %d", refused, tc.refused)
			}
		})
	}
	// A failing reader ends the loop with a read error.
	_, err := suite.Records(iotest.ErrReader(errors.New("disk gone")), "in.jsonl", nil, &suite.Problems{}, func([]byte, int) error { return nil })
	if !errors.Is(err, suite.ErrRead) {
		t.Errorf("a failing reader gave %v, want ErrRead", err)
	}
}
