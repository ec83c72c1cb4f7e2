package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// scoreFlags are the scoring options shared by run and score.
type scoreFlags struct {
	format     string
	vdsFPR     float64
	unparsedAs string
	ci         bool
	resamples  int
	ciSeed     uint64 // score: --seed; run: its own --seed
	after      afterFlag
}

func (s *scoreFlags) add(f *pflag.FlagSet) {
	f.StringVar(&s.format, "format", "text", "score table format: text, md, json or csv")
	f.Float64Var(&s.vdsFPR, "vds-fpr", 0.005, "VD-S: the tolerated false-positive rate r (FNR is reported at FPR <= r)")
	f.StringVar(&s.unparsedAs, "unparsed-as", "failed", "how failed (unparseable) verdicts count: failed (wrong, as VEX-Bench) or ben (as the JitVul paper)")
	f.BoolVar(&s.ci, "ci", false, "add 95% bootstrap confidence intervals of F1, pAcc and accuracy (resampling projects, else pairs, else cases; seeded by --seed)")
	f.IntVar(&s.resamples, "resamples", score.DefaultResamples, "bootstrap resamples for --ci (reduced automatically above 100M unit draws, never below 200)")
	s.after.add(f)
}

func (s *scoreFlags) validate() error {
	if err := checkFormat(s.format, output.Formats...); err != nil {
		return err
	}
	if s.resamples < 1 {
		return usageErr("--resamples %d must be at least 1", s.resamples)
	}
	if err := s.after.validate(); err != nil {
		return err
	}
	if err := s.options().Validate(); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

func (s *scoreFlags) options() score.Options {
	r := s.vdsFPR
	if r == 0 {
		// score.Options reads 0 as "the default"; FPR <= the smallest float is FPR == 0 exactly.
		r = math.SmallestNonzeroFloat64
	}
	return score.Options{VDSFPR: r, UnparsedAs: s.unparsedAs}
}

// scoring is what a score column needs: the options, and bootstrap intervals when wanted.
type scoring struct {
	opt score.Options
	ci  *score.CIOptions
}

func (s *scoreFlags) scoring() scoring {
	sc := scoring{opt: s.options()}
	if s.ci {
		sc.ci = &score.CIOptions{Resamples: s.resamples, Seed: s.ciSeed}
	}
	return sc
}

// afterFlag is --after DATE: keep only cases whose commit date is after DATE.
type afterFlag struct {
	raw string
	t   time.Time
}

func (a *afterFlag) add(f *pflag.FlagSet) {
	f.StringVar(&a.raw, "after", "", "keep only cases whose date is after DATE (RFC 3339 or YYYY-MM-DD, e.g. a model's training cutoff); cases without a date are left out")
}

func (a *afterFlag) validate() error {
	if a.raw == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339, time.DateOnly} {
		if t, err := time.Parse(layout, a.raw); err == nil {
			a.t = t
			return nil
		}
	}
	return usageErr("--after %q is not a date like 2024-05-01 or 2024-05-01T12:00:00Z", a.raw)
}

// keep reports whether a case passes --after (every case does without it).
func (a *afterFlag) keep(c *suite.Case) bool {
	if a.raw == "" {
		return true
	}
	if c.Date == "" {
		return false
	}
	t, err := time.Parse(time.RFC3339, c.Date)
	return err == nil && t.After(a.t)
}

