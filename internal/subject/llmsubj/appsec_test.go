package llmsubj_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/prompt"
	"github.com/vulnbench/vulnbench/internal/subject/llmsubj"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestAppSecAnswer(t *testing.T) {
	const good = `{"vulnerable": true, "cwe": "CWE-89", "owasp": "A03:2021", "severity": "Critical",
"cvss_vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "exploit": "send ' OR 1=1 --",
"fix": "bind the id as a parameter", "fix_code": "db.query('SELECT * FROM t WHERE id = ?', [id])",
"explanation": "the id is concatenated into SQL", "confidence": 0.9}`
	const badVector = `{"vulnerable": true, "cwe": "CWE-89", "owasp": "A03:2021", "severity": "High",
"cvss_vector": "CVSS:3.1/AV:N/AC:L", "exploit": "e", "fix": "f", "fix_code": "c", "explanation": "x", "confidence": 0.5}`
	c := &suite.Case{ID: "ASB-000001-vul", Kind: suite.KindAppSec, Label: suite.Vul, Language: "javascript",
		Code: "db.query('SELECT * FROM t WHERE id = ' + id)"}
	tests := []struct {
		name       string
		provider   string
		strategy   prompt.Strategy
		reply      string
		wantFormat string // the response_format the fake saw
		want       verdict.Verdict
	}{
		{name: "openai: json_schema, full answer", provider: llmtest.OpenAI, strategy: prompt.Vanilla, reply: good, wantFormat: "json_schema",
			want: verdict.Verdict{Status: verdict.OK, Label: suite.Vul, CWE: []string{"CWE-89"}, Confidence: verdict.Float(0.9),
				Explanation: "the id is concatenated into SQL",
				AppSec: &verdict.AppSec{OWASP: "A03:2021", Severity: "Critical", CVSSVector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
					Exploit: "send ' OR 1=1 --", Fix: "bind the id as a parameter", FixCode: "db.query('SELECT * FROM t WHERE id = ?', [id])"}}},
		{name: "openai: a vector that does not parse is kept, flagged", provider: llmtest.OpenAI, strategy: prompt.Vanilla, reply: badVector, wantFormat: "json_schema",
			want: verdict.Verdict{Status: verdict.OK, Label: suite.Vul, CWE: []string{"CWE-89"}, Confidence: verdict.Float(0.5), Explanation: "x",
				AppSec: &verdict.AppSec{OWASP: "A03:2021", Severity: "High", CVSSVector: "CVSS:3.1/AV:N/AC:L",
					CVSSError: "set", Exploit: "e", Fix: "f", FixCode: "c"}}},
		{name: "openai, chain of thought: free text, tolerant parser", provider: llmtest.OpenAI, strategy: prompt.CoT,
			reply: "Step 1: the id flows into SQL.\n" + good, wantFormat: "",
			want: verdict.Verdict{Status: verdict.OK, Label: suite.Vul, CWE: []string{"CWE-89"}, Confidence: verdict.Float(0.9),
				Explanation: "the id is concatenated into SQL",
				AppSec: &verdict.AppSec{OWASP: "A03:2021", Severity: "Critical", CVSSVector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
					Exploit: "send ' OR 1=1 --", Fix: "bind the id as a parameter", FixCode: "db.query('SELECT * FROM t WHERE id = ?', [id])"}}},
		{name: "anthropic: tolerant parser over a fenced answer", provider: llmtest.Anthropic, strategy: prompt.Vanilla,
			reply: "Here it is:\n```json\n" + good + "\n```", wantFormat: "",
			want: verdict.Verdict{Status: verdict.OK, Label: suite.Vul, CWE: []string{"CWE-89"}, Confidence: verdict.Float(0.9),
				Explanation: "the id is concatenated into SQL",
				AppSec: &verdict.AppSec{OWASP: "A03:2021", Severity: "Critical", CVSSVector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
					Exploit: "send ' OR 1=1 --", Fix: "bind the id as a parameter", FixCode: "db.query('SELECT * FROM t WHERE id = ?', [id])"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got llmtest.Request
			script := func(r llmtest.Request) llmtest.Reply {
				got = r
				return llmtest.Reply{Text: tt.reply}
			}
			v, _ := subjecttest.RunUnit(t, llmsubj.Kind(), map[string]string{"model": tt.provider + ":m", "prompt": string(tt.strategy)}, c, script)
			// The case id and usage are the unit's and the meter's; the score is from logprobs the
			// fake synthesises (tested in modelkit).
			v.CaseID, v.Usage, v.Score, v.ScoreSource = "", verdict.Usage{}, nil, ""
			if v.AppSec != nil && v.AppSec.CVSSError != "" {
				v.AppSec.CVSSError = "set"
			}
			if diff := cmp.Diff(tt.want, v); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if got.ResponseFormat != tt.wantFormat {
				t.Errorf("response_format %q, want %q", got.ResponseFormat, tt.wantFormat)
			}
			if tt.wantFormat == "json_schema" && (got.Schema == nil || got.Schema.Name != prompt.AppSecSchemaName || !got.Schema.Strict) {
				t.Errorf("schema sent %+v, want the strict %s", got.Schema, prompt.AppSecSchemaName)
			}
		})
	}
}
