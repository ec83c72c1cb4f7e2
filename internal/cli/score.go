package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/breakdown"
	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
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
	f.StringVar(&s.format, "format", "text", "score table "+formatUsage((*report.Report)(nil)))
	f.Float64Var(&s.vdsFPR, "vds-fpr", score.DefaultVDSFPR, "VD-S: the tolerated false-positive rate r (FNR is reported at FPR <= r)")
	f.StringVar(&s.unparsedAs, "unparsed-as", "", "how failed (unparseable) verdicts count: failed (wrong, as VEX-Bench) or ben (as the JitVul paper); default: ben on suites with jit cases, failed otherwise")
	f.BoolVar(&s.ci, "ci", false, "add 95% bootstrap confidence intervals of F1, pAcc and accuracy (resampling projects, else pairs, else cases; seeded by --seed)")
	f.IntVar(&s.resamples, "resamples", score.DefaultResamples, "bootstrap resamples for --ci (reduced automatically above 100M unit draws, never below 200)")
	s.after.add(f)
}

func (s *scoreFlags) validate() error {
	if err := checkFormat(s.format, (*report.Report)(nil)); err != nil {
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
	raw  string
	t    time.Time
	kept func(*suite.Case) bool
}

func (a *afterFlag) add(f *pflag.FlagSet) {
	f.StringVar(&a.raw, "after", "", "keep only cases whose date is after DATE (RFC 3339 or YYYY-MM-DD, e.g. a model's training cutoff); cases without a date are left out")
}

func (a *afterFlag) validate() error {
	if a.raw == "" {
		return nil
	}
	t, err := suite.ParseDate(a.raw)
	if err != nil {
		return usageErr("--after %v", err)
	}
	a.t = t
	a.kept, _ = suite.After(a.raw)
	return nil
}

// keeper is the report's Keep (nil without --after).
func (a *afterFlag) keeper() report.Keep {
	if a.raw == "" {
		return nil
	}
	return a.keep
}

// keep reports whether a case passes --after (every case does without it).
func (a *afterFlag) keep(c *suite.Case) bool {
	return a.kept == nil || a.kept(c)
}

// scoreLong is the help of score.
const scoreLong = `Scores one or more runs (from the store) or predictions files against a suite, as the papers
define: binary metrics (vulnerable is positive), pairwise P-C / P-V / P-B / P-R and pAcc, VD-S (the
false-negative rate at FPR <= --vds-fpr), and a per-CWE table. Several --run / --predictions print
side by side, each named by its run id (or file name), with its subject and model. Scores are
always recomputed from the stored verdicts, and name the scorer version and vulnbench's.

A stored run knows its suite: without --suite its ground truth is the cases stored with it, or the
suite file its run recorded, which must be unchanged. A --suite given must be the file every run
judged. Predictions files need --suite (or a --run whose suite they share).

Verdict statuses: ok answers are scored; failed (unparseable) answers count per --unparsed-as;
errors (infrastructure faults) and cases with no verdict are reported apart and never scored.
VD-S ranks each verdict's score: its log-probability or tool score, else the confidence the
model stated (P(vul) = confidence for vul, 1 - confidence for ben), else the label (degenerate);
the table says which (score source).

Predictions files are vulnbench JSONL, one verdict a line ({"case_id":..,"label":"vul"|"ben",
"score":..}, and optionally repeat, score_source, confidence, cwe, findings, vex, appsec, ...; see
schema/verdict.schema.json), or PrimeVul's tab-separated predictions.txt (idx, label,
probability), matched by idx to cases imported with 'vulnbench suite import primevul'.

AppSecBench suites (appsec cases) add the rubric (100 points, pass at 70): detection 15, CWE 10
(half for a parent or child in MITRE's ChildOf tree), OWASP 10, severity 10 (half one band off)
and false-positive avoidance 5 (the secure twin not flagged) are graded automatically, with the
CVSS distance (base metrics wrong, base-score error); exploit 10, fix 20, code quality 10 and
explanation 10 need an LLM judge: --judge-model. The judge is first measured on vulnbench's
calibration set (vulnbench judge calibrate) and refused below its thresholds unless
--force-judge; its agreement is printed next to every judged figure, and its answers are cached
in --db and costed. A judge reply that cannot be read grades the part failed (counted, never 0).
--judge-batch makes the judge's calls through the provider's batch API, at its batch prices
(results within 24 h): the requests the scoring will make are collected first, with no call; those
not in the cache are submitted, each batch stored in --db as it is created, polled to its end
(every --batch-poll, progress on stderr) and its answers put in the cache; then the scoring runs,
every judge answer from the batches or the cache, none online. A killed score run again polls the
same batches and submits nothing twice; a request a batch refused or let expire fails the score
(exit 1), and the next score submits it again.
Fix checks parse the proposed secure code with the language's parser and, where a scanner on
PATH flags the vulnerable snippet and not the record's own secure version, check that it does
not flag the fix ("not checked" otherwise: a scanner that flags both tells nothing of a fix). Means and pass rates are shown overall and by difficulty, language and archetype.`

func newScoreCmd(e *env) *cobra.Command {
	var (
		sf          scoreFlags
		jf          judgeFlags
		fixChecks   bool
		suitePath   string
		db          string
		runs, preds []string
		by, selectF string
		casesFile   string
	)
	c := &cobra.Command{
		Use:   "score (--run ID | --suite SUITE --predictions FILE) [--suite SUITE]",
		Short: "Score verdicts against a suite's ground truth",
		Long:  scoreLong,
		Example: `  vulnbench score --run 20261129T201500-3f9a
  vulnbench score --suite primevul-test.jsonl --predictions predictions.txt --format json
  vulnbench score --run A --run B --format md
  vulnbench score --run 20261201T140000-ab12 --judge-model openai:gpt-4o
  vulnbench score --run 20261201T140000-ab12 --judge-model anthropic:claude-sonnet-4-6 --judge-batch`,
		Args: exactArgs(0, "no arguments (use --run, or --suite with --predictions)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := sf.validate(); err != nil {
				return err
			}
			if jf.batch && jf.model == "" {
				return usageErr("--judge-batch needs --judge-model PROVIDER:MODEL")
			}
			if len(runs)+len(preds) == 0 || (suitePath == "" && len(runs) == 0) {
				return usageErr("score needs at least one --run ID, or --suite SUITE with --predictions FILE")
			}
			req := report.Request{Reading: e.reading, Runs: runs, Predictions: preds, Suite: suitePath,
				Keep: sf.after.keeper(), Score: sf.options(), CI: sf.scoring().ci}
			subset, err := subsetKeep(&req, by, selectF, casesFile)
			if err != nil {
				return err
			}
			open := func(ctx context.Context, db string) (*store.Store, error) { return nil, nil }
			switch {
			case jf.model != "" && len(runs) == 0:
				open = store.Open // the judge's response cache
			case jf.model != "": // the judge's response cache is written
				open = openExisting
			case len(runs) > 0:
				open = openRead
			}
			st, err := open(cmd.Context(), db)
			if err != nil {
				return err
			}
			var rs report.Store
			if st != nil {
				defer st.Close()
				rs = st
			}
			if err := jf.batchJudge(cmd.Context(), e, st, func(ctx context.Context, g *grade.Grader) error {
				r := req
				r.AppSec = g
				if by != "" {
					_, err := breakdown.Build(ctx, rs, r, by)
					return err
				}
				_, err := report.Build(ctx, rs, r)
				return err
			}); err != nil {
				return err
			}
			g, done, closeFix, err := appsecGrader(e, &jf, fixChecks, st)
			if closeFix != nil {
				defer closeFix()
			}
			if err != nil {
				return err
			}
			req.AppSec = g
			if by != "" {
				b, err := breakdown.Build(cmd.Context(), rs, req, by)
				if err != nil {
					return reportErr(e.stderr, err)
				}
				done()
				for _, gr := range b.Groups {
					printNotes(e.stderr, gr.Report.Notes())
				}
				return present(e.stdout, sf.format, b)
			}
			rep, err := buildReportFrom(e, func() (*report.Report, error) { return report.Build(cmd.Context(), rs, req) }, &sf.after)
			if err != nil {
				return refusedJudge(err)
			}
			done()
			if subset != "" {
				if len(rep.Truth.Cases) == 0 {
					return &exitError{code: ExitFail, err: fmt.Errorf("subset %s keeps no case of %s", subset, rep.Truth.Source)}
				}
				return present(e.stdout, sf.format, breakdown.SubsetDoc{Subset: breakdown.SubsetOf(subset, rep), Report: rep})
			}
			return writeScores(e.stdout, sf.format, rep)
		},
	}
	f := c.Flags()
	f.StringVar(&suitePath, "suite", "", "suite file holding the ground truth (default: the run's own)")
	f.StringArrayVar(&runs, "run", nil, "run id to score (repeatable)")
	f.StringArrayVar(&preds, "predictions", nil, "predictions file to score (repeatable)")
	f.StringVar(&db, "db", "vulnbench.db", "store holding the runs (and, with --judge-model, the judge's response cache)")
	f.Uint64Var(&sf.ciSeed, "seed", 1, "seed of the bootstrap resamples (--ci)")
	f.StringVar(&by, "by", "", "score each group of cases apart: "+strings.Join(breakdown.Dimensions(), ", ")+" (cwe: a case is in each of its CWEs' groups; repo-size: meta.repo_size in lines; category: a vex case's category, an appsec case's archetype, else meta.category)")
	f.StringVar(&selectF, "select", "", "score only the cases matching DIM=VALUE[|VALUE][,DIM=VALUE...] (dimensions as --by), named in the output")
	f.StringVar(&casesFile, "cases", "", "score only the cases listed in FILE (one id a line, or JSONL with \"id\"), named in the output")
	jf.add(f, true)
	jf.addBatch(f)
	f.BoolVar(&fixChecks, "fix-checks", true, "appsec suites: check each proposed fix's syntax and run the scanners on PATH on it (--fix-checks=false skips them)")
	sf.add(f)
	return c
}

