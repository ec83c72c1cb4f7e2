package cli

import (
	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/sarif"
)

func newSarifCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "sarif", Short: "Read SARIF files as vulnbench understands them"}
	var format string
	read := &cobra.Command{
		Use:   "read FILE",
		Short: "Print the findings vulnbench understands in a SARIF file: tool, version, results, and per result its file, lines, rule, CWEs, severity and message",
		Long: `Print what vulnbench reads in a SARIF 2.1.0 file: the way to check a tool's output before
scoring it with --subject sarif:FILE. The reader is lenient (null arrays, index -1, pre-release
schema URLs, %SRCROOT% and file:/// URIs, regions with only a start line, results without a
location); CWEs come from rule tags, rule relationships and taxa, properties.cwe, and the message
text as a last resort.`,
		Example: `  vulnbench sarif read codeql.sarif
  vulnbench sarif read gosec.sarif --format json`,
		Args: exactArgs(1, "one SARIF file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, (*sarif.Log)(nil)); err != nil {
				return err
			}
			l, err := sarif.ReadFile(args[0], e.reading)
			if err != nil {
				return err
			}
			return present(e.stdout, format, l)
		},
	}
	read.Flags().StringVar(&format, "format", "text", formatUsage((*sarif.Log)(nil)))
	c.AddCommand(read)
	return c
}
