package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
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
			v := appsec.Validator{Catalog: cat, Syntax: appsec.DefaultSyntaxCheckers()}
			rep := v.ValidateJSONL(cmd.Context(), data)
			if !rep.OK() {
				for _, p := range rep.Problems {
					fmt.Fprintln(e.stderr, formatAppSecProblem("records.jsonl", p))
				}
				return &exitError{code: ExitFail, err: fmt.Errorf("build appsec: %d problems in %d records; nothing was written", len(rep.Problems), rep.Records)}
			}
			if err := writeAppSecBuild(out, recs, data); err != nil {
				return err
			}
			printBuildSummary(e.stdout, out, seed, recs, rep)
			return nil
		},
	}
	c.Flags().IntVar(&seed, "seed", 42, "seed of the identifier draws and the split shuffle")
	c.Flags().StringVar(&out, "out", "", "directory to write (created if missing)")
	return c
}

// writeAppSecBuild writes every file of a build into dir, each atomically.
func writeAppSecBuild(dir string, recs []appsec.Record, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("build appsec: %w", err)
	}
	writeBytes := func(b []byte) func(io.Writer) error {
		return func(w io.Writer) error {
			_, err := w.Write(b)
			return err
		}
	}
	type outFile struct {
		name  string
		write func(io.Writer) error
	}
	files := []outFile{{"records.jsonl", writeBytes(data)}}
	for _, split := range appsec.Splits() {
		part, err := appsec.EncodeRecords(slices.DeleteFunc(slices.Clone(recs), func(r appsec.Record) bool { return r.Split != split }))
		if err != nil {
			return err
		}
		files = append(files, outFile{split + ".jsonl", writeBytes(part)})
	}
	cases, err := appsec.Cases(recs)
	if err != nil {
		return err
	}
	st := appsec.NewStats(recs)
	files = append(files, []outFile{
		{"suite.jsonl", func(w io.Writer) error {
			sw := suite.NewWriter(w)
			for i := range cases {
				if err := sw.Write(&cases[i]); err != nil {
					return err
				}
			}
			return sw.Flush()
		}},
		{"stats.csv", st.WriteCSV}, {"stats.json", st.WriteJSON}, {"stats.md", st.WriteMarkdown},
	}...)
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := suite.WriteFileAtomic(path, f.write); err != nil {
			return err // names the file already
		}
	}
	return nil
}

func printBuildSummary(w io.Writer, dir string, seed int, recs []appsec.Record, rep appsec.Report) {
	st := appsec.NewStats(recs)
	fmt.Fprintf(w, "appsec (seed %d): %d records, %d archetypes, %d languages, %d frameworks -> %s\n",
		seed, len(recs), len(st.Archetype), len(st.Language), len(st.Framework), dir)
	var splits []string
	for _, s := range appsec.Splits() {
		splits = append(splits, fmt.Sprintf("%s %d", s, st.Split[s]))
	}
	fmt.Fprintf(w, "splits: %s; suite: %d cases in %d pairs\n", strings.Join(splits, ", "), 2*len(recs), len(recs))
	printSyntaxSummary(w, rep)
}

// printSyntaxSummary prints the syntax tally per language (each record counts twice: vulnerable
// and secure code).
func printSyntaxSummary(w io.Writer, rep appsec.Report) {
	printSyntaxTally(w, "syntax (snippets): language checked unchecked errors", rep.Syntax)
}

// printSyntaxTally prints a heading and one row per language, sorted.
func printSyntaxTally(w io.Writer, heading string, tally map[string]appsec.SyntaxTally) {
	langs := make([]string, 0, len(tally))
	for l := range tally {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	fmt.Fprintln(w, heading)
	for _, l := range langs {
		t := tally[l]
		fmt.Fprintf(w, "  %-12s %5d %5d %5d\n", l, t.Checked, t.Unchecked, t.Errors)
	}
}

// formatAppSecProblem prints a record problem as FILE:LINE: id: field: message.
func formatAppSecProblem(file string, p appsec.Problem) string {
	var b bytes.Buffer
	b.WriteString(file)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	fmt.Fprintf(&b, ": %s: ", p.Record)
	if p.Field != "" {
		fmt.Fprintf(&b, "%s: ", p.Field)
	}
	b.WriteString(p.Message)
	return b.String()
}
