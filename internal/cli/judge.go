package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/batchrun"
	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/grade/fixcheck"
	"github.com/vulnbench/vulnbench/internal/judge"
	"github.com/vulnbench/vulnbench/internal/llm/batch"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
)

// judgeFlags choose the LLM judge of AppSecBench's judged parts.
type judgeFlags struct {
	model, baseURL, prices string
	force, batch           bool
	batchPoll              time.Duration
	batched                *judge.Judge // --judge-batch: the judge answering from the batches (batchJudge)
}

func (j *judgeFlags) add(f *pflag.FlagSet, withForce bool) {
	f.StringVar(&j.model, "judge-model", "", "the LLM judge of exploit, fix, code quality and explanation on appsec suites, as PROVIDER:MODEL (like openai:gpt-4o); its key from OPENAI_API_KEY or ANTHROPIC_API_KEY")
	f.StringVar(&j.baseURL, "base-url", "", "the judge's OpenAI-compatible server (vLLM, Ollama, a proxy); default: the provider's API")
	f.StringVar(&j.prices, "judge-prices", "", "price table for the judge's cost (YAML like the embedded one); default: the embedded table")
	if withForce {
		f.BoolVar(&j.force, "force-judge", false, "use a judge whose agreement with the calibration set is below the thresholds (see vulnbench judge calibrate --help)")
	}
}

// addBatch adds score's --judge-batch.
func (j *judgeFlags) addBatch(f *pflag.FlagSet) {
	f.BoolVar(&j.batch, "judge-batch", false, "with --judge-model: make the judge's calls through the provider's batch API (OpenAI's Batch API, Anthropic's Message Batches) at its batch prices; results within 24 h; a killed score polls the same batches again")
	f.DurationVar(&j.batchPoll, "batch-poll", 30*time.Second, "with --judge-batch: time between polls of the batches in flight")
}

// batchJudge, with --judge-batch, makes the judge's calls of the scoring score does through
// the batch API before it; open then returns the judge answering from them.
func (j *judgeFlags) batchJudge(ctx context.Context, e *env, st *store.Store, score func(context.Context, *grade.Grader) error) error {
	if !j.batch || j.model == "" {
		return nil
	}
	online, err := j.open(st)
	if err != nil {
		return err
	}
	j.batched, err = batchrun.Judge(ctx, batchrun.JudgeInput{Store: st, Online: online, BaseURL: j.baseURL, Score: score, Poll: j.batchPoll,
		OnPlan: func(p batchrun.JudgePlan) {
			fmt.Fprintf(e.stderr, "judge %s: %d requests: %d in the cache, %d in batches made before, %d submitted; polling every %s\n",
				online.Spec(), p.Requests, p.Cached, p.Held, p.Submitted, j.batchPoll)
		},
		OnState: func(id string, s batch.State) {
			fmt.Fprintf(e.stderr, "judge batch %s: %s, %d of %d done, %d failed\n", id, s.Status, s.Succeeded+s.Failed, s.Total, s.Failed)
		}})
	if err != nil {
		return reportErr(e.stderr, err) // a predictions file's problems, or the batches'
	}
	return nil
}

// open builds the judge over the store's response cache (with --judge-batch, over the batches'
// answers).
func (j *judgeFlags) open(cache *store.Store) (*judge.Judge, error) {
	if j.batched != nil {
		return j.batched, nil
	}
	jd, err := judge.Open(judge.Options{Model: j.model, BaseURL: j.baseURL, PricesFile: j.prices, Cache: cache, Getenv: os.Getenv})
	if err != nil {
		return nil, usageErr("--judge-model: %v", err)
	}
	return jd, nil
}