// subsetKeep narrows req.Keep by --select and --cases (breakdown.Narrow), and returns the
// subset's name ("" for the whole suite).
func subsetKeep(req *report.Request, by, selectF, casesFile string) (string, error) {
	keep, name, err := breakdown.Narrow(req.Keep, by, selectF, casesFile)
	var ce *breakdown.CasesError
	switch {
	case errors.As(err, &ce):
		return "", &exitError{code: ExitFail, err: err}
	case err != nil:
		return "", usageErr("%v", err)
	}
	req.Keep = keep
	return name, nil
}

// buildReport assembles a report from the store at db (opened only when req names runs) and
// says on stderr what the report notes, and how many cases --after kept.
func buildReport(ctx context.Context, e *env, db string, req report.Request, after *afterFlag) (*report.Report, error) {
	var st report.Store
	if len(req.Runs) > 0 {
		s, err := openRead(ctx, db)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		st = s
	}
	return buildReportFrom(e, func() (*report.Report, error) { return report.Build(ctx, st, req) }, after)
}

// buildReportFrom builds a report with build and says on stderr what it notes, and how many
// cases --after kept.
func buildReportFrom(e *env, build func() (*report.Report, error), after *afterFlag) (*report.Report, error) {
	rep, err := build()
	if err != nil {
		return nil, reportErr(e.stderr, err)
	}
	if err := checkKept(rep.Truth, after, e.stderr); err != nil {
		return nil, err
	}
	printNotes(e.stderr, rep.Notes())
	return rep, nil
}

// reportErr prints the problems of a predictions file and exits 1.
func reportErr(w io.Writer, err error) error {
	var pe *report.ProblemsError
	if errors.As(err, &pe) {
		reportProblems(w, pe.Problems, 20)
	}
	return &exitError{code: ExitFail, err: err}
}

// checkKept says on info how many cases --after kept, and fails when it kept none.
func checkKept(t *report.Truth, after *afterFlag, info io.Writer) error {
	if after == nil || after.raw == "" {
		return nil
	}
	fmt.Fprintf(info, "kept %d of %d cases dated after %s (%d without a date left out)\n", len(t.Cases), t.Total, after.raw, t.Undated)
	if len(t.Cases) == 0 {
		return &exitError{code: ExitFail, err: fmt.Errorf("%s: no case is dated after %s", t.Source, after.raw)}
	}
	return nil
}

func printNotes(w io.Writer, notes []report.Note) {
	for _, n := range notes {
		kind := "note"
		if n.Warning {
			kind = "warning"
		}
		fmt.Fprintf(w, "vulnbench: %s: %s\n", kind, n.Text)
	}
}

func writeScores(w io.Writer, format string, rep *report.Report) error {
	return present(w, format, rep)
}