func newScoreCmd(e *env) *cobra.Command {
	var (
		sf          scoreFlags
		suitePath   string
		db          string
		runs, preds []string
	)
	c := &cobra.Command{
		Use:   "score --suite SUITE (--run ID | --predictions FILE)",
		Short: "Score verdicts against a suite's ground truth",
		Long: `Scores one or more runs (from the store) or predictions files against a suite, as the papers
define: binary metrics (vulnerable is positive), pairwise P-C / P-V / P-B / P-R and pAcc, VD-S (the
false-negative rate at FPR <= --vds-fpr), and a per-CWE table. Several --run / --predictions print
side by side. Scores are always recomputed from the stored verdicts.

Verdict statuses: ok answers are scored; failed (unparseable) answers count per --unparsed-as;
errors (infrastructure faults) and cases with no verdict are reported apart and never scored.

Predictions files are vulnbench JSONL ({"case_id":..,"label":"vul"|"ben","score":..}) or
PrimeVul's tab-separated predictions.txt (idx, label, probability), matched by idx to cases
imported with 'vulnbench suite import primevul'.`,
		Example: `  vulnbench score --suite suites/demo/demo.jsonl --run 20261129T201500-3f9a
  vulnbench score --suite primevul-test.jsonl --predictions predictions.txt --format json
  vulnbench score --suite suites/demo/demo.jsonl --run A --run B --format md`,
		Args: exactArgs(0, "no arguments (use --suite with --run or --predictions)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := sf.validate(); err != nil {
				return err
			}
			if suitePath == "" || len(runs)+len(preds) == 0 {
				return usageErr("score needs --suite SUITE and at least one --run ID or --predictions FILE")
			}
			t, err := loadTruth(suitePath, &sf.after, e.stderr)
			if err != nil {
				return err
			}
			var cols []output.Column
			if len(runs) > 0 {
				st, err := openExisting(cmd.Context(), db)
				if err != nil {
					return err
				}
				defer st.Close()
				for _, id := range runs {
					col, err := runColumn(cmd.Context(), st, id, t, sf.scoring(), e.stderr)
					if err != nil {
						return err
					}
					cols = append(cols, col)
				}
			}
			for _, p := range preds {
				col, err := predictionsColumn(p, t, sf.scoring(), e.stderr)
				if err != nil {
					return err
				}
				cols = append(cols, col)
			}
			return writeScores(e.stdout, sf.format, cols...)
		},
	}
	f := c.Flags()
	f.StringVar(&suitePath, "suite", "", "suite file holding the ground truth")
	f.StringArrayVar(&runs, "run", nil, "run id to score (repeatable)")
	f.StringArrayVar(&preds, "predictions", nil, "predictions file to score (repeatable)")
	f.StringVar(&db, "db", "vulnbench.db", "store holding the runs")
	f.Uint64Var(&sf.ciSeed, "seed", 1, "seed of the bootstrap resamples (--ci)")
	sf.add(f)
	return c
}

// truth is a suite's ground truth, compact enough for millions of cases.
type truth struct {
	path     string
	cases    []score.Case
	index    map[string]int32    // case id -> position in cases
	byIdx    map[string]string   // PrimeVul idx -> case id
	excluded map[string]struct{} // ids left out by --after: their verdicts are ignored silently
}

