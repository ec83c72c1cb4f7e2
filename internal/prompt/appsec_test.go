package prompt

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAppSec(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    AppSecAnswer
		wantErr bool
	}{
		{name: "every field", text: `{"vulnerable": true, "cwe": "CWE-79", "owasp": "A03:2021", "severity": "High", "cvss_vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", "exploit": "e", "fix": "f", "fix_code": "c", "explanation": "x", "confidence": 0.8}`,
			want: AppSecAnswer{Answer: Answer{Vulnerable: true, CWE: []string{"CWE-79"}, Confidence: new08(), Reason: "x", Via: ViaJSON},
				OWASP: "A03:2021", Severity: "High", CVSSVector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", Exploit: "e", Fix: "f", FixCode: "c", Explanation: "x"}},
		{name: "synonyms and key case", text: "reasoning first\n```json\n{\"Vulnerable\": \"yes\", \"CWE\": 89, \"OWASP_2021\": \"A03:2021\", \"exploit_scenario\": \"e\", \"secure_code\": \"c\", \"fix_description\": \"f\"}\n```",
			want: AppSecAnswer{Answer: Answer{Vulnerable: true, CWE: []string{"CWE-89"}, Via: ViaJSON}, OWASP: "A03:2021", Exploit: "e", Fix: "f", FixCode: "c"}},
		{name: "non-string fields ignored", text: `{"vulnerable": false, "owasp": 3, "fix_code": null}`,
			want: AppSecAnswer{Answer: Answer{Vulnerable: false, Via: ViaJSON}}},
		{name: "markers only", text: "@@NOT VULNERABLE@@", want: AppSecAnswer{Answer: Answer{Via: ViaMarkers}}},
		{name: "nothing", text: "I cannot tell.", wantErr: true},
		{name: "bad verdict", text: `{"vulnerable": "perhaps"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAppSec(tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAppSecSchemaListsEveryField(t *testing.T) {
	s := AppSecSchema()
	props := s["properties"].(map[string]any)
	req := s["required"].([]any)
	if len(req) != len(props) || s["additionalProperties"] != false {
		t.Fatalf("strict schema needs every property required and no others: %d required of %d", len(req), len(props))
	}
	for _, r := range req {
		if _, ok := props[r.(string)]; !ok {
			t.Errorf("required %q is not a property", r)
		}
	}
}
func new08() *float64 { f := 0.8; return &f }
