package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/report"
)

// VD-S(r) steps down at each ROC point's FPR to that point's FNR, and never goes up.
func TestVDSCurve(t *testing.T) {
	roc := &report.ROC{Points: []report.XY{{0, 0}, {0, 0.5}, {0.25, 0.5}, {0.5, 0.75}, {0.75, 0.75}, {1, 1}}}
	want := []report.XY{{0, 1}, {0, 1}, {0, 0.5}, {0.5, 0.5}, {0.5, 0.25}, {1, 0.25}, {1, 0}, {1, 0}}
	if d := cmp.Diff(want, roc.VDSCurve()); d != "" {
		t.Errorf("VDSCurve (-want +got):\n%s", d)
	}
}

// The tool-call histogram counts the answered cases of each label by their tool calls; an
// error answer is left out, and wide ranges get wider bins.
func TestToolHist(t *testing.T) {
	for _, c := range []struct {
		name      string
		vul, ben  []int
		wantWidth int
		wantVul   []float64
		wantBen   []float64
	}{
		{"narrow", []int{2, 2, 3, 1}, []int{0, 0, 1, 0}, 1, []float64{0, 0.25, 0.5, 0.25}, []float64{0.75, 0.25, 0, 0}},
		{"wide", []int{45, 0}, []int{1, 3}, 3, append(append([]float64{0.5}, make([]float64, 14)...), 0.5), append([]float64{0.5, 0.5}, make([]float64, 14)...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var s, p strings.Builder
			for i, n := range append(append([]int(nil), c.vul...), c.ben...) {
				label := "ben"
				if i < len(c.vul) {
					label = "vul"
				}
				fmt.Fprintf(&s, `{"id":"c%d","kind":"function","label":%q,"language":"c","code":"int f(){}"}`+"\n", i, label)
				fmt.Fprintf(&p, `{"case_id":"c%d","label":%q,"usage":{"tool_calls":%d}}`+"\n", i, label, n)
			}
			// An error answer with many tool calls counts in no bin.
			fmt.Fprintf(&s, `{"id":"e","kind":"function","label":"vul","language":"c","code":"int f(){}"}`+"\n")
			fmt.Fprintf(&p, `{"case_id":"e","status":"error","reason":"timeout","usage":{"tool_calls":900}}`+"\n")
			suitePath, preds := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "p.jsonl")
			for f, text := range map[string]string{suitePath: s.String(), preds: p.String()} {
				if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := report.Build(t.Context(), nil, report.Request{Predictions: []string{preds}, Suite: suitePath, Plots: true})
			if err != nil {
				t.Fatal(err)
			}
			pc := rep.Runs[0].PerCase
			if pc == nil || pc.Tools == nil {
				t.Fatal("no tool-call histogram")
			}
			h := pc.Tools
			if h.Width != c.wantWidth || h.NVul != len(c.vul) || h.NBen != len(c.ben) {
				t.Errorf("width %d, %d vul, %d ben; want %d, %d, %d", h.Width, h.NVul, h.NBen, c.wantWidth, len(c.vul), len(c.ben))
			}
			if d := cmp.Diff(c.wantVul, h.Vul); d != "" {
				t.Errorf("vul shares (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.wantBen, h.Ben); d != "" {
				t.Errorf("ben shares (-want +got):\n%s", d)
			}
			for k, lo := range h.Low {
				if lo != k*h.Width {
					t.Errorf("bin %d starts at %d, want %d", k, lo, k*h.Width)
				}
			}
		})
	}
}
