package sarif_test

import (
	"encoding/json"
	"testing"

	"github.com/vulnbench/vulnbench/internal/sarif"
)

const minimalSARIF = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t","version":"1"}},"results":[{"ruleId":"r","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.c"},"region":{"startLine":3}}}]}]}]}`

// A UTF-8 byte-order mark is accepted and named, not "not a JSON object" (issue 25, finding 8).
func TestParseAcceptsBOM(t *testing.T) {
	l, err := sarif.Parse([]byte("\xef\xbb\xbf" + minimalSARIF))
	if err != nil || len(l.Runs) != 1 || l.Runs[0].Tool != "t" || !l.BOM {
		t.Fatalf("Parse with a BOM: %+v, %v; want one run of t, BOM named", l, err)
	}
	if l, err := sarif.Parse([]byte(minimalSARIF)); err != nil || l.BOM {
		t.Errorf("Parse without a BOM: BOM %v, %v", l != nil && l.BOM, err)
	}
}

// FuzzParse: Parse never panics; what it returns is a log whose runs encode as JSON, or an error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{minimalSARIF, "\xef\xbb\xbf" + minimalSARIF, `{"runs":[]}`, `{"runs":[{"results":[{}]}]}`, `{"runs":{}}`, "[]", "", `{"runs":[{"tool":{"driver":{"rules":[{"id":"r","properties":{"tags":["CWE-79"]}}]}},"results":[{"ruleId":"r","ruleIndex":99}]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := sarif.Parse(b)
		if err != nil {
			if l != nil {
				t.Errorf("Parse returned a log and an error %v", err)
			}
			return
		}
		if _, err := json.Marshal(l); err != nil {
			t.Errorf("the log does not encode: %v", err)
		}
	})
}
