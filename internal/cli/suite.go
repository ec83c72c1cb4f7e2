package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/primevul"
	"github.com/vulnbench/vulnbench/schema"
)

func newSuiteCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "suite",
		Short: "Check, describe and import benchmark suites",
		Long: `A suite is a JSONL file, one case a line (see schema/case.schema.json). Cases of one pair share
"pair" and have opposite labels (vul and ben).`,
		Args: exactArgs(0, "a subcommand (validate, stats, import)"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newSuiteValidateCmd(e), newSuiteStatsCmd(e), newSuiteImportCmd(e), newCurateCmd(e), newLeakCmd(e))
	return c
}

func newSuiteValidateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a suite: schema, unique ids, pairs; report every problem",
		Long: `Checks every line of a suite against the case schema, then that ids are unique and that each
pair is exactly one vul and one ben case of one kind. Every problem is printed as FILE:LINE: message,
not only the first. Exits 1 when there is any problem.`,
		Example: `  vulnbench suite validate suites/demo/demo.jsonl`,
		Args:    exactArgs(1, "one suite file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			sch, err := schema.CompileCase()
			if err != nil {
				return err
			}
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			n, problems, err := suite.Validate(f, args[0], sch)
			if err != nil {
				return err
			}
			reportProblems(e.stdout, problems, 0)
			if len(problems) > 0 {
				return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems in %d cases", args[0], len(problems), n)}
			}
			fmt.Fprintf(e.stdout, "%s: ok, %d cases\n", args[0], n)
			return nil
		},
	}
}

func newSuiteStatsCmd(e *env) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:     "stats FILE",
		Short:   "Count a suite's cases by kind, label, split, language, CWE and project",
		Example: `  vulnbench suite stats suites/demo/demo.jsonl --format md`,
		Args:    exactArgs(1, "one suite file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, output.Formats...); err != nil {
				return err
			}
			st := suite.NewStats()
			_, problems, err := suite.Scan(args[0], false, func(c *suite.Case, _ int) error {
				st.Add(c)
				return nil
			})
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				reportProblems(e.stderr, problems, 20)
				return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d bad lines (see vulnbench suite validate)", args[0], len(problems))}
			}
			return output.WriteStats(e.stdout, format, st)
		},
	}
	c.Flags().StringVar(&format, "format", "text", "output format: text, md, json or csv")
	return c
}

func newSuiteImportCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "import",
		Short: "Convert a public dataset into a vulnbench suite",
		Args:  exactArgs(0, "a dataset name (primevul)"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newImportPrimeVulCmd(e))
	return c
}

func newImportPrimeVulCmd(e *env) *cobra.Command {
	var in, out, paired string
	c := &cobra.Command{
		Use:   "primevul --in FILE --out SUITE",
		Short: "Import PrimeVul JSONL (original or v0.1 fields, unpaired or paired)",
		Long: `Reads a PrimeVul JSONL file (either public field set) and writes a suite of function cases with
ids primevul-<idx>; the idx is kept so PrimeVul's predictions.txt can be scored against the suite.

In paired files (--paired auto: the file name contains "paired") rows are paired by
(project, commit_id), matched by function name when a commit has several pairs, and cross-checked
against consecutive-line pairing; disagreements are reported. Repeated idx values are reported and
dropped. Any malformed line stops the import with FILE:LINE errors and writes nothing.`,
		Example: `  vulnbench suite import primevul --in primevul_test_paired.jsonl --out primevul-test.jsonl`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" || out == "" {
				return usageErr("suite import primevul needs --in FILE and --out SUITE")
			}
			if paired != "auto" && paired != "yes" && paired != "no" {
				return usageErr("--paired %q is not auto, yes or no", paired)
			}
			f, err := os.Open(in)
			if err != nil {
				return err
			}
			defer f.Close()
			var rep primevul.Report
			var problems []error
			err = suite.WriteFileAtomic(out, func(w io.Writer) error {
				sw := suite.NewWriter(w)
				var err error
				rep, problems, err = primevul.Import(f, in, sw, primevul.Options{Paired: paired})
				if err != nil {
					return err
				}
				if len(problems) > 0 {
					return errInputProblems
				}
				return sw.Flush()
			})
			if errors.Is(err, errInputProblems) {
				reportProblems(e.stderr, problems, 50)
				return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems; nothing was written", in, len(problems))}
			}
			if err != nil {
				return err
			}
			printImportReport(e.stderr, rep)
			fmt.Fprintf(e.stdout, "%s: %d cases (%d vul, %d ben), %d pairs\n", out, rep.Cases, rep.Vul, rep.Ben, rep.Pairs)
			return nil
		},
	}
	c.Flags().StringVar(&in, "in", "", "PrimeVul JSONL file to read")
	c.Flags().StringVar(&out, "out", "", "suite file to write (replaced atomically)")
	c.Flags().StringVar(&paired, "paired", "auto", "pair rows: auto (when the file name contains \"paired\"), yes or no")
	return c
}

var errInputProblems = errors.New("input problems")
