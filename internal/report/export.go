package report

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// ExportStore is what an export reads of a store: the run, its stored cases and its verdicts.
type ExportStore interface {
	Store
	CaseStore
}

// Export is one stored run as exporters see it: the run and its manifest, its cases by id (for
// a verdict's target file and lines) and its scored verdicts, whole, by case and repeat.
type Export struct {
	Run      *Run   // ID, Subject, Model, Stored, Manifest; no answers or scores
	Prompt   string // the run's --prompt, "" for a subject without one
	Cases    map[string]*suite.Case
	Verdicts []verdict.Verdict
	// Repeat and Majority say which answer of a run with repeats an export that states one
	// answer per case (openvex) states: repeat Repeat, or the majority (ChooseRepeat).
	Repeat   int
	Majority bool
}

// ChooseRepeat reads --repeat: "" (repeat 0), a repeat number of the run, or "majority".
func (x *Export) ChooseRepeat(s string) error {
	switch s {
	case "":
		return nil
	case "majority":
		x.Majority = true
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= max(1, x.Run.Stored.Repeats) {
		return fmt.Errorf("%q is not majority or a repeat of run %s (0 to %d)", s, x.Run.ID, max(1, x.Run.Stored.Repeats)-1)
	}
	x.Repeat = n
	return nil
}

// LoadExport reads a stored run for export.
func LoadExport(ctx context.Context, st ExportStore, runID string) (*Export, error) {
	r, err := st.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	x := &Export{Run: &Run{ID: r.ID, Name: r.ID, Subject: r.Subject, Stored: r}, Cases: map[string]*suite.Case{}}
	var m Manifest
	if err := json.Unmarshal(r.Manifest, &m); err == nil {
		m.Raw = r.Manifest
		x.Run.Manifest = &m
		x.Run.Model = m.Model()
		x.Prompt = m.Flags["prompt"]
	}
	if err := st.Cases(ctx, runID, func(c *suite.Case) error {
		x.Cases[c.ID] = c
		return nil
	}); err != nil {
		return nil, fmt.Errorf("export run %s: %w", runID, err)
	}
	if x.Verdicts, err = Verdicts(ctx, st, runID); err != nil {
		return nil, fmt.Errorf("export run %s: %w", runID, err)
	}
	return x, nil
}
