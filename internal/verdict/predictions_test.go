package verdict

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vulnbench/vulnbench/internal/suite"
)

type read struct {
	Line int
	P    Prediction
}

func readAll(t *testing.T, r io.Reader, file string) ([]read, []string) {
	t.Helper()
	var got []read
	errs := ReadPredictions(r, file, nil, func(p Prediction, line int) error {
		got = append(got, read{line, p})
		return nil
	})
	var msgs []string
	for _, e := range errs {
		var le *suite.LineError
		if !errors.As(e, &le) {
			t.Errorf("problem %q is a %T, not a *suite.LineError", e, e)
		}
		msgs = append(msgs, e.Error())
	}
	return got, msgs
}

func TestReadPredictions(t *testing.T) {
	ok := func(id string, l suite.Label, score *float64) Prediction {
		return Prediction{Verdict: Verdict{CaseID: id, Status: OK, Label: l, Score: score}}
	}
	tsv := func(idx string, l suite.Label, score *float64) Prediction {
		return Prediction{Verdict: Verdict{Status: OK, Label: l, Score: score}, Idx: idx}
	}
	tests := []struct {
		name     string
		data     string
		want     []read
		wantErrs []string
	}{
		{
			name: "jsonl: CRLF, blank lines, default status, repeats",
			data: "\r\n" + `{"case_id": "a", "label": "vul", "score": 0.91, "cwe": ["CWE-476"]}` + "\r\n" +
				"   \r\n" +
				`{"case_id": "b", "label": "ben", "status": "ok", "score": 0}` + "\r\n" +
				`{"case_id": "c", "status": "failed", "reason": "no marker", "raw": "hmm"}` + "\n" +
				`{"case_id": "d", "status": "error", "reason": "timeout"}` + "\n" +
				`{"case_id": "a", "repeat": 1, "label": "ben", "score": 1, "category": "x", "usage": {"input_tokens": 10}}` + "\n",
			want: []read{
				{2, Prediction{Verdict: Verdict{CaseID: "a", Status: OK, Label: suite.Vul, Score: Float(0.91), CWE: []string{"CWE-476"}}}},
				{4, ok("b", suite.Ben, Float(0))},
				{5, Prediction{Verdict: Verdict{CaseID: "c", Status: Failed, Reason: "no marker", Raw: "hmm"}}},
				{6, Prediction{Verdict: Verdict{CaseID: "d", Status: Error, Reason: "timeout"}}},
				{7, Prediction{Verdict: Verdict{CaseID: "a", Repeat: 1, Status: OK, Label: suite.Ben, Score: Float(1), Category: "x",
					Usage: Usage{InputTokens: 10}}}},
			},
		},
		{
			name: "jsonl: byte order mark",
			data: "\xef\xbb\xbf" + `{"case_id": "a", "label": "vul"}` + "\n",
			want: []read{{1, ok("a", suite.Vul, nil)}},
		},
		{
			name: "jsonl: every problem",
			data: `{"case_id": "a", "label": "vul"` + "\n" + // 1 truncated
				`{"case_id": "b" "label": "vul"}` + "\n" + // 2 bad JSON
				`{"case_id": "c", "label": "vul", "status": "maybe"}` + "\n" + // 3 unknown status
				`{"label": "vul"}` + "\n" + // 4 missing case_id
				`{"case_id": "e", "label": "vul", "score": 1.5}` + "\n" + // 5 score > 1
				`{"case_id": "f", "label": "vul", "score": -0.01}` + "\n" + // 6 score < 0
				`{"case_id": "g", "label": "yes"}` + "\n" + // 7 bad label
				`{"case_id": "h"}` + "\n" + // 8 no label, status ok
				`{"case_id": "i", "label": "ben", "prob": 0.3}` + "\n" + // 9 unknown field
				`{"case_id": "j", "label": "ben", "score": "0.3"}` + "\n" + // 10 score as string
				`{"case_id": "k", "label": "ben"}` + "\n" + // 11 fine
				`{"case_id": "k", "label": "vul"}` + "\n" + // 12 duplicate
				`{"case_id": "k", "repeat": 2, "label": "vul"}` + "\n" + // 13 fine
				`{"case_id": "k", "repeat": 2, "label": "ben"}` + "\n" + // 14 duplicate repeat
				`["case_id"]` + "\n" + // 15 not an object
				`{"case_id": "l", "label": "ben"} {}` + "\n" + // 16 two values
				"0\t1\t0.5\n", // 17 TSV in a JSONL file
			want: []read{{11, ok("k", suite.Ben, nil)}, {13, Prediction{Verdict: Verdict{CaseID: "k", Repeat: 2, Status: OK, Label: suite.Vul}}}},
			wantErrs: []string{
				"p.jsonl:1: invalid JSON: the line ends before the object does (truncated?)",
				`p.jsonl:2: invalid JSON at column 17: invalid character '"' after object key:value pair`,
				`p.jsonl:3: field "status": "maybe" is not ok, failed or error`,
				`p.jsonl:4: missing field "case_id"`,
				`p.jsonl:5: field "score": 1.5 is not in [0, 1]`,
				`p.jsonl:6: field "score": -0.01 is not in [0, 1]`,
				`p.jsonl:7: field "label": "yes" is not vul or ben`,
				`p.jsonl:8: missing field "label" (vul or ben; or a status of failed or error)`,
				`p.jsonl:9: invalid prediction: unknown field "prob"`,
				`p.jsonl:10: field "score": expected float64, got JSON string`,
				`p.jsonl:12: duplicate case_id "k" (first on line 11)`,
				`p.jsonl:14: duplicate case_id "k" (repeat 2) (first on line 13)`,
				`p.jsonl:15: invalid prediction: expected a JSON object, got array`,
				`p.jsonl:16: invalid JSON: more than one JSON value on the line`,
				"p.jsonl:17: invalid prediction: expected a JSON object, got number",
			},
		},
		{
			name: "jsonl: verdict v2, every field",
			data: `{"case_id": "a", "repeat": 1, "attempt": 2, "label": "vul", "score": 0.8, "score_source": "tool", "confidence": 0.7,` +
				` "cwe": ["CWE-120", "NVD-CWE-noinfo"], "findings": [{"file": "a.c", "start_line": 3, "end_line": 3, "function": "f",` +
				` "rule": "strcpy", "cwe": ["CWE-120"], "severity": "4", "message": "m"}, {"start_line": 0}],` +
				` "vex": {"category": "c", "status": "not_affected", "justification": "inline_mitigations_already_exist", "impact": "i"},` +
				` "appsec": {"owasp": "A03:2021", "severity": "high", "cvss_vector": "CVSS:3.1/AV:N", "cvss_error": "incomplete", "exploit": "e", "fix": "f", "fix_code": "c"},` +
				` "usage": {"cache_write_tokens": 5, "reasoning_tokens": 6, "cost_usd": 0}}` + "\n",
			want: []read{{1, Prediction{Verdict: Verdict{CaseID: "a", Repeat: 1, Attempt: 2, Status: OK, Label: suite.Vul,
				Score: Float(0.8), ScoreSource: FromTool, Confidence: Float(0.7), CWE: []string{"CWE-120", "NVD-CWE-noinfo"},
				Findings: []Finding{{File: "a.c", StartLine: 3, EndLine: 3, Function: "f", Rule: "strcpy", CWE: []string{"CWE-120"},
					Severity: "4", Message: "m"}, {}},
				VEX:    &VEX{Category: "c", Status: "not_affected", Justification: "inline_mitigations_already_exist", Impact: "i"},
				AppSec: &AppSec{OWASP: "A03:2021", Severity: "high", CVSSVector: "CVSS:3.1/AV:N", CVSSError: "incomplete", Exploit: "e", Fix: "f", FixCode: "c"},
				Usage:  Usage{CacheWriteTokens: 5, ReasoningTokens: 6, CostUSD: Float(0)}}}}},
		},
		{
			name: "jsonl: every verdict v2 problem",
			data: `{"case_id": "a", "label": "vul", "attempt": -1}` + "\n" + // 1
				`{"case_id": "b", "label": "vul", "score_source": "vibes"}` + "\n" + // 2
				`{"case_id": "c", "label": "vul", "confidence": 1.01}` + "\n" + // 3
				`{"case_id": "d", "label": "vul", "confidence": -1}` + "\n" + // 4
				`{"case_id": "e", "label": "vul", "cwe": ["CWE-79", "cwe-79", "79", "CWE-"]}` + "\n" + // 5
				`{"case_id": "f", "label": "vul", "findings": [{"start_line": 5, "end_line": 2}, {"start_line": -1, "end_line": -2}, {"cwe": ["Cwe-1"]}]}` + "\n" + // 6
				`{"case_id": "g", "label": "ben", "vex": {"status": "unaffected", "justification": "code_not_reachable"}}` + "\n" + // 7
				`{"case_id": "h", "label": "ben", "vex": {"stauts": "fixed"}}` + "\n" + // 8
				`{"case_id": "i", "label": "ben", "usage": {"output_tokens": -1, "cost_usd": -0.5}}` + "\n" + // 9
				`{"case_id": "j", "label": "ben", "findings": [{"line": 3}]}` + "\n" + // 10
				`{"case_id": "k", "label": "ben", "confidence": "high"}` + "\n" + // 11
				`{"case_id": "l", "label": "ben", "findings": [{"start_line": 4}, {"end_line": 4}], "vex": {"status": "fixed"}}` + "\n", // 12 fine
			want: []read{{12, Prediction{Verdict: Verdict{CaseID: "l", Status: OK, Label: suite.Ben,
				Findings: []Finding{{StartLine: 4}, {EndLine: 4}}, VEX: &VEX{Status: "fixed"}}}}},
			wantErrs: []string{
				`p.jsonl:1: field "attempt": -1 is negative`,
				`p.jsonl:2: field "score_source": "vibes" is not logprob, stated or tool`,
				`p.jsonl:3: field "confidence": 1.01 is not in [0, 1]`,
				`p.jsonl:4: field "confidence": -1 is not in [0, 1]`,
				`p.jsonl:5: field "cwe[1]": "cwe-79" is not a CWE id: write "CWE-79"`,
				`p.jsonl:5: field "cwe[2]": "79" is not a CWE id (CWE-<number>, NVD-CWE-Other or NVD-CWE-noinfo)`,
				`p.jsonl:5: field "cwe[3]": "CWE-" is not a CWE id (CWE-<number>, NVD-CWE-Other or NVD-CWE-noinfo)`,
				`p.jsonl:6: field "findings[0]": end_line 2 is before start_line 5`,
				`p.jsonl:6: field "findings[1].start_line": -1 is negative`,
				`p.jsonl:6: field "findings[1].end_line": -2 is negative`,
				`p.jsonl:6: field "findings[2].cwe[0]": "Cwe-1" is not a CWE id: write "CWE-1"`,
				`p.jsonl:7: field "vex.status": "unaffected" is not affected, not_affected, fixed or under_investigation`,
				`p.jsonl:7: field "vex.justification": "code_not_reachable" is not one of OpenVEX's: component_not_present, ` +
					`vulnerable_code_not_present, vulnerable_code_not_in_execute_path, vulnerable_code_cannot_be_controlled_by_adversary, ` +
					`inline_mitigations_already_exist`,
				`p.jsonl:8: invalid prediction: unknown field "stauts"`,
				`p.jsonl:9: field "usage.output_tokens": -1 is negative`,
				`p.jsonl:9: field "usage.cost_usd": -0.5 is negative`,
				`p.jsonl:10: invalid prediction: unknown field "line"`,
				`p.jsonl:11: field "confidence": expected float64, got JSON string`,
			},
		},
		{
			name: "tsv: three and two columns, CRLF, blank lines",
			data: "12\t1\t0.87\r\n\r\n007\t0\t0.1\r\n13\t0\n14\t1\t1e-3\n",
			want: []read{
				{1, tsv("12", suite.Vul, Float(0.87))},
				{3, tsv("7", suite.Ben, Float(0.1))},
				{4, tsv("13", suite.Ben, nil)},
				{5, tsv("14", suite.Vul, Float(0.001))},
			},
		},
		{
			name: "tsv: every problem",
			data: "1\t2\t0.5\n" + // label 2
				"2\t1\t1.5\n" + // probability > 1
				"3\t1\tNaN\n" + // NaN
				"4\t1\tabc\n" + // not a number
				"x\t1\t0.5\n" + // idx
				"-6\t0\n" + // negative idx
				"7\n" + // one column
				"8\t1\t0.5\textra\n" + // four columns
				"9\tvul\t0.5\n" + // label word
				"10\t1\t0.5\n" + // fine
				"10\t0\t0.2\n" + // duplicate idx
				`{"case_id": "a", "label": "vul"}` + "\n", // JSON in a TSV file
			want: []read{{10, tsv("10", suite.Vul, Float(0.5))}},
			wantErrs: []string{
				`p.txt:1: label "2" is not 0 or 1`,
				`p.txt:2: probability "1.5" is not a number in [0, 1]`,
				`p.txt:3: probability "NaN" is not a number in [0, 1]`,
				`p.txt:4: probability "abc" is not a number in [0, 1]`,
				`p.txt:5: idx "x" is not a non-negative integer`,
				`p.txt:6: idx "-6" is not a non-negative integer`,
				`p.txt:7: expected idx<TAB>label<TAB>probability (or idx<TAB>label), got 1 tab-separated columns`,
				`p.txt:8: expected idx<TAB>label<TAB>probability (or idx<TAB>label), got 4 tab-separated columns`,
				`p.txt:9: label "vul" is not 0 or 1`,
				`p.txt:11: duplicate idx 10 (first on line 10)`,
				`p.txt:12: expected idx<TAB>label<TAB>probability (or idx<TAB>label), got 1 tab-separated columns`,
			},
		},
		{
			name: "empty file",
			data: "\n\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := "p.jsonl"
			if strings.HasPrefix(tt.name, "tsv") {
				file = "p.txt"
			}
			got, errs := readAll(t, strings.NewReader(tt.data), file)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("predictions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadPredictionsCapsProblems(t *testing.T) {
	_, errs := readAll(t, strings.NewReader(strings.Repeat("1\t5\n", 130)), "p.txt")
	want := []string{`p.txt:1: label "5" is not 0 or 1`, `p.txt:100: label "5" is not 0 or 1`, "p.txt: and 30 more problems"}
	if len(errs) != suite.MaxProblems+1 {
		t.Fatalf("got %d problems, want %d", len(errs), suite.MaxProblems+1)
	}
	if diff := cmp.Diff(want, []string{errs[0], errs[99], errs[100]}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReadPredictionsLongLine(t *testing.T) {
	data := "1\t1\t0.5\n" + strings.Repeat("9", suite.DefaultMaxLine+1) + "\n2\t0\t0.25\n"
	got, errs := readAll(t, strings.NewReader(data), "p.txt")
	if diff := cmp.Diff([]string{"p.txt:2: line is 8.0 MiB, over the 8 MiB limit for one record"}, errs); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	want := []read{
		{1, Prediction{Verdict: Verdict{Status: OK, Label: suite.Vul, Score: Float(0.5)}, Idx: "1"}},
		{3, Prediction{Verdict: Verdict{Status: OK, Label: suite.Ben, Score: Float(0.25)}, Idx: "2"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("predictions (-want +got):\n%s", diff)
	}
}

func TestReadPredictionsCallbackError(t *testing.T) {
	calls := 0
	errs := ReadPredictions(strings.NewReader("1\t1\n2\t1\n3\t1\n"), "p.txt", nil, func(p Prediction, line int) error {
		calls++
		if p.Idx == "2" {
			return errors.New("no case has idx 2")
		}
		return nil
	})
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	if diff := cmp.Diff([]string{"p.txt:2: no case has idx 2"}, msgs); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if calls != 2 {
		t.Errorf("fn called %d times, want 2 (reading stops at its error)", calls)
	}
}

type failingReader struct{ sent bool }

func (f *failingReader) Read(p []byte) (int, error) {
	if !f.sent {
		f.sent = true
		return copy(p, "1\t1\t0.5\n"), nil
	}
	return 0, errors.New("disk on fire")
}

func TestReadPredictionsReadFailure(t *testing.T) {
	got, errs := readAll(t, &failingReader{}, "p.txt")
	if diff := cmp.Diff([]string{"p.txt:2: read: disk on fire"}, errs); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(got) != 1 {
		t.Errorf("got %d predictions before the failure, want 1", len(got))
	}
}

// FuzzReadPredictions: no input makes ReadPredictions panic, what it accepts is valid, every
// problem names the file and its line, and the predictions accepted from JSONL, written back by
// WriteJSONL, read again as the same predictions.
func FuzzReadPredictions(f *testing.F) {
	f.Add([]byte(`{"case_id": "a", "label": "vul", "score": 0.5}` + "\n" + `{"case_id": "b", "status": "error"}`))
	f.Add([]byte("1\t1\t0.5\r\n2\t0\n"))
	f.Add([]byte(`{"case_id": "a", "label": "vul", "score_source": "stated", "confidence": 0.5, "findings": [{"start_line": 2, "end_line": 3}], "vex": {"status": "fixed"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fromJSON []Verdict
		errs := ReadPredictions(strings.NewReader(string(data)), "f", nil, func(p Prediction, _ int) error {
			if (p.CaseID == "") == (p.Idx == "") || !p.Status.Valid() || (p.Status == OK && !p.Label.Valid()) ||
				(p.Score != nil && !(*p.Score >= 0 && *p.Score <= 1)) || !p.ScoreSource.Valid() ||
				(p.Confidence != nil && !(*p.Confidence >= 0 && *p.Confidence <= 1)) || p.Attempt < 0 {
				t.Fatalf("accepted an invalid prediction %+v", p)
			}
			if p.CaseID != "" {
				fromJSON = append(fromJSON, p.Verdict)
			}
			return nil
		})
		for i, e := range errs {
			// Only the last, "and N more problems", has no line.
			var le *suite.LineError
			if !errors.As(e, &le) || le.File != "f" || (le.Line < 1 && i < len(errs)-1) {
				t.Fatalf("problem %q (%T) does not name f:LINE", e, e)
			}
		}
		var out bytes.Buffer
		if err := WriteJSONL(&out, fromJSON); err != nil {
			t.Fatal(err)
		}
		written := out.String()
		var again []Verdict
		if errs := ReadPredictions(&out, "again", nil, func(p Prediction, _ int) error {
			again = append(again, p.Verdict)
			return nil
		}); len(errs) > 0 {
			t.Fatalf("the accepted predictions, written back, read with problems %q:\n%s", errs, written)
		}
		if d := cmp.Diff(fromJSON, again, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("the accepted predictions, written back, read differently (-accepted +again):\n%s", d)
		}
	})
}

func TestVEXAnswer(t *testing.T) {
	for _, tc := range []struct {
		cat  string
		want VEX
	}{
		{"vulnerable", VEX{Category: "vulnerable", Status: "affected"}},
		{"uncertain", VEX{Category: "uncertain", Status: "under_investigation"}},
		{"code_not_present", VEX{Category: "code_not_present", Status: "not_affected", Justification: "component_not_present"}},
		{"code_not_reachable", VEX{Category: "code_not_reachable", Status: "not_affected", Justification: "vulnerable_code_not_in_execute_path"}},
		{"runtime_protected", VEX{Category: "runtime_protected", Status: "not_affected", Justification: "inline_mitigations_already_exist"}},
		{"mitigating_control_protected", VEX{Category: "mitigating_control_protected", Status: "not_affected", Justification: "inline_mitigations_already_exist"}},
		{"requires_environment", VEX{Category: "requires_environment", Status: "not_affected", Impact: "not exploitable here: requires_environment"}},
		{"false_positive", VEX{Category: "false_positive", Status: "not_affected", Impact: "not exploitable here: false_positive"}},
	} {
		if d := cmp.Diff(&tc.want, VEXAnswer(tc.cat, "")); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.cat, d)
		}
	}
	if got := VEXAnswer("requires_configuration", "needs the debug endpoint on").Impact; got != "needs the debug endpoint on" {
		t.Errorf("impact given = %q", got)
	}
}
