package predictions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReplaysByIDAndByIdx(t *testing.T) {
	file := subjecttest.Arg(write(t, `{"case_id":"a","label":"vul","score":0.75}`+"\n"))
	v, _ := subjecttest.RunUnit(t, Kind(), nil, &suite.Case{ID: "a", Kind: suite.KindFunction}, nil, file)
	if v.Status != verdict.OK || v.Label != suite.Vul || v.Score == nil || *v.Score != 0.75 {
		t.Errorf("by id: %+v", v)
	}
	if v, _ := subjecttest.RunUnit(t, Kind(), nil, &suite.Case{ID: "b", Kind: suite.KindFunction}, nil, file); v.Status != verdict.Error || !strings.Contains(v.Reason, "no prediction for case b") {
		t.Errorf("missing prediction: %s %q", v.Status, v.Reason)
	}
	tsv := subjecttest.Arg(write(t, "12\t0\t0.2\n"))
	v, _ = subjecttest.RunUnit(t, Kind(), nil, &suite.Case{ID: "primevul-12", Kind: suite.KindFunction, Source: map[string]any{"idx": float64(12)}}, nil, tsv)
	if v.Label != suite.Ben || v.Score == nil || *v.Score != 0.2 {
		t.Errorf("by idx: %+v", v)
	}
}

// TestReplaysTheWholeVerdict: a verdict v2 line comes back whole, findings, vex and appsec
// included, for the run to store; each repeat gets its own line, and repeat 0 answers the
// repeats the file has no line for.
func TestReplaysTheWholeVerdict(t *testing.T) {
	ctx := context.Background()
	s, err := Load(write(t, `{"case_id":"a","label":"vul","score":0.9,"score_source":"tool","confidence":0.7,"cwe":["CWE-120"],`+
		`"findings":[{"file":"a.c","start_line":3,"end_line":4,"function":"f","rule":"strcpy","cwe":["CWE-120"],"severity":"4","message":"m"}],`+
		`"vex":{"category":"c","status":"not_affected","justification":"component_not_present","impact":"i"},`+
		`"appsec":{"owasp":"A03:2021","severity":"high","cvss_vector":"CVSS:3.1/AV:N","exploit":"e","fix":"f"},"explanation":"x"}`+"\n"+
		`{"case_id":"a","repeat":1,"label":"ben","score":0.1}`+"\n"), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := verdict.Verdict{CaseID: "a", Status: verdict.OK, Label: suite.Vul, Score: verdict.Float(0.9), ScoreSource: verdict.FromTool,
		Confidence: verdict.Float(0.7), CWE: []string{"CWE-120"},
		Findings:    []verdict.Finding{{File: "a.c", StartLine: 3, EndLine: 4, Function: "f", Rule: "strcpy", CWE: []string{"CWE-120"}, Severity: "4", Message: "m"}},
		VEX:         &verdict.VEX{Category: "c", Status: "not_affected", Justification: "component_not_present", Impact: "i"},
		AppSec:      &verdict.AppSec{OWASP: "A03:2021", Severity: "high", CVSSVector: "CVSS:3.1/AV:N", Exploit: "e", Fix: "f"},
		Explanation: "x"}
	want := []verdict.Verdict{first, {CaseID: "a", Repeat: 1, Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0.1)}, first}
	var got []verdict.Verdict
	for repeat := range 3 {
		v, err := s.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "a"}, Repeat: repeat}, subject.NewEnv(subject.EnvOptions{}))
		if err != nil {
			t.Fatalf("repeat %d: %v", repeat, err)
		}
		got = append(got, v)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts of repeats 0, 1, 2 (-want +got):\n%s", diff)
	}
}

func TestBadFileIsRefusedWhole(t *testing.T) {
	_, err := Load(write(t, `{"case_id":"a","label":"vul"}`+"\n"+`{"case_id":"b","label":"maybe"}`+"\n"), 0, nil)
	if err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("err = %v, want the problem on line 2", err)
	}
}

func TestDelayHonoursCancellation(t *testing.T) {
	s, err := Load(write(t, `{"case_id":"a","label":"vul"}`+"\n"), time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "a"}, Repeat: 0}, subject.NewEnv(subject.EnvOptions{})); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the cancellation at once", err)
	}
}
