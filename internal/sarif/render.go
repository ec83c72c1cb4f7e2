package sarif

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// readFinding is DESIGN's contract for `sarif read --format json`: every key always present.
type readFinding struct {
	File      string   `json:"file"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Rule      string   `json:"rule"`
	CWE       []string `json:"cwe"`
	Severity  string   `json:"severity"`
	Message   string   `json:"message"`
}

// readRun is one run of `sarif read --format json`.
type readRun struct {
	Tool     string        `json:"tool"`
	Version  string        `json:"version"`
	Results  int           `json:"results"`
	Findings []readFinding `json:"findings"`
}

// Kind names a log among the documents commands write (output.Document): `vulnbench sarif read`'s.
func (l *Log) Kind() string { return "sarif read" }

// JSONValue is what l holds as `vulnbench sarif read --format json` prints it: every key always
// present, arrays never null.
func (l *Log) JSONValue() (any, error) {
	out := struct {
		Runs []readRun `json:"runs"`
	}{Runs: []readRun{}}
	for _, r := range l.Runs {
		sr := readRun{Tool: r.Tool, Version: r.Version, Results: r.Results, Findings: []readFinding{}}
		for _, f := range r.Findings {
			cwe := f.CWE
			if cwe == nil {
				cwe = []string{}
			}
			sr.Findings = append(sr.Findings, readFinding{File: f.File, StartLine: f.StartLine, EndLine: f.EndLine,
				Rule: f.Rule, CWE: cwe, Severity: f.Severity, Message: f.Message})
		}
		out.Runs = append(out.Runs, sr)
	}
	return out, nil
}

// WriteText writes what l holds as text: per run a summary line and a table of its findings.
func (l *Log) WriteText(w io.Writer) error {
	for i, r := range l.Runs {
		if i > 0 {
			fmt.Fprintln(w)
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
		fmt.Fprintf(w, "run %d: %s %s: %d results, %d with a location, %d with a CWE; CWEs: %s\n",
			i, r.Tool, version, r.Results, located, withCWE, orNone(strings.Join(order, " ")))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
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
