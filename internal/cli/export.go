package cli

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func newExportCmd(e *env) *cobra.Command {
	var runID, db, format, out, repeat string
	var help strings.Builder
	for _, x := range output.Exporters() {
		help.WriteString("  " + x.Name + ": " + x.Summary + "\n")
	}
	c := &cobra.Command{
		Use:   "export --run ID --format " + strings.Join(output.ExportFormats(), "|") + " [--out FILE]",
		Short: "Write a stored run's verdicts in a format other tools read (one file per run)",
		Long:  "Write a stored run's verdicts, one file per run, in one of these formats:\n" + help.String(),
		Example: `  vulnbench export --run r1 --format sarif --out r1.sarif
  vulnbench export --run r1 --format jsonl > r1.jsonl`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runID == "" {
				return usageErr("export needs --run ID (list the runs with: vulnbench runs --db %s)", db)
			}
			x, ok := output.LookupExporter(format)
			if !ok {
				return checkFormat(format, output.ExportFormats()...)
			}
			st, err := openRead(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			run, err := report.LoadExport(cmd.Context(), st, runID)
			if err != nil {
				return err
			}
			if err := run.ChooseRepeat(repeat); err != nil {
				return usageErr("--repeat: %v", err)
			}
			if out == "" {
				return x.Write(e.stdout, run)
			}
			return suite.WriteFileAtomic(out, func(w io.Writer) error { return x.Write(w, run) })
		},
	}
	f := c.Flags()
	f.StringVar(&runID, "run", "", "the run to export")
	f.StringVar(&db, "db", "vulnbench.db", "store holding the run (SQLite file or postgres:// DSN)")
	f.StringVar(&format, "format", "", "export format: "+strings.Join(output.ExportFormats(), ", "))
	f.StringVar(&out, "out", "", "write to this file (default: standard output)")
	f.StringVar(&repeat, "repeat", "", "openvex of a run with repeats: the repeat N to state (default 0), or majority (the most common answer per case); the document names it")
	return c
}
