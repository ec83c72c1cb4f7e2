package sarif_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/suite"
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

// FuzzParse: Parse never panics; what it returns is a log whose runs encode as JSON, with one
// finding per result, lines that are a range (or unknown) and CWEs spelt CWE-<number> once each,
// or an error.
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
		for i, r := range l.Runs {
			if len(r.Findings) != r.Results {
				t.Errorf("run %d: %d findings of %d results", i, len(r.Findings), r.Results)
			}
			for _, f := range r.Findings {
				if f.StartLine < 0 || f.EndLine < f.StartLine || (f.StartLine == 0) != (f.EndLine == 0) {
					t.Errorf("run %d: lines %d-%d are not a range", i, f.StartLine, f.EndLine)
				}
				seen := map[string]bool{}
				for _, c := range f.CWE {
					if !strings.HasPrefix(c, "CWE-") || strings.HasPrefix(c, "CWE-0") || !suite.ValidCWE(c) || seen[c] {
						t.Errorf("run %d: CWEs %q: %q is not a CWE id or is repeated", i, f.CWE, c)
					}
					seen[c] = true
				}
			}
		}
	})
}
