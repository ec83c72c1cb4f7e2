package suite

import (
	"bytes"
	"testing"
)

// FuzzDecodeCase feeds arbitrary lines through the reader, the decoder and the checks: none may
// panic, and every problem must be a *LineError naming the file.
func FuzzDecodeCase(f *testing.F) {
	f.Add([]byte(`{"id":"a","kind":"function","label":"vul","code":"int f(){}","cwe":["CWE-787"],"pair":"p"}`))
	f.Add([]byte("{\"id\":\"a\",\"kind\":\"jit\",\"label\":\"ben\",\"target\":{\"function\":\"f\"}}\r\n{\"id\":"))
	f.Add([]byte(`{"id":"a","kind":"vex","label":"ben","date":"2024-13-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, problems, err := ScanReader(bytes.NewReader(data), "fuzz.jsonl", nil, true, nil)
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
