package suite_test

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Invalid UTF-8 is a FILE:LINE problem, not silently replaced; a lossy Reading accepts it and
// counts the bytes once, at the end; a UTF-8
// byte-order mark is accepted and named (issue 25, finding 8).
func TestLineReaderRefusesInvalidUTF8(t *testing.T) {
	in := "{\"a\": 1}\n{\"b\": \"caf\xe9\"}\n"
	lr := suite.NewLineReader(strings.NewReader(in), "in.jsonl")
	if _, _, err := lr.Next(); err != nil {
		t.Fatal(err)
	}
	_, _, err := lr.Next()
	if err == nil || !strings.HasPrefix(err.Error(), "in.jsonl:2: invalid UTF-8 at column 11") || !strings.Contains(err.Error(), "--lossy-utf8") {
		t.Errorf("line 2: %v; want in.jsonl:2: invalid UTF-8 at column 11 ... --lossy-utf8", err)
	}
	rd := &lineerr.Reading{Lossy: true}
	lr = suite.NewLineReader(strings.NewReader(in), "in.jsonl")
	lr.Reading = rd
	lr.Next()
	b, _, err := lr.Next()
	if err != nil || string(b) != "{\"b\": \"caf\uFFFD\"}" {
		t.Errorf("lossy: %q, %v; want the bad byte replaced by U+FFFD", b, err)
	}
	if _, _, err := lr.Next(); err != io.EOF {
		t.Errorf("lossy, after the last line: %v", err)
	}
	if d := cmp.Diff([]string{"in.jsonl: 1 byte not UTF-8 replaced by U+FFFD on 1 line (first: line 2) (--lossy-utf8)"}, rd.Notes()); d != "" {
		t.Errorf("lossy notes (-want +got):\n%s", d)
	}
	lr = suite.NewLineReader(strings.NewReader("\xef\xbb\xbf{\"a\": 1}\n"), "bom.jsonl")
	if b, _, err := lr.Next(); err != nil || string(b) != `{"a": 1}` || !lr.BOM() {
		t.Errorf("BOM: %q, %v, named %v; want the line without it, and BOM() true", b, err, lr.BOM())
	}
	if _, _, err := lr.Next(); err != io.EOF {
		t.Errorf("after the last line: %v", err)
	}
}

// Ids are printable: no control characters (a terminal escape), no bidi controls, no line breaks.
func TestCheckRefusesUnprintableIDs(t *testing.T) {
	for _, id := range []string{"x\x1b[2J", "a\u202eb", "a\tb"} {
		c := &suite.Case{ID: id, Kind: suite.KindFunction, Label: suite.Vul, Code: "int f;"}
		if err := c.Check(); err == nil || !strings.Contains(err.Error(), "non-printable") {
			t.Errorf("Check of id %q: %v; want a non-printable character refused", id, err)
		}
	}
	c := &suite.Case{ID: "a/../b c", Kind: suite.KindFunction, Label: suite.Vul, Code: "int f;"}
	if err := c.Check(); err != nil {
		t.Errorf("id with / and ..: %v; want accepted (links escape them)", err)
	}
}
