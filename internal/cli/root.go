// Package cli is vulnbench's command line: one file per command. It parses flags, calls the
// library packages and renders their results and events; it is the only package that prints.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vulnbench/vulnbench/internal/preflight"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/formats"
	"github.com/vulnbench/vulnbench/internal/redact"
	"github.com/vulnbench/vulnbench/internal/version"
)

// Exit codes, as README.md's Commands section states them.
const (
	ExitOK    = 0
	ExitFail  = 1 // a failed check or run
	ExitUsage = 2 // bad flags or arguments
)

// exitError carries an exit code with an error; a nil err prints nothing.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// silentFail exits 1 without a message: the command printed what went wrong already.
var silentFail = &exitError{code: ExitFail}

type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	reading        *lineerr.Reading // --lossy-utf8, and what the input files' readers noted
}

// Run executes vulnbench with args (without the program name) and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Every message, error and hint goes out scrubbed of secrets (issue 25, finding 2).
	// So does every result on stdout: a line at a time, so that a big export's buffer edges
	// split no secret; what holds none goes out byte for byte.
	sc := redact.FromEnv(os.Getenv)
	stderr = sc.Writer(stderr)
	out := sc.Stream(stdout)
	defer out.Flush()
	stdout = out
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, reading: &lineerr.Reading{}}
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := knownCommand(root, args)
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	for _, n := range e.reading.Notes() {
		fmt.Fprintf(stderr, "vulnbench: note: %s\n", n)
	}
	if err == nil {
		return ExitOK
	}
	code := ExitFail
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	fmt.Fprintf(stderr, "vulnbench: %v\n", err)
	pe := (*preflight.Error)(nil)
	if code == ExitUsage && !errors.As(err, &pe) { // a preflight's misses say their own fixes
		fmt.Fprintln(stderr, "Run 'vulnbench --help' (or COMMAND --help) for usage.")
	}
	return code
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "vulnbench",
		Short: "Benchmark how well LLMs, agents and scanners find and judge vulnerabilities",
		Long: `vulnbench builds vulnerability-detection benchmarks (suites of cases), runs subjects on them
(baselines, scanners, LLMs, predictions made elsewhere), stores every verdict as
it arrives, and scores them exactly as the PrimeVul, JitVul, AppSecBench and VEX-Bench papers define.

A typical session:
  vulnbench suite validate suites/demo/demo.jsonl
  vulnbench run --suite suites/demo/demo.jsonl --subject flawfinder
  vulnbench score --suite suites/demo/demo.jsonl --run RUN_ID

Exit codes: 0 success, 1 a failed check or run, 2 a usage error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.String(),
	}
	// Cobra's own usage errors are plain errors: its flag errors come through here, and the one
	// other (an unknown command) through knownCommand, so that every usage error is an
	// *exitError with ExitUsage, whatever its text.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: ExitUsage, err: err}
	})
	root.PersistentFlags().BoolVar(&e.reading.Lossy, "lossy-utf8", false, "accept input files (suites, predictions, SARIF, datasets) that are not valid UTF-8, each bad byte read as U+FFFD and counted (without it, such a line is a FILE:LINE problem)")
	root.AddCommand(newSuiteCmd(e), newRunCmd(e), newScoreCmd(e), newCompareCmd(e), newRunsCmd(e), newMigrateCmd(e), newStopCmd(e), newCancelCmd(e), newWorkerCmd(e), newCodeCmd(e), newSarifCmd(e), newExportCmd(e), newReportCmd(e), newBoardCmd(e), newServeCmd(e), newJudgeCmd(e), newFetchCmd(e), newProbeCmd(e), newGradeCmd(e), newLabelCmd(e))
	return root
}

// knownCommand looks up the command args name as cobra will: the one error of the lookup is a
// word that names no command (with cobra's text and suggestions), a usage error.
func knownCommand(root *cobra.Command, args []string) error {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return nil // shell completion: cobra adds its command when it executes
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	if _, _, err := root.Find(args); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	return nil
}

// exactArgs is cobra.ExactArgs with a usage exit code and a message naming what is expected.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr("%s takes %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

// checkFormat refuses a --format that does not write documents like d, naming the formats that
// do (from the one registry, internal/output/formats).
func checkFormat(format string, d output.Document) error {
	err := formats.All().Check(format, d)
	var unsupported *output.UnsupportedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &unsupported):
		return usageErr("--format %q does not write a %s document: use one of %s", format, d.Kind(), strings.Join(unsupported.Known, ", "))
	}
	return usageErr("--format %q is not one of %s", format, strings.Join(formats.All().For(d), ", "))
}

// formatUsage is the help of a --format that writes documents like d: the formats that do.
func formatUsage(d output.Document) string {
	return "output format: " + strings.Join(formats.All().For(d), ", ")
}

// present writes d to w in format (checked with checkFormat).
func present(w io.Writer, format string, d output.Document) error {
	return formats.All().Present(w, format, d)
}

// reportProblems prints input problems, at most max of them, and returns how many there were.
func reportProblems(w io.Writer, problems []error, max int) {
	for i, p := range problems {
		if max > 0 && i == max {
			fmt.Fprintf(w, "... and %d more problems\n", len(problems)-max)
			return
		}
		fmt.Fprintln(w, p)
	}
}
