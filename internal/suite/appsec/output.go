package appsec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// IsRecordsFile reports whether a file holds AppSecBench records: its first non-blank line is a
// JSON object with a "benchmark_id" field.
func IsRecordsFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var obj map[string]json.RawMessage
			if json.Unmarshal(t, &obj) != nil {
				return false, nil
			}
			_, ok := obj["benchmark_id"]
			return ok, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// ValidateFile validates the records in the file at path against the catalog, syntax by the
// given checkers (internal/suite/appsec/parsers.Default for the real parsers).
func ValidateFile(ctx context.Context, path string, syntax SyntaxCheckers) (Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Report{}, err
	}
	cat, err := LoadCatalog()
	if err != nil {
		return Report{}, err
	}
	return Validator{Catalog: cat, Syntax: syntax}.ValidateJSONL(ctx, data), nil
}

// WriteBuild writes every file of a build into dir, each atomically: data (the encoded recs) as
// records.jsonl, one file per split, the paired suite and the statistics.
func WriteBuild(dir string, recs []Record, data []byte) error {
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
	for _, split := range Splits() {
		part, err := EncodeRecords(slices.DeleteFunc(slices.Clone(recs), func(r Record) bool { return r.Split != split }))
		if err != nil {
			return err
		}
		files = append(files, outFile{split + ".jsonl", writeBytes(part)})
	}
	cases, err := Cases(recs)
	if err != nil {
		return err
	}
	st := NewStats(recs)
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

// WriteBuildSummary writes what a build of seed into dir holds, and rep's syntax tally.
func WriteBuildSummary(w io.Writer, dir string, seed int, recs []Record, rep Report) {
	st := NewStats(recs)
	fmt.Fprintf(w, "appsec (seed %d): %d records, %d archetypes, %d languages, %d frameworks -> %s\n",
		seed, len(recs), len(st.Archetype), len(st.Language), len(st.Framework), dir)
	var splits []string
	for _, s := range Splits() {
		splits = append(splits, fmt.Sprintf("%s %d", s, st.Split[s]))
	}
	fmt.Fprintf(w, "splits: %s; suite: %d cases in %d pairs\n", strings.Join(splits, ", "), 2*len(recs), len(recs))
	rep.WriteSyntax(w)
}

// WriteSyntax writes the syntax tally per language (each record counts twice: vulnerable and
// secure code).
func (rep Report) WriteSyntax(w io.Writer) {
	WriteSyntaxTally(w, "syntax (snippets): language checked unchecked errors", rep.Syntax)
}

// WriteSyntaxTally writes a heading and one row per language, sorted.
func WriteSyntaxTally(w io.Writer, heading string, tally map[string]SyntaxTally) {
	langs := make([]string, 0, len(tally))
	for l := range tally {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	fmt.Fprintln(w, heading)
	for _, l := range langs {
		t := tally[l]
		fmt.Fprintf(w, "  %-12s %5d %5d %5d", l, t.Checked, t.Unchecked, t.Errors)
		if t.Notes != "" {
			fmt.Fprintf(w, "  (%s)", t.Notes)
		}
		fmt.Fprintln(w)
	}
}

// In is the problem as found in file: FILE:LINE: id: field: message.
func (p Problem) In(file string) string {
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
