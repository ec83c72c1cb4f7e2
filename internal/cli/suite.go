package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/suite/appsec/parsers"
	"github.com/vulnbench/vulnbench/internal/suite/importer"
	"github.com/vulnbench/vulnbench/schema"
)

func newSuiteCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "suite",
		Short: "Check, describe and import benchmark suites",
		Long: `A suite is a JSONL file, one case a line (see schema/case.schema.json). Cases of one pair share
"pair" and have opposite labels (vul and ben).`,
		Args: exactArgs(0, "a subcommand (validate, stats, import, jit)"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newSuiteValidateCmd(e), newSuiteStatsCmd(e), newSuiteImportCmd(e), newCurateCmd(e), newLeakCmd(e),
		newSuiteBuildCmd(e), newSuiteSelectCmd(e), newSuiteJitCmd(e), newSuiteOSVVicCmd(e), newSuiteMineCmd(e))
	return c
}

func newSuiteValidateCmd(e *env) *cobra.Command {
	var templates bool
	c := &cobra.Command{
		Use:   "validate (FILE | --templates)",
		Short: "Check a suite, AppSecBench records or AppSecBench's snippet templates; report every problem",
		Long: `Checks every line of a suite against the case schema, then that ids are unique and that each
pair is exactly one vul and one ben case of one kind. Every problem is printed as FILE:LINE: message,
not only the first. Exits 1 when there is any problem.

A file of AppSecBench records (its first line has "benchmark_id", as records.jsonl written by
suite build appsec) gets every record check of SPEC section 3 instead: JSON, unique ids, the
required fields, enums, CWE/OWASP/CVSS patterns, CVSS scores, references, catalog and metadata
consistency, and syntax by a real parser for each of the twelve languages. Problems print as
FILE:LINE: ID: FIELD: message; a syntax error's message names the twin (vulnerable or secure), the
snippet's file_path:LINE:COLUMN and the parser's own words. Then a per-language count of snippets
checked, unchecked (the parser could not run: never assumed valid) and in error, each row saying
how its language was parsed.

--templates (no FILE) checks the snippet templates built into this binary, the files
internal/suite/appsec/templates/<archetype>/<language>/<framework>/{vul,fix}.<ext>.tmpl that
suite build appsec renders: each generator has both; each renders over sample identifiers with
every action on one line; vul marks its weak lines and fix none; the rendering parses with the
language's real parser (the same ones as above). Problems print as FILE:LINE: message, the line
being the template's (the one the parser named), then the per-language count of files checked.
After editing a template, rebuild vulnbench (go build ./cmd/vulnbench) before checking it.`,
		Example: `  vulnbench suite validate suites/demo/demo.jsonl
  vulnbench suite validate appsec/records.jsonl
  vulnbench suite validate --templates`,
		Args: func(cmd *cobra.Command, args []string) error {
			if templates {
				return exactArgs(0, "no FILE with --templates (it checks the built-in templates)")(cmd, args)
			}
			return exactArgs(1, "one suite file (or a file of AppSecBench records), or --templates")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if templates {
				return validateAppSecTemplates(cmd.Context(), e)
			}
			records, err := appsec.IsRecordsFile(args[0])
			if err != nil {
				return err
			}
			if records {
				return validateAppSecRecords(cmd.Context(), e, args[0])
			}
			sch, err := schema.CompileCase()
			if err != nil {
				return err
			}
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			n, problems, err := suite.Validate(f, args[0], e.reading, sch)
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
	c.Flags().BoolVar(&templates, "templates", false, "check AppSecBench's built-in snippet templates instead of a FILE")
	return c
}

func validateAppSecRecords(ctx context.Context, e *env, path string) error {
	rep, err := appsec.ValidateFile(ctx, path, parsers.Default())
	if err != nil {
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stdout, p.In(path))
	}
	rep.WriteSyntax(e.stdout)
	if !rep.OK() {
		return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems in %d records", path, len(rep.Problems), rep.Records)}
	}
	fmt.Fprintf(e.stdout, "%s: ok, %d appsec records\n", path, rep.Records)
	return nil
}

func validateAppSecTemplates(ctx context.Context, e *env) error {
	rep := appsec.CheckTemplates(ctx, parsers.Default())
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stdout, p)
	}
	appsec.WriteSyntaxTally(e.stdout, "syntax (template files): language checked unchecked errors", rep.Syntax)
	if !rep.OK() {
		return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems in %d template files", appsec.TemplateSourceDir, len(rep.Problems), rep.Files)}
	}
	fmt.Fprintf(e.stdout, "%s: ok, %d template files\n", appsec.TemplateSourceDir, rep.Files)
	return nil
}

func newSuiteStatsCmd(e *env) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:     "stats FILE",
		Short:   "Count a suite's cases by kind, label, split, year, language, CWE and project",
		Example: `  vulnbench suite stats suites/demo/demo.jsonl --format md`,
		Args:    exactArgs(1, "one suite file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, output.Stats{}); err != nil {
				return err
			}
			st := suite.NewStats()
			_, problems, err := suite.Scan(args[0], e.reading, false, func(c *suite.Case, _ int) error {
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
			return present(e.stdout, format, output.Stats{Stats: st})
		},
	}
	c.Flags().StringVar(&format, "format", "text", formatUsage(output.Stats{}))
	return c
}

func newSuiteImportCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "import",
		Short: "Convert a public dataset into a vulnbench suite",
		Args:  exactArgs(0, "a dataset name"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	for _, im := range importer.Registry() {
		c.AddCommand(newImportCmd(e, im))
	}
	return c
}

// newImportCmd is `suite import NAME` for one importer of the registry.
func newImportCmd(e *env, im importer.Importer) *cobra.Command {
	var in, out string
	flags := map[string]*string{}
	c := &cobra.Command{
		Use:     im.Name + " --in FILE --out SUITE",
		Short:   im.Summary,
		Long:    im.Long,
		Example: im.Example,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" || out == "" {
				return usageErr("suite import %s needs --in FILE and --out SUITE", im.Name)
			}
			values := map[string]string{}
			for k, v := range flags {
				values[k] = *v
			}
			if im.Check != nil {
				if err := im.Check(values); err != nil {
					return usageErr("%v", err)
				}
			}
			var res importer.Result
			err := writeSuiteFrom(e, in, out, func(f io.Reader, sw *suite.Writer) (problems []error, err error) {
				res, problems, err = im.Import(f, in, e.reading, sw, values)
				return problems, err
			})
			if err != nil {
				return err
			}
			res.WriteText(e.stderr)
			fmt.Fprintf(e.stdout, "%s: %d cases (%d vul, %d ben), %d pairs\n", out, res.Cases, res.Vul, res.Ben, res.Pairs)
			return nil
		},
	}
	c.Flags().StringVar(&in, "in", "", "dataset file to read")
	c.Flags().StringVar(&out, "out", "", "suite file to write (replaced atomically)")
	for _, fl := range im.Flags {
		flags[fl.Name] = c.Flags().String(fl.Name, fl.Default, fl.Usage)
	}
	return c
}

// writeSuiteFrom has convert read in and write cases to out (suite.ConvertFile). When convert
// returns problems (*suite.LineError) nothing is written: the first 50 are printed and the command
// fails.
func writeSuiteFrom(e *env, in, out string, convert func(r io.Reader, w *suite.Writer) ([]error, error)) error {
	problems, bom, err := suite.ConvertFile(in, out, convert)
	if bom {
		e.reading.BOM(in)
	}
	if len(problems) > 0 {
		reportProblems(e.stderr, problems, 50)
		return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems; nothing was written", in, len(problems))}
	}
	return err
}
