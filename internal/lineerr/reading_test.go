package lineerr_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/lineerr"
)

// A file read whole is checked as LineReader checks lines: the problem of a strict read names
// the bad byte's line and column; a lossy read replaces each bad byte and notes the count once,
// however often the file is read; a byte-order mark is dropped and named.
func TestReadingFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lossy bool
		in    string
		out   string
		bom   bool
		err   string
		notes []string
	}{
		{name: "clean", in: "{\n}\n", out: "{\n}\n"},
		{name: "strict", in: "{\n\"a\": \"caf\xe9\"\n}", err: `f.json:2: invalid UTF-8 at column 10 (byte 0xe9): the file is not UTF-8 (Latin-1?); --lossy-utf8 reads it with each bad byte replaced by U+FFFD`},
		{name: "lossy", lossy: true, in: "{\n\"a\": \"caf\xe9\xe9\",\n\"b\": \"\xff\", \"c\": \"\uFFFD\"\n}", out: "{\n\"a\": \"caf\uFFFD\uFFFD\",\n\"b\": \"\uFFFD\", \"c\": \"\uFFFD\"\n}",
			notes: []string{"f.json: 3 bytes not UTF-8 replaced by U+FFFD on 2 lines (first: line 2) (--lossy-utf8)"}},
		{name: "bom", in: "\xef\xbb\xbf{}", out: "{}", bom: true, notes: []string{"f.json: UTF-8 byte-order mark ignored"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd := &lineerr.Reading{Lossy: tc.lossy}
			for range 2 {
				out, bom, err := rd.File("f.json", []byte(tc.in))
				got := ""
				if err != nil {
					got = err.Error()
				}
				if d := cmp.Diff(tc.err, got); d != "" {
					t.Fatalf("error (-want +got):\n%s", d)
				}
				if d := cmp.Diff(tc.out, string(out)); d != "" || bom != tc.bom {
					t.Errorf("bom %v, want %v; out (-want +got):\n%s", bom, tc.bom, d)
				}
			}
			if d := cmp.Diff(tc.notes, rd.Notes()); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
	if out, _, err := (*lineerr.Reading)(nil).File("f", []byte("\xef\xbb\xbfok")); err != nil || string(out) != "ok" {
		t.Errorf("nil Reading: %q, %v", out, err)
	}
}
