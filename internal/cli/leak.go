package cli

import (
	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/suite/leak"
)

func newLeakCmd(e *env) *cobra.Command {
	var (
		opt    leak.Options
		format string
		list   int
	)
	c := &cobra.Command{
		Use:   "leak A B",
		Short: "Find cases of suite B that are exact or near copies of cases of suite A",
		Long: `Reports the cases of B (e.g. a test split) with a copy in A (e.g. train): exact copies have the
same MD5 of the text without spaces, tabs, newlines and carriage returns (as curate's
de-duplication); near copies have a Jaccard similarity of their token shingle sets (--shingle
tokens each) of at least --threshold. Near copies are found with MinHash (16 bands of 8 rows)
and every candidate is confirmed with the exact Jaccard. B is held in memory; A is streamed.`,
		Example: `  vulnbench suite leak primevul/train.jsonl primevul/test.jsonl
  vulnbench suite leak train.jsonl test.jsonl --threshold 0.8 --format json`,
		Args: exactArgs(2, "two suite files, A and B"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, leak.Doc{}); err != nil {
				return err
			}
			if !(opt.Threshold > 0 && opt.Threshold <= 1) { // NaN too
				return usageErr("--threshold %v is not in (0, 1]", opt.Threshold)
			}
			if opt.Shingle < 1 {
				return usageErr("--shingle %d must be at least 1", opt.Shingle)
			}
			res, err := leak.Find(cmd.Context(), args[0], args[1], opt)
			if err != nil {
				return &exitError{code: ExitFail, err: err}
			}
			return present(e.stdout, format, leak.Doc{Result: res, A: args[0], B: args[1], List: list})
		},
	}
	f := c.Flags()
	f.Float64Var(&opt.Threshold, "threshold", leak.DefaultThreshold, "least Jaccard similarity of a near copy")
	f.IntVar(&opt.Shingle, "shingle", leak.DefaultShingle, "tokens per shingle")
	f.Uint64Var(&opt.Seed, "seed", 1, "seed of the MinHash functions")
	f.StringVar(&format, "format", "text", formatUsage(leak.Doc{}))
	f.IntVar(&list, "list", 20, "matches to list in text output")
	return c
}
