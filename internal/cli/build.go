package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/suite/appsec/parsers"
)

func newSuiteBuildCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "build",
		Short: "Generate a benchmark suite (appsec, osv)",
		Args:  exactArgs(0, "a benchmark name (appsec, osv)"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newBuildAppSecCmd(e), newBuildOSVCmd(e))
	return c
}

func newBuildAppSecCmd(e *env) *cobra.Command {
	var (
		seed int
		out  string
	)
	c := &cobra.Command{
		Use:   "appsec [--seed 42] --out DIR",
		Short: "Generate AppSecBench: records, splits, a paired suite and statistics",
		Long: `Generates the AppSecBench records (SPEC section 3) from the built-in generators, validates them
(every record check, syntax by real parsers) and, only when every check passes, writes into DIR:

  records.jsonl                          every record, the 33 required fields
  train.jsonl validation.jsonl test.jsonl   the records of each split
  suite.jsonl                            a vulnbench suite: two cases per record, ID-vul with the
                                         vulnerable code and ID-ben with the secure code, pair ID,
                                         kind appsec, project appsecbench, the ground truth in "appsec"
  stats.csv stats.json stats.md          records by archetype, language, framework, difficulty,
                                         severity and split

Each (archetype × difficulty) gets the same number of records, at most 8, enough for 406 in all
when the generators allow. Every file is replaced atomically; the same seed writes the same bytes.`,
		Example: `  vulnbench suite build appsec --out appsec
  vulnbench suite validate appsec/records.jsonl`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageErr("suite build appsec needs --out DIR")
			}
			recs, err := appsec.Build(seed)
			if err != nil {
				return fmt.Errorf("build appsec: %w", err)
			}
			data, err := appsec.EncodeRecords(recs)
			if err != nil {
				return err
			}
			cat, err := appsec.LoadCatalog()
			if err != nil {
				return err
			}
			v := appsec.Validator{Catalog: cat, Syntax: parsers.Default()}
			rep := v.ValidateJSONL(cmd.Context(), data)
			if !rep.OK() {
				for _, p := range rep.Problems {
					fmt.Fprintln(e.stderr, p.In("records.jsonl"))
				}
				return &exitError{code: ExitFail, err: fmt.Errorf("build appsec: %d problems in %d records; nothing was written", len(rep.Problems), rep.Records)}
			}
			if err := appsec.WriteBuild(out, recs, data); err != nil {
				return err
			}
			appsec.WriteBuildSummary(e.stdout, out, seed, recs, rep)
			return nil
		},
	}
	c.Flags().IntVar(&seed, "seed", 42, "seed of the identifier draws and the split shuffle")
	c.Flags().StringVar(&out, "out", "", "directory to write (created if missing)")
	return c
}