// appsecGrader is the grader of appsec suites for score: the automatic parts, the fix checks
// unless off (stored runs read those stored with their attempts; predictions files are checked
// now, by the checker closed by closeFix), and the judge when --judge-model names one, measured
// on the calibration set before its first grade and refused below the thresholds unless
// --force-judge. done completes the judge's information once the report is built (its
// agreement, calls and cost) and says on stderr how it was calibrated.
func appsecGrader(e *env, jf *judgeFlags, fixChecks bool, cache *store.Store) (g *grade.Grader, done, closeFix func(), err error) {
	g, err = grade.NewGrader()
	if err != nil {
		return nil, nil, nil, err
	}
	live := fixcheck.Default()
	g.Fix, g.SkipFix = live, !fixChecks
	closeFix = func() { live.Close() }
	done = func() {}
	if jf.model == "" {
		return g, done, closeFix, nil
	}
	jd, err := jf.open(cache)
	if err != nil {
		return nil, nil, closeFix, err
	}
	gate, err := judge.NewGate(jd, jf.force)
	if err != nil {
		return nil, nil, closeFix, err
	}
	info := &score.JudgeInfo{}
	g.Judge, g.JudgeInfo = gate, info
	done = func() {
		got, a, ok := gate.Info()
		if !ok {
			return // nothing was judged
		}
		*info = *got
		fmt.Fprintf(e.stderr, "judge %s: calibration on %d answers: Spearman rho %.3f, MAE %.3f, band agreement %.1f%%\n",
			jd.Spec(), a.N, a.Rho, a.MAE, 100*a.BandAgreement)
		if info.Forced {
			fmt.Fprintf(e.stderr, "vulnbench: warning: judge %s is below the calibration thresholds (%s): used because of --force-judge\n", jd.Spec(), a.Problem())
		}
	}
	return g, done, closeFix, nil
}

// refusedJudge turns a refused judge, however deep in a report's error, into the error score
// exits with.
func refusedJudge(err error) error {
	var re *judge.RefusedError
	if errors.As(err, &re) {
		return &exitError{code: ExitFail, err: re}
	}
	return err
}

func newJudgeCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "judge",
		Short: "The LLM judge of AppSecBench's exploit, fix, code quality and explanation",
		Args:  exactArgs(0, "a subcommand: calibrate"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newJudgeCalibrateCmd(e))
	return c
}

func newJudgeCalibrateCmd(e *env) *cobra.Command {
	var (
		jf     judgeFlags
		db     string
		format string
	)
	size := 0
	if set, err := judge.LoadSet(); err == nil {
		size = len(set.Answers)
	}
	c := &cobra.Command{
		Use:   "calibrate --judge-model PROVIDER:MODEL",
		Short: "Measure a judge against vulnbench's calibration set of graded answers",
		Long: fmt.Sprintf(`Has the judge grade every answer of the calibration set shipped with vulnbench: %d
original answers on short records in several languages, for each judged part (exploit, fix, code
quality, explanation) good, partial, wrong and off-topic ones (padded answers among them), each
with a reference score from 0 to 10. It reports the agreement of the judge's scores with the
reference scores: Spearman's rho, the mean absolute error (as a fraction of the part) and the
share of answers put in the reference's band (good 8-10, partial 4-7, wrong 0-3), overall and
per part.

score refuses a judge below any of these thresholds unless --force-judge:
  Spearman rho >= %.2f, MAE <= %.2f, band agreement >= %.2f, unreadable replies <= %.0f%%.
This command exits 1 for such a judge.

The judge's calls go through the response cache in --db, so a second calibration (and the
calibration score runs first) costs nothing.`, size, judge.MinRho, judge.MaxMAE, judge.MinBandAgreement, 100*judge.MaxFailed),
		Example: `  vulnbench judge calibrate --judge-model openai:gpt-4o
  vulnbench judge calibrate --judge-model openai:qwen2.5-coder --base-url http://localhost:8000/v1 --format json`,
		Args: exactArgs(0, "no arguments (use --judge-model)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if jf.model == "" {
				return usageErr("judge calibrate needs --judge-model PROVIDER:MODEL")
			}
			if err := checkFormat(format, judge.AgreementDoc{}); err != nil {
				return err
			}
			st, err := store.Open(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			jd, err := jf.open(st)
			if err != nil {
				return err
			}
			set, err := judge.LoadSet()
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "calibrating judge %s on %d graded answers...\n", jd.Spec(), len(set.Answers))
			a, err := judge.Calibrate(cmd.Context(), jd, set)
			if err != nil {
				return &exitError{code: ExitFail, err: err}
			}
			if err := present(e.stdout, format, judge.AgreementDoc{Judge: jd, Agreement: a}); err != nil {
				return err
			}
			if p := a.Problem(); p != "" {
				return &exitError{code: ExitFail, err: fmt.Errorf("judge %s is below the thresholds: %s", jd.Spec(), p)}
			}
			return nil
		},
	}
	f := c.Flags()
	jf.add(f, false)
	f.StringVar(&db, "db", "vulnbench.db", "store whose response cache keeps the judge's answers")
	f.StringVar(&format, "format", "text", formatUsage(judge.AgreementDoc{}))
	return c
}
