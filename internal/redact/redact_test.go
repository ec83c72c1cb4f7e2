package redact_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/redact"
)

func TestString(t *testing.T) {
	sc := redact.FromEnv(func(k string) string {
		return map[string]string{"OPENAI_API_KEY": "planted-key-1234", "PGPASSWORD": "hunter2hunter2"}[k]
	})
	for _, tc := range []struct{ in, want string }{
		{"provider said: invalid key planted-key-1234", "provider said: invalid key [redacted]"},
		{"resume with: vulnbench run --resume r1 --db postgres://vb:s3cr3t@db.internal:5432/vb", "resume with: vulnbench run --resume r1 --db postgres://vb:[redacted]@db.internal:5432/vb"},
		{"clone https://x-access-token:gh123token@github.com/o/r failed", "clone https://x-access-token:[redacted]@github.com/o/r failed"},
		{"open store postgres://vb@db.internal/vb", "open store postgres://vb@db.internal/vb"},
		{"dsn host=db user=vb password=s3cr3t dbname=vb", "dsn host=db user=vb password=[redacted] dbname=vb"},
		{`HTTP 401: {"error": "bad header Authorization: Bearer abc.def-ghi"}`, `HTTP 401: {"error": "bad header Authorization: Bearer [redacted]"}`},
		{`{"headers": {"x-api-key": "k-123456789"}}`, `{"headers": {"x-api-key": "[redacted]"}}`},
		{"echo sk-ant-api03-AAAAAAAAAAAAAAAA and sk-proj-BBBBBBBBBBBBBBBBBBBB", "echo [redacted] and [redacted]"},
		{"the PGPASSWORD hunter2hunter2 leaked", "the PGPASSWORD [redacted] leaked"},
		{"a plain message about a task-based skeleton", "a plain message about a task-based skeleton"},
		// a JSON object named like a header (a score report's "hardcoded-api-key" category) is no value
		{`"by_category": {"hardcoded-api-key": {"n": 16}, "authorization": {"n": 2}}`, `"by_category": {"hardcoded-api-key": {"n": 16}, "authorization": {"n": 2}}`},
		{"see https://github.com/o/r/pull/1 and mailto:a@b.example", "see https://github.com/o/r/pull/1 and mailto:a@b.example"},
		// Finding (issue 31): a fix hint read export OPENAI_API_KEY=[redacted]. Placeholders are
		// no values: dots, <...>, $VARIABLES, upper-case names of a key; values next to them go.
		{"fix: export OPENAI_API_KEY=...  (or --base-url URL)", "fix: export OPENAI_API_KEY=...  (or --base-url URL)"},
		{"api_key=<your-key> api_key=$OPENAI_API_KEY api_key=YOUR_API_KEY", "api_key=<your-key> api_key=$OPENAI_API_KEY api_key=YOUR_API_KEY"},
		{"--db postgres://vb:SECRET@db.example/vulnbench password=...", "--db postgres://vb:SECRET@db.example/vulnbench password=..."},
		{"api_key=... then api_key=k-98765432", "api_key=... then api_key=[redacted]"},
	} {
		if d := cmp.Diff(tc.want, sc.String(tc.in)); d != "" {
			t.Errorf("String(%q) (-want +got):\n%s", tc.in, d)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(sc.Writer(&b), "error: %s\n", "planted-key-1234")
	if strings.Contains(b.String(), "planted") {
		t.Errorf("Writer let the key through: %q", b.String())
	}
}
