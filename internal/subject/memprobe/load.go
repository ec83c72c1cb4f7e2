package memprobe

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/probe"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Store is what reading a memory-probe run back needs of the store.
type Store interface {
	GetRun(ctx context.Context, id string) (*store.Run, error)
	Cases(ctx context.Context, runID string, fn func(*suite.Case) error) error
	Verdicts(ctx context.Context, runID string, fn func(verdict.Verdict) error) error
	AllAttempts(ctx context.Context, runID string, fn func(verdict.Verdict) error) error
}

// ErrOtherKind is a run of another subject kind than this one.
var ErrOtherKind = errors.New("not of " + Name)

// Manifest is run runID's manifest, which must be a memory-probe run's (else an error wrapping
// ErrOtherKind).
func Manifest(ctx context.Context, st Store, runID string) (*manifest.Manifest, error) {
	run, err := st.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	man, err := manifest.Read(run.ID, run.Manifest)
	if err != nil {
		return nil, err
	}
	if man.SubjectKind != Name {
		return nil, fmt.Errorf("run %s is a run of %s, %w", runID, man.Subject, ErrOtherKind)
	}
	return man, nil
}

// Load reads memory-probe run runID back from the store (its cases, its scored verdicts in case
// and repeat order, the cut its config recorded) and makes its table, the control paired by seed.
func Load(ctx context.Context, st Store, runID string, seed uint64) (probe.Report, error) {
	man, err := Manifest(ctx, st, runID)
	if err != nil {
		return probe.Report{}, err
	}
	var cases []*suite.Case
	if err := st.Cases(ctx, runID, func(c *suite.Case) error { cases = append(cases, c); return nil }); err != nil {
		return probe.Report{}, err
	}
	var vs []verdict.Verdict
	if err := st.Verdicts(ctx, runID, func(v verdict.Verdict) error { vs = append(vs, v); return nil }); err != nil {
		return probe.Report{}, err
	}
	slices.SortStableFunc(vs, func(a, b verdict.Verdict) int {
		return cmp.Or(cmp.Compare(a.CaseID, b.CaseID), cmp.Compare(a.Repeat, b.Repeat))
	})
	var cfg Config // the kind's typed config, as the run recorded it
	if err := json.Unmarshal(man.Config, &cfg); err != nil || cfg.Tokens < 1 {
		return probe.Report{}, fmt.Errorf("run %s: the manifest records no probe_tokens in its subject config", runID)
	}
	rep := probe.FromRun(filepath.Base(man.Suite.Path), cases, vs, cfg.Options(), seed)
	var all []verdict.Verdict
	if err := st.AllAttempts(ctx, runID, func(v verdict.Verdict) error { all = append(all, v); return nil }); err != nil {
		return probe.Report{}, err
	}
	rep.Retries = probe.RetriesOf(all)
	return rep, nil
}
