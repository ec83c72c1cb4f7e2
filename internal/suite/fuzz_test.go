package suite

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDecodeCase feeds arbitrary lines through the reader, the decoder and the checks: none may
// panic, every problem must be a *LineError naming the file, and a line read as a case must be
// one JSON value.
func FuzzDecodeCase(f *testing.F) {
	f.Add([]byte(`{"id":"a","kind":"function","label":"vul","code":"int f(){}","cwe":["CWE-787"],"pair":"p"}`))
	f.Add([]byte("{\"id\":\"a\",\"kind\":\"jit\",\"label\":\"ben\",\"target\":{\"function\":\"f\"}}\r\n{\"id\":"))
	f.Add([]byte(`{"id":"a","kind":"vex","label":"ben","date":"2024-13-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Split(data, []byte("\n"))
		_, problems, err := ScanReader(bytes.NewReader(data), "fuzz.jsonl", nil, true, func(_ *Case, line int) error {
			b := bytes.TrimRight(lines[line-1], "\r")
			if line == 1 {
				b = bytes.TrimPrefix(b, []byte(bom))
			}
			if !json.Valid(b) {
				t.Errorf("line %d %q is not one JSON value, yet it was read as a case", line, b)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("read error on in-memory input: %v", err)
		}
		for _, p := range problems {
			le, ok := p.(*LineError)
			if !ok || le.File != "fuzz.jsonl" || le.Line < 1 {
				t.Fatalf("problem %v (%T) does not name fuzz.jsonl:LINE", p, p)
			}
		}
	})
}
