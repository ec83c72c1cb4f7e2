package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// NotProbeError says a run is a run of another subject than the probe's.
type NotProbeError struct{ RunID, Subject, Kind string }

func (e *NotProbeError) Error() string {
	return fmt.Sprintf("run %s is a run of %s, not of %s", e.RunID, e.Subject, e.Kind)
}

// Manifest is the manifest of a stored run, which must be a run of the probe's subject kind.
func Manifest(ctx context.Context, st *store.Store, runID, kind string) (*runner.Manifest, error) {
	run, err := st.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	man, err := runner.ReadManifest(run)
	if err != nil {
		return nil, err
	}
	if man.SubjectKind != kind {
		return nil, &NotProbeError{RunID: runID, Subject: man.Subject, Kind: kind}
	}
	return man, nil
}

// Stored reads a probe run of kind back from the store and makes its table (FromRun), with the
// control's derangement seeded by seed.
func Stored(ctx context.Context, st *store.Store, runID, kind string, seed uint64) (Report, error) {
	man, err := Manifest(ctx, st, runID, kind)
	if err != nil {
		return Report{}, err
	}
	var cases []*suite.Case
	if err := st.Cases(ctx, runID, func(c *suite.Case) error { cases = append(cases, c); return nil }); err != nil {
		return Report{}, err
	}
	vs, err := report.Verdicts(ctx, st, runID)
	if err != nil {
		return Report{}, err
	}
	tokens, err := strconv.Atoi(man.FlagValues()["probe-tokens"])
	if err != nil {
		return Report{}, fmt.Errorf("run %s: the manifest's probe-tokens: %w", runID, err)
	}
	return FromRun(filepath.Base(man.Suite.Path), cases, vs, Options{Tokens: tokens}, seed), nil
}

// Write writes the table as text, md or json.
func (rep Report) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case "md":
		fmt.Fprintf(w, "Memorisation probe: %s\n\n| year | cases | memorised | control |\n|---|---:|---:|---:|\n", rep.Suite)
		for _, r := range rep.Rows {
			fmt.Fprintf(w, "| %s | %d | %d (%.1f%%) | %d (%.1f%%) |\n", r.Year, r.Cases, r.Memorised, 100*r.Share, r.Control, 100*r.ControlShare)
		}
	default:
		fmt.Fprintf(w, "memorisation probe: %s\n%-8s %6s %16s %16s\n", rep.Suite, "year", "cases", "memorised", "control")
		for _, r := range rep.Rows {
			fmt.Fprintf(w, "%-8s %6d %8d %6.1f%% %8d %6.1f%%\n", r.Year, r.Cases, r.Memorised, 100*r.Share, r.Control, 100*r.ControlShare)
		}
	}
	_, err := fmt.Fprintf(w, "%d cases too short to cut, %d without an answer\n", rep.TooShort, rep.Missing)
	return err
}
