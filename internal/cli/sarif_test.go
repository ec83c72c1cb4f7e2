package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSarifRead: the text summary and table, and the JSON contract (every key present, an empty
// cwe list rather than null).
func TestSarifRead(t *testing.T) {
	dir := t.TempDir()
	doc := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"t","version":"3","rules":[{"id":"bof","properties":{"tags":["external/cwe/cwe-119"]}}]}},
	"results":[{"ruleId":"bof","level":"error","message":{"text":"overflow"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"src/a.c"},"region":{"startLine":12,"endLine":14}}}]},
	           {"ruleId":"style","message":{"text":"no location"}}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "t.sarif"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sarif", "read", "t.sarif"}, `run 0: t 3: 2 results, 1 with a location, 1 with a CWE; CWEs: CWE-119
LOCATION       RULE   SEVERITY  CWE      MESSAGE
src/a.c:12-14  bof    error     CWE-119  overflow
(no location)  style  warning   -        no location
`},
		{[]string{"sarif", "read", "t.sarif", "--format", "json"}, `{
  "runs": [
    {
      "tool": "t",
      "version": "3",
      "results": 2,
      "findings": [
        {
          "file": "src/a.c",
          "start_line": 12,
          "end_line": 14,
          "rule": "bof",
          "cwe": [
            "CWE-119"
          ],
          "severity": "error",
          "message": "overflow"
        },
        {
          "file": "",
          "start_line": 0,
          "end_line": 0,
          "rule": "style",
          "cwe": [],
          "severity": "warning",
          "message": "no location"
        }
      ]
    }
  ]
}
`},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, dir, tt.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", tt.args, code, errOut)
		}
		if d := cmp.Diff(tt.want, out); d != "" {
			t.Errorf("%v (-want +got):\n%s", tt.args, d)
		}
	}
}