// loadTruth reads a suite's ground truth, keeping only the cases after passes and saying on
// info how many that was when after is set.
func loadTruth(path string, after *afterFlag, info io.Writer) (*truth, error) {
	n, err := suite.CountLines(path)
	if err != nil {
		return nil, err
	}
	t := &truth{path: path, cases: make([]score.Case, 0, n), index: make(map[string]int32, n), byIdx: map[string]string{}}
	cweSets := map[string][]string{} // cases share their CWE lists: one slice per distinct list
	projects := map[string]string{}
	total, undated := 0, 0
	_, problems, err := suite.Scan(path, true, func(c *suite.Case, _ int) error {
		total++
		if after != nil && !after.keep(c) {
			if t.excluded == nil {
				t.excluded = map[string]struct{}{}
			}
			t.excluded[c.ID] = struct{}{}
			if c.Date == "" {
				undated++
			}
			return nil
		}
		p, ok := projects[c.Project]
		if !ok {
			p = c.Project
			projects[p] = p
		}
		key := strings.Join(c.CWE, ",")
		cwe, ok := cweSets[key]
		if !ok {
			cwe = c.CWE
			cweSets[key] = cwe
		}
		t.index[c.ID] = int32(len(t.cases))
		t.cases = append(t.cases, score.Case{ID: c.ID, Label: c.Label, Pair: c.Pair, CWE: cwe, Project: p})
		if idx, ok := c.SourceIdx(); ok {
			t.byIdx[idx] = c.ID
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, &exitError{code: ExitFail, err: fmt.Errorf("%v (and %d problems in all: vulnbench suite validate %s)", problems[0], len(problems), path)}
	}
	if after != nil && after.raw != "" {
		fmt.Fprintf(info, "kept %d of %d cases dated after %s (%d without a date left out)\n", len(t.cases), total, after.raw, undated)
		if len(t.cases) == 0 {
			return nil, &exitError{code: ExitFail, err: fmt.Errorf("%s: no case is dated after %s", path, after.raw)}
		}
	}
	return t, nil
}

// answers collects what scoring needs of a run's or a file's verdicts, one slice per repeat.
type answers struct {
	t        *truth
	byRepeat map[int][]score.Answer
	unknown  int
}

func (a *answers) add(id string, v verdict.Verdict) {
	i, ok := a.t.index[id]
	if !ok {
		if _, ex := a.t.excluded[id]; !ex {
			a.unknown++
		}
		return
	}
	as := a.byRepeat[v.Repeat]
	if as == nil {
		as = make([]score.Answer, len(a.t.cases))
		a.byRepeat[v.Repeat] = as
	}
	as[i] = score.AnswerOf(v)
}

// column scores every repeat (at least one) and aggregates them when there are several.
// Intervals (sc.ci) are computed for a single repeat only: over repeats the table shows std.
func (a *answers) column(name string, repeats int, sc scoring, warn io.Writer) output.Column {
	opt := sc.opt
	keys := make([]int, 0, len(a.byRepeat))
	for r := range a.byRepeat {
		keys = append(keys, r)
	}
	for r := 0; r < repeats; r++ {
		if _, ok := a.byRepeat[r]; !ok {
			keys = append(keys, r) // a repeat with no verdict yet: every case missing
		}
	}
	sort.Ints(keys)
	if len(keys) == 0 {
		keys = []int{0}
	}
	results := make([]score.Result, len(keys))
	for i, r := range keys {
		results[i] = score.Compute(a.t.cases, a.byRepeat[r], opt)
	}
	if len(results) == 1 {
		if sc.ci != nil {
			results[0].CI = score.Intervals(a.t.cases, a.byRepeat[keys[0]], opt, *sc.ci)
			if ci := results[0].CI; ci.Requested > 0 {
				fmt.Fprintf(warn, "vulnbench: note: %s: %d bootstrap resamples instead of %d over %d units (the draw budget)\n", name, ci.Resamples, ci.Requested, ci.Units)
			}
		}
		return output.Column{Name: name, Result: &results[0]}
	}
	if sc.ci != nil {
		fmt.Fprintf(warn, "vulnbench: note: %s has %d repeats: no bootstrap intervals (the std over repeats is shown)\n", name, len(results))
	}
	agg := score.Aggregate(results)
	return output.Column{Name: name, Agg: &agg}
}

// runColumn scores every repeat of a stored run.
func runColumn(ctx context.Context, st *store.Store, runID string, t *truth, sc scoring, warn io.Writer) (output.Column, error) {
	a, run, err := runAnswers(ctx, st, runID, t, warn)
	if err != nil {
		return output.Column{}, err
	}
	return a.column(run.Subject, run.Repeats, sc, warn), nil
}

// runAnswers collects a stored run's verdicts against t.
func runAnswers(ctx context.Context, st *store.Store, runID string, t *truth, warn io.Writer) (*answers, *store.Run, error) {
	run, err := st.GetRun(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	a := &answers{t: t, byRepeat: map[int][]score.Answer{}}
	if err := st.Labels(ctx, runID, func(v verdict.Verdict) error { a.add(v.CaseID, v); return nil }); err != nil {
		return nil, nil, err
	}
	if a.unknown > 0 {
		fmt.Fprintf(warn, "vulnbench: warning: run %s has %d verdicts for cases not in %s (ignored)\n", runID, a.unknown, t.path)
	}
	return a, run, nil
}

func predictionsColumn(path string, t *truth, sc scoring, warn io.Writer) (output.Column, error) {
	a, err := predictionsAnswers(path, t, warn)
	if err != nil {
		return output.Column{}, err
	}
	return a.column(filepath.Base(path), 1, sc, warn), nil
}

// predictionsAnswers collects a predictions file's verdicts against t.
func predictionsAnswers(path string, t *truth, warn io.Writer) (*answers, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a := &answers{t: t, byRepeat: map[int][]score.Answer{}} // a file written by run --out may hold several repeats
	problems := verdict.ReadPredictions(f, path, func(p verdict.Prediction, _ int) error {
		id := p.CaseID
		if id == "" {
			id = t.byIdx[p.Idx]
		}
		a.add(id, p.Verdict)
		return nil
	})
	if len(problems) > 0 {
		reportProblems(warn, problems, 20)
		return nil, &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems; nothing was scored", path, len(problems))}
	}
	if a.unknown > 0 {
		fmt.Fprintf(warn, "vulnbench: warning: %s has %d predictions for cases not in %s (ignored)\n", path, a.unknown, t.path)
	}
	return a, nil
}

func writeScores(w io.Writer, format string, cols ...output.Column) error {
	return output.WriteScores(w, format, cols)
}

// writeRunPredictions exports a run's verdicts as predictions JSONL, sorted by case and repeat.
func writeRunPredictions(ctx context.Context, st *store.Store, runID, path string) error {
	var vs []verdict.Verdict
	if err := st.Verdicts(ctx, runID, func(v verdict.Verdict) error {
		vs = append(vs, v)
		return nil
	}); err != nil {
		return err
	}
	sort.SliceStable(vs, func(i, j int) bool {
		if vs[i].CaseID != vs[j].CaseID {
			return vs[i].CaseID < vs[j].CaseID
		}
		return vs[i].Repeat < vs[j].Repeat
	})
	return suite.WriteFileAtomic(path, func(w io.Writer) error {
		return verdict.WriteJSONL(w, vs)
	})
}
