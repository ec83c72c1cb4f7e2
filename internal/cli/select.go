package cli

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func newSuiteSelectCmd(e *env) *cobra.Command {
	var (
		in, out                 string
		languages, kinds, label []string
	)
	c := &cobra.Command{
		Use:   "select --in SUITE --out SUITE [--language L] [--kind K] [--label vul|ben]",
		Short: "Write the cases of a suite that match every given filter",
		Long: `Copies the cases of --in that match every filter given into --out, in file order and unchanged,
except that a case whose pair partner is not selected loses its "pair" (so the output is still a
valid suite). Each filter takes a comma-separated list or repeats, and matches any value listed:
--language (the case's language, e.g. c), --kind (function, jit, appsec, vex), --label (vul, ben).
With no filter every case is copied. A malformed input stops the command and writes nothing;
--out is replaced atomically.`,
		Example: `  vulnbench suite select --in appsec/suite.jsonl --out appsec-c.jsonl --language c`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" || out == "" {
				return usageErr("suite select needs --in SUITE and --out SUITE")
			}
			for _, l := range label {
				if !suite.Label(l).Valid() {
					return usageErr("--label %q is not vul or ben", l)
				}
			}
			for _, k := range kinds {
				if !slices.Contains(suite.Kinds, suite.Kind(k)) {
					return usageErr("--kind %q is not one of function, jit, appsec, vex", k)
				}
			}
			sel, problems, err := suite.Select(in, out, suite.Filter{Languages: languages, Kinds: kinds, Labels: label}, e.reading)
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				reportProblems(e.stderr, problems, 20)
				return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems (see vulnbench suite validate); nothing was written", in, len(problems))}
			}
			n, unpaired := sel.Cases, sel.Unpaired
			fmt.Fprintf(e.stdout, "%s: %d cases selected", out, n)
			if unpaired > 0 {
				fmt.Fprintf(e.stdout, " (%d left their unselected pair partner)", unpaired)
			}
			fmt.Fprintln(e.stdout)
			return nil
		},
	}
	c.Flags().StringVar(&in, "in", "", "suite to read")
	c.Flags().StringVar(&out, "out", "", "suite to write (replaced atomically)")
	c.Flags().StringSliceVar(&languages, "language", nil, "keep cases of these languages")
	c.Flags().StringSliceVar(&kinds, "kind", nil, "keep cases of these kinds")
	c.Flags().StringSliceVar(&label, "label", nil, "keep cases with these labels")
	return c
}
