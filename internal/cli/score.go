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
}

func (s *scoreFlags) add(f *pflag.FlagSet) {
	f.StringVar(&s.format, "format", "text", "score table format: text, md, json or csv")
	f.Float64Var(&s.vdsFPR, "vds-fpr", 0.005, "VD-S: the tolerated false-positive rate r (FNR is reported at FPR <= r)")
	f.StringVar(&s.unparsedAs, "unparsed-as", "failed", "how failed (unparseable) verdicts count: failed (wrong, as VEX-Bench) or ben (as the JitVul paper)")
}

func (s *scoreFlags) validate() error {
	if err := checkFormat(s.format, output.Formats...); err != nil {
		return err
	}
	if s.vdsFPR < 0 || s.vdsFPR > 1 {
		return usageErr("--vds-fpr %v is outside [0, 1]", s.vdsFPR)
	}
	if s.unparsedAs != "failed" && s.unparsedAs != "ben" {
		return usageErr("--unparsed-as %q is not failed or ben", s.unparsedAs)
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
			t, err := loadTruth(suitePath)
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
					col, err := runColumn(cmd.Context(), st, id, t, sf.options(), e.stderr)
					if err != nil {
						return err
					}
					cols = append(cols, col)
				}
			}
			for _, p := range preds {
				col, err := predictionsColumn(p, t, sf.options(), e.stderr)
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
	sf.add(f)
	return c
}

// truth is a suite's ground truth, compact enough for millions of cases.
type truth struct {
	path  string
	cases []score.Case
	index map[string]int32  // case id -> position in cases
	byIdx map[string]string // PrimeVul idx -> case id
}

func loadTruth(path string) (*truth, error) {
	n, err := suite.CountLines(path)
	if err != nil {
		return nil, err
	}
	t := &truth{path: path, cases: make([]score.Case, 0, n), index: make(map[string]int32, n), byIdx: map[string]string{}}
	cweSets := map[string][]string{} // cases share their CWE lists: one slice per distinct list
	_, problems, err := suite.Scan(path, true, func(c *suite.Case, _ int) error {
		key := strings.Join(c.CWE, ",")
		cwe, ok := cweSets[key]
		if !ok {
			cwe = c.CWE
			cweSets[key] = cwe
		}
		t.index[c.ID] = int32(len(t.cases))
		t.cases = append(t.cases, score.Case{ID: c.ID, Label: c.Label, Pair: c.Pair, CWE: cwe})
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
		a.unknown++
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
func (a *answers) column(name string, repeats int, opt score.Options) output.Column {
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
		return output.Column{Name: name, Result: &results[0]}
	}
	agg := score.Aggregate(results)
	return output.Column{Name: name, Agg: &agg}
}

// runColumn scores every repeat of a stored run.
func runColumn(ctx context.Context, st *store.Store, runID string, t *truth, opt score.Options, warn io.Writer) (output.Column, error) {
	run, err := st.GetRun(ctx, runID)
	if err != nil {
		return output.Column{}, err
	}
	a := &answers{t: t, byRepeat: map[int][]score.Answer{}}
	if err := st.Labels(ctx, runID, func(v verdict.Verdict) error { a.add(v.CaseID, v); return nil }); err != nil {
		return output.Column{}, err
	}
	if a.unknown > 0 {
		fmt.Fprintf(warn, "vulnbench: warning: run %s has %d verdicts for cases not in %s (ignored)\n", runID, a.unknown, t.path)
	}
	return a.column(run.Subject, run.Repeats, opt), nil
}

func predictionsColumn(path string, t *truth, opt score.Options, warn io.Writer) (output.Column, error) {
	f, err := os.Open(path)
	if err != nil {
		return output.Column{}, err
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
		return output.Column{}, &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems; nothing was scored", path, len(problems))}
	}
	if a.unknown > 0 {
		fmt.Fprintf(warn, "vulnbench: warning: %s has %d predictions for cases not in %s (ignored)\n", path, a.unknown, t.path)
	}
	return a.column(filepath.Base(path), 1, opt), nil
}

func writeScores(w io.Writer, format string, cols ...output.Column) error {
	return output.WriteScores(w, format, cols)
}

// writeRunPredictions exports a run's verdicts as predictions JSONL, sorted by case and repeat.
func writeRunPredictions(ctx context.Context, st *store.Store, runID, path string) error {
	var vs []verdict.Verdict
	if err := st.Verdicts(ctx, runID, func(v verdict.Verdict) error {
		v.Trace = nil
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
