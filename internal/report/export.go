package report

import (
	"context"
	"fmt"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/score"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// ExportStore is what an export reads of a store: the run, its stored cases and its verdicts.
type ExportStore interface {
	Store
	CaseStore
}

// Export is what export presenters show of a stored run beyond its identity: its cases by id
// (for a verdict's target file and lines) and its scored verdicts, whole, by case and repeat.
type Export struct {
	Prompt   string // the run's --prompt, "" for a subject without one
	Cases    map[string]*suite.Case
	Verdicts []verdict.Verdict
	// Repeat and Majority say which answer of a run with repeats an export that states one
	// answer per case (openvex) states: repeat Repeat, or the majority (ChooseRepeat).
	Repeat   int
	Majority bool
}

// ChooseRepeat reads --repeat for a run loaded for export: "" (repeat 0), a repeat number of
// the run, or "majority".
func (r *Run) ChooseRepeat(s string) error {
	x := r.Export
	if x == nil {
		return fmt.Errorf("run %s is not loaded for export", r.ID)
	}
	switch s {
	case "":
		return nil
	case "majority":
		x.Majority = true
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= max(1, r.Stored.Repeats) {
		return fmt.Errorf("%q is not majority or a repeat of run %s (0 to %d)", s, r.ID, max(1, r.Stored.Repeats)-1)
	}
	x.Repeat = n
	return nil
}

// LoadExport reads a stored run for export: a report of that one run (ID, Subject, Model,
// Stored, Manifest and Export; no truth, answers or scores).
func LoadExport(ctx context.Context, st ExportStore, runID string) (*Report, error) {
	r, err := st.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	x := &Export{Cases: map[string]*suite.Case{}}
	run := &Run{ID: r.ID, Name: r.ID, Subject: r.Subject, Stored: r, Export: x}
	if m, err := manifest.Read(r.ID, r.Manifest); err == nil {
		run.Manifest = m
		run.Model = m.Settings().Model
		x.Prompt = m.Settings().Prompt
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
	return New(nil, score.Options{}, run), nil
}
