package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

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
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			l, err := sarif.ReadFile(args[0])
			if err != nil {
				return err
			}
			if format == "json" {
				return writeSarifJSON(e, l)
			}
			return writeSarifText(e, l)
		},
	}
	read.Flags().StringVar(&format, "format", "text", "output format: text or json")
	c.AddCommand(read)
	return c
}

// sarifFinding is DESIGN's contract for `sarif read --format json`: every key always present.
type sarifFinding struct {
	File      string   `json:"file"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Rule      string   `json:"rule"`
	CWE       []string `json:"cwe"`
	Severity  string   `json:"severity"`
	Message   string   `json:"message"`
}

type sarifRun struct {
	Tool     string         `json:"tool"`
	Version  string         `json:"version"`
	Results  int            `json:"results"`
	Findings []sarifFinding `json:"findings"`
}

func writeSarifJSON(e *env, l *sarif.Log) error {
	out := struct {
		Runs []sarifRun `json:"runs"`
	}{Runs: []sarifRun{}}
	for _, r := range l.Runs {
		sr := sarifRun{Tool: r.Tool, Version: r.Version, Results: r.Results, Findings: []sarifFinding{}}
		for _, f := range r.Findings {
			cwe := f.CWE
			if cwe == nil {
				cwe = []string{}
			}
			sr.Findings = append(sr.Findings, sarifFinding{File: f.File, StartLine: f.StartLine, EndLine: f.EndLine,
				Rule: f.Rule, CWE: cwe, Severity: f.Severity, Message: f.Message})
		}
		out.Runs = append(out.Runs, sr)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeSarifText(e *env, l *sarif.Log) error {
	for i, r := range l.Runs {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		version := r.Version
		if version == "" {
			version = "(no version)"
		}
		located, withCWE, cwes := 0, 0, map[string]bool{}
		var order []string
		for _, f := range r.Findings {
			if f.File != "" {
				located++
			}
			if len(f.CWE) > 0 {
				withCWE++
			}
			for _, c := range f.CWE {
				if !cwes[c] {
					cwes[c] = true
					order = append(order, c)
				}
			}
		}
		fmt.Fprintf(e.stdout, "run %d: %s %s: %d results, %d with a location, %d with a CWE; CWEs: %s\n",
			i, r.Tool, version, r.Results, located, withCWE, orNone(strings.Join(order, " ")))
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "LOCATION\tRULE\tSEVERITY\tCWE\tMESSAGE")
		for _, f := range r.Findings {
			loc := "(no location)"
			switch {
			case f.File != "" && f.StartLine > 0 && f.EndLine > f.StartLine:
				loc = fmt.Sprintf("%s:%d-%d", f.File, f.StartLine, f.EndLine)
			case f.File != "" && f.StartLine > 0:
				loc = fmt.Sprintf("%s:%d", f.File, f.StartLine)
			case f.File != "":
				loc = f.File
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", loc, f.Rule, f.Severity, orNone(strings.Join(f.CWE, ",")), oneLine(f.Message, 100))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine keeps the first line of s, cut to max runes.
func oneLine(s string, max int) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + " ..."
	}
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "..."
	}
	return s
}
