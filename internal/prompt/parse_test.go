package prompt

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/suite"
)

func f64(f float64) *float64 { return &f }

func TestParse(t *testing.T) {
	huge := strings.Repeat("The buffer { is copied; see \"vulnerable\" paths. ", 200_000) // ~10 MB
	tests := []struct {
		name    string
		text    string
		want    Answer
		wantErr string
	}{
		{
			name: "bare JSON",
			text: `{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.9, "reason": "memcpy overflows name"}`,
			want: Answer{Vulnerable: true, CWE: []string{"CWE-787"}, Confidence: f64(0.9), Reason: "memcpy overflows name", Via: ViaJSON},
		},
		{
			name: "fenced JSON",
			text: "```json\n{\n  \"vulnerable\": false,\n  \"cwe\": null,\n  \"confidence\": 0.8,\n  \"reason\": \"bounds are checked\"\n}\n```",
			want: Answer{Vulnerable: false, Confidence: f64(0.8), Reason: "bounds are checked", Via: ViaJSON},
		},
		{
			name: "after CoT prose",
			text: "Step 1: the function reads len from the packet.\nStep 2: it indexes buf[len] without a check {see line 4}.\n" +
				"Step 3: so it reads out of bounds.\n\n{\"vulnerable\": true, \"cwe\": [\"CWE-125\", \"cwe 20\"], \"confidence\": 1, \"reason\": \"unchecked index\"}\nThat is my answer.",
			want: Answer{Vulnerable: true, CWE: []string{"CWE-125", "CWE-20"}, Confidence: f64(1), Reason: "unchecked index", Via: ViaJSON},
		},
		{
			name: "decoy object in prose before the real one",
			text: "I must answer like {\"vulnerable\": true, \"cwe\": \"CWE-787\", \"confidence\": 0.9, \"reason\": \"one sentence\"}.\n" +
				"After checking, the index is bounded.\n```json\n{\"vulnerable\": false, \"cwe\": null, \"confidence\": 0.7, \"reason\": \"the index is checked\"}\n```",
			want: Answer{Vulnerable: false, Confidence: f64(0.7), Reason: "the index is checked", Via: ViaJSON},
		},
		{
			name: "nested object after the answer's own fields",
			text: `{"vulnerable": true, "cwe": "CWE-416", "details": {"line": 9, "var": "s"}, "reason": "use after free"}`,
			want: Answer{Vulnerable: true, CWE: []string{"CWE-416"}, Reason: "use after free", Via: ViaJSON},
		},
		{
			name: "string booleans",
			text: `Answer: {"Vulnerable": "Yes", "CWE": "CWE-0089: SQL injection", "confidence": "0.65", "reason": " concatenated SQL "}`,
			want: Answer{Vulnerable: true, CWE: []string{"CWE-89"}, Confidence: f64(0.65), Reason: "concatenated SQL", Via: ViaJSON},
		},
		{
			name: "string false, bare CWE number, confidence out of range",
			text: `{"vulnerable": "FALSE", "cwe": 476, "confidence": 85}`,
			want: Answer{Vulnerable: false, CWE: []string{"CWE-476"}, Via: ViaJSON},
		},
		{
			name: "invalid CWEs dropped",
			text: `{"vulnerable": true, "cwe": ["N/A", "CWE-", "CWE-x1", "CWE-22", 0, "unknown", "CWE-22"]}`,
			want: Answer{Vulnerable: true, CWE: []string{"CWE-22"}, Via: ViaJSON},
		},
		{
			name: "JSON beats markers",
			text: "@@NOT VULNERABLE@@\n{\"vulnerable\": true, \"cwe\": \"CWE-78\"}",
			want: Answer{Vulnerable: true, CWE: []string{"CWE-78"}, Via: ViaJSON},
		},
		{
			name: "markers only",
			text: "The loop is bounded by n, which is checked.\n@@NOT VULNERABLE@@",
			want: Answer{Vulnerable: false, Via: ViaMarkers},
		},
		{
			name: "vulnerable marker with CWE",
			text: "The copy overflows.\n@@VULNERABLE@@\n@@CWE: CWE-787@@",
			want: Answer{Vulnerable: true, CWE: []string{"CWE-787"}, Via: ViaMarkers},
		},
		{
			name: "both markers, the last wins",
			text: "I will answer @@VULNERABLE@@ or @@NOT VULNERABLE@@. On reflection it is exploitable.\n@@VULNERABLE@@ @@CWE: 190@@",
			want: Answer{Vulnerable: true, CWE: []string{"CWE-190"}, Via: ViaMarkers},
		},
		{
			name: "both markers, not vulnerable last",
			text: "@@VULNERABLE@@? No: the length is checked first.\n@@NOT VULNERABLE@@",
			want: Answer{Vulnerable: false, Via: ViaMarkers},
		},
		{
			name: "lowercase markers without trailing @@",
			text: "final: @@ not vulnerable\n@@cwe-20",
			want: Answer{Vulnerable: false, CWE: []string{"CWE-20"}, Via: ViaMarkers},
		},
		{
			name: "marker with a value",
			text: "@@VULNERABLE: no@@",
			want: Answer{Vulnerable: false, Via: ViaMarkers},
		},
		{
			name: "adjacent markers",
			text: "@@VULNERABLE@@CWE: CWE-22, 23@@",
			want: Answer{Vulnerable: true, CWE: []string{"CWE-22"}, Via: ViaMarkers},
		},
		{
			name: "marker in code echoed back",
			text: "The code says:\n```c\n/* @@NOT VULNERABLE@@ */\nstrcpy(dst, src);\n```\nstrcpy has no bound.\n@@VULNERABLE@@",
			want: Answer{Vulnerable: true, Via: ViaMarkers},
		},
		{
			name: "marker after the echoed code is the only one counted",
			text: "I was told:\n```python\n# @@VULNERABLE@@\n{\"vulnerable\": true}\n```\nbut the query is parameterised. @@NOT VULNERABLE@@",
			want: Answer{Vulnerable: false, Via: ViaMarkers},
		},
		{
			name:    "only echoed code",
			text:    "```js\n// {\"vulnerable\": false}\n// @@NOT VULNERABLE@@\nlet a = 1;\n```",
			wantErr: "no JSON answer object and no @@VULNERABLE@@ / @@NOT VULNERABLE@@ marker",
		},
		{
			name: "unclosed code fence does not hide the answer",
			text: "```c\nint x = y[10];\n\nIt reads past y.\n{\"vulnerable\": true, \"cwe\": \"CWE-125\"}",
			want: Answer{Vulnerable: true, CWE: []string{"CWE-125"}, Via: ViaJSON},
		},
		{
			name:    "prose is not a marker",
			text:    "Is it vulnerable? It is not vulnerable, nothing is VULNERABLE here.",
			wantErr: "no JSON answer object",
		},
		{
			name:    "last answer object undecided",
			text:    `Format: {"vulnerable": true}. My answer: {"vulnerable": "maybe", "reason": "unclear"}`,
			wantErr: `the answer object's "vulnerable" is "maybe", not true or false`,
		},
		{
			name: "undecided object, but a marker",
			text: "{\"vulnerable\": null}\n@@VULNERABLE@@",
			want: Answer{Vulnerable: true, Via: ViaMarkers},
		},
		{
			name:    "malformed JSON",
			text:    `{"vulnerable": true, "cwe": "CWE-787",}`,
			wantErr: "no JSON answer object",
		},
		{
			name:    "object without the field",
			text:    `{"verdict": "vulnerable", "cwe": "CWE-787"}`,
			wantErr: "no JSON answer object",
		},
		{
			name:    "garbage",
			text:    "\x00\xff\xfe{{{{\"\"\"}}}@@@@ @@ @@VULN @@NOTVULNERABLEX",
			wantErr: "no JSON answer object",
		},
		{
			name:    "empty",
			text:    "",
			wantErr: "empty answer",
		},
		{
			name:    "blank",
			text:    " \n\t ",
			wantErr: "empty answer",
		},
		{
			name: "huge input",
			text: huge + "\n{\"vulnerable\": true, \"cwe\": \"CWE-400\"}\n" + huge,
			want: Answer{Vulnerable: true, CWE: []string{"CWE-400"}, Via: ViaJSON},
		},
		{
			name:    "huge input without an answer",
			text:    huge,
			wantErr: "no JSON answer object",
		},
		{
			name:    "deeply nested unterminated objects",
			text:    strings.Repeat(`{"vulnerable":`, 200_000),
			wantErr: "no JSON answer object",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, err := Parse(tt.text)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Parse took %v", d)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse = %+v, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractCWEs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"CWE-787", []string{"CWE-787"}},
		{"cwe_120 and CWE:121, CWE #122", []string{"CWE-120", "CWE-121", "CWE-122"}},
		{"787", []string{"CWE-787"}},
		{"787, 0120", []string{"CWE-787", "CWE-120"}},
		{"CWE-787 (top 25 #1)", []string{"CWE-787"}},
		{"N/A", nil},
		{"none", nil},
		{"CWE-0", nil},
		{"CWE-99999999", nil},
		{"XCWE-1", nil},
		{"CWE-12a", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, extractCWEs(tt.in)); diff != "" {
			t.Errorf("extractCWEs(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		`{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.9, "reason": "x"}`,
		"```json\n{\"vulnerable\": \"no\", \"cwe\": [\"787\", 20]}\n```",
		"step 1 {\"a\": {\"vulnerable\": \"Yes\"}} @@NOT VULNERABLE@@",
		"@@VULNERABLE@@ @@CWE: CWE-79, 80@@",
		"@@ not_vulnerable @@cwe",
		"```c\n@@VULNERABLE@@\n```\n~~~\n{\"vulnerable\":false}\n~~~",
		"{\"vulnerable\": 1e400, \"confidence\": -0}",
		"{{{{\"vulnerable\"",
		"\xff\xfe@@\xc3",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := Parse(text)
		if err != nil {
			if a.Via != "" || a.Vulnerable || a.CWE != nil {
				t.Fatalf("Parse failed (%v) but returned %+v", err, a)
			}
			return
		}
		if a.Via != ViaJSON && a.Via != ViaMarkers {
			t.Fatalf("Via = %q", a.Via)
		}
		for _, c := range a.CWE {
			if !suite.ValidCWE(c) || !strings.HasPrefix(c, "CWE-") || strings.HasPrefix(c, "CWE-0") {
				t.Fatalf("CWE %q is not normalised", c)
			}
		}
		if a.Confidence != nil && (*a.Confidence < 0 || *a.Confidence > 1) {
			t.Fatalf("confidence %v out of range", *a.Confidence)
		}
		if a.Via == ViaMarkers && (a.Confidence != nil || a.Reason != "") {
			t.Fatalf("markers gave confidence or reason: %+v", a)
		}
	})
}
