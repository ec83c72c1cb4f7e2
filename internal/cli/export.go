package cli

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/formats"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func newExportCmd(e *env) *cobra.Command {
	var runID, db, format, out, repeat string
	reg := formats.All()
	var help strings.Builder
	for _, s := range reg.Summaries(output.Export{}) {
		help.WriteString("  " + s[0] + ": " + s[1] + "\n")
	}
	c := &cobra.Command{
		Use:   "export --run ID --format FORMAT [--out FILE]",
		Short: "Write a stored run's verdicts in a format other tools read (one file per run)",
		Long: "Write a stored run's verdicts, one file per run, in one of these formats:\n" + help.String() +
			"or, a row per verdict, in any general format (" + formatUsage(output.Export{}) + ").",
		Example: `  vulnbench export --run r1 --format sarif --out r1.sarif
  vulnbench export --run r1 --format jsonl > r1.jsonl`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runID == "" {
				return usageErr("export needs --run ID (list the runs with: vulnbench runs --db %s)", db)
			}
			if err := checkFormat(format, output.Export{}); err != nil {
				return err
			}
			st, err := openRead(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			rep, err := report.LoadExport(cmd.Context(), st, runID)
			if err != nil {
				return err
			}
			if err := rep.Runs[0].ChooseRepeat(repeat); err != nil {
				return usageErr("--repeat: %v", err)
			}
			doc := output.Export{Report: rep}
			if out == "" {
				return present(e.stdout, format, doc)
			}
			return suite.WriteFileAtomic(out, func(w io.Writer) error { return present(w, format, doc) })
		},
	}
	f := c.Flags()
	f.StringVar(&runID, "run", "", "the run to export")
	f.StringVar(&db, "db", "vulnbench.db", "store holding the run (SQLite file or postgres:// DSN)")
	f.StringVar(&format, "format", "", formatUsage(output.Export{}))
	f.StringVar(&out, "out", "", "write to this file (default: standard output)")
	f.StringVar(&repeat, "repeat", "", "openvex of a run with repeats: the repeat N to state (default 0), or majority (the most common answer per case); the document names it")
	return c
}
