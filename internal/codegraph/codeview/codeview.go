// Package codeview renders what the code graph answers: an index's summary and the callers,
// callees and definitions of a name, as text or JSON. The CLI's code commands parse flags and call
// it; a name the index does not know is a *NotFoundError.
package codeview

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vulnbench/vulnbench/internal/codegraph"
)

// Open indexes repo with opts (its Workers set from codegraph.SpareProcs). With base set (a
// sibling snapshot's directory) it first opens base's index with its parse results kept and
// indexes repo incrementally from it. The warnings say which index could not be saved.
func Open(ctx context.Context, repo, base string, opts codegraph.Options) (*codegraph.Index, []string, error) {
	workers, restore := codegraph.SpareProcs()
	defer restore()
	opts.Workers = workers
	var warnings []string
	if base != "" {
		bo := opts
		bo.KeepParsed = true
		bix, err := codegraph.Open(ctx, base, bo)
		if err != nil {
			return nil, nil, fmt.Errorf("--base %s: %w", base, err)
		}
		if bix.CacheErr != nil {
			warnings = append(warnings, fmt.Sprintf("the index of --base was not saved (%v); every file of --repo is parsed", bix.CacheErr))
		}
		opts.Base = bix
	}
	ix, err := codegraph.Open(ctx, repo, opts)
	if err != nil {
		return nil, warnings, err
	}
	if ix.CacheErr != nil {
		warnings = append(warnings, fmt.Sprintf("the index was not saved (%v); use --cache DIR or --no-cache", ix.CacheErr))
	}
	return ix, warnings, nil
}

// NotFoundError says a name is not defined in the indexed repository (or not at all there).
type NotFoundError struct{ msg string }

func (e *NotFoundError) Error() string { return e.msg }

// SummaryJSON is the JSON form of an index's summary.
type SummaryJSON struct {
	Repo      string              `json:"repo"`
	Base      string              `json:"base,omitempty"`
	Snapshot  string              `json:"snapshot"`
	Stats     codegraph.Stats     `json:"stats"`
	CacheFile string              `json:"cache_file,omitempty"`
	Skipped   []codegraph.Skipped `json:"skipped"`
}

// SummaryDoc is an index's summary, the document `vulnbench code index` writes (output.Document).
type SummaryDoc struct{ Index *codegraph.Index }

// Kind implements output.Document.
func (SummaryDoc) Kind() string { return "code index" }

// JSONValue is the summary's JSON form.
func (d SummaryDoc) JSONValue() (any, error) { return Summary(d.Index), nil }

// WriteText writes the summary as text (WriteSummary).
func (d SummaryDoc) WriteText(w io.Writer) error { return WriteSummary(w, d.Index) }

// Summary is ix's summary in its JSON form; Skipped is [] rather than null.
func Summary(ix *codegraph.Index) SummaryJSON {
	sk := ix.Skipped
	if sk == nil {
		sk = []codegraph.Skipped{}
	}
	return SummaryJSON{Repo: ix.Root, Base: ix.Base, Snapshot: ix.Hash, Stats: ix.Stats, CacheFile: ix.CacheFile, Skipped: sk}
}

// maxSkippedShown caps the skipped files the text summary lists.
const maxSkippedShown = 50

// WriteSummary writes ix's summary as text: counts, how it was had, and the skipped files.
func WriteSummary(w io.Writer, ix *codegraph.Index) error {
	st := ix.Stats
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "repo\t%s\n", ix.Root)
	fmt.Fprintf(tw, "snapshot\t%s\n", ix.Hash)
	fmt.Fprintf(tw, "files\t%d (%.1f MB; %d with syntax errors, tolerated)\n", st.Files, float64(st.Bytes)/1e6, st.SyntaxErrors)
	if st.Partial > 0 {
		fmt.Fprintf(tw, "partly parsed\t%d (a definition the parser could not close was cut at its closing brace)\n", st.Partial)
	}
	fmt.Fprintf(tw, "functions\t%d (and %d function-like macros)\n", st.Functions, st.Macros)
	fmt.Fprintf(tw, "call sites\t%d (%d unresolved: through pointers or computed; and %d references to functions)\n", st.CallSites, st.Unresolved, st.References)
	fmt.Fprintf(tw, "skipped\t%d\n", st.Skipped)
	how := "built"
	if st.Loaded {
		how = "loaded"
	}
	if ix.CacheFile != "" && ix.CacheErr == nil {
		how += ": " + ix.CacheFile
	}
	if ix.Base != "" && !st.Loaded {
		fmt.Fprintf(tw, "incremental\tfrom %s: %d file contents reused, %d parsed whole, %d parsed in part; %d bytes parsed (%.1f %% of %d)\n",
			ix.Base, st.Reused, st.Parsed-st.PartParsed, st.PartParsed, st.ParsedBytes, 100*float64(st.ParsedBytes)/float64(max(st.Bytes, 1)), st.Bytes)
	}
	fmt.Fprintf(tw, "seconds\t%.2f (%s)\n", st.Seconds, how)
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, s := range ix.Skipped {
		if i == maxSkippedShown {
			fmt.Fprintf(w, "  ... and %d more (--format json lists them all)\n", len(ix.Skipped)-i)
			break
		}
		fmt.Fprintf(w, "  skipped %s: %s\n", s.Path, s.Reason)
	}
	return nil
}

func notFound(ix *codegraph.Index, name string) error {
	return &NotFoundError{msg: fmt.Sprintf("no function %s in %s (%d functions indexed; names are case-sensitive)", name, ix.Root, ix.Stats.Functions+ix.Stats.Macros)}
}

// CallersDoc is the call sites of a function, the document `vulnbench code callers` writes.
type CallersDoc struct {
	Name    string           `json:"name"`
	Callers []codegraph.Site `json:"callers"`
}

// Kind implements output.Document.
func (CallersDoc) Kind() string { return "callers" }

// Callers is the call sites of name; a name neither called nor defined is a *NotFoundError.
func Callers(ix *codegraph.Index, name string, near codegraph.Near) (*CallersDoc, error) {
	sites := ix.Callers(name, near)
	if len(sites) == 0 && len(ix.Definitions(name, near)) == 0 {
		return nil, notFound(ix, name)
	}
	if sites == nil {
		sites = []codegraph.Site{}
	}
	return &CallersDoc{Name: name, Callers: sites}, nil
}

// WriteText writes a line per call site: the caller, file:line, and what kind of call it is.
func (d *CallersDoc) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range d.Callers {
		caller := s.CallerQual
		if caller == "" {
			caller = "(file scope)"
		}
		fmt.Fprintf(tw, "%s\t%s:%d%s\n", caller, s.File, s.Line, kindNote(s))
	}
	return tw.Flush()
}

// kindNote marks the calls that are not plain direct calls.
func kindNote(s codegraph.Site) string {
	switch s.Kind {
	case codegraph.MethodCall:
		return "\tmethod call on " + s.Qualifier + " (receiver type not resolved)"
	case codegraph.Reference:
		return "\treference (the function is used as a value here)"
	}
	return ""
}

// CalleesDoc is the calls each definition of a function makes, the document `vulnbench code
// callees` writes.
type CalleesDoc struct {
	Name        string                `json:"name"`
	Definitions []codegraph.CalleesOf `json:"definitions"`
}

// Kind implements output.Document.
func (CalleesDoc) Kind() string { return "callees" }

// Callees is the calls made by each definition of name.
func Callees(ix *codegraph.Index, name string, near codegraph.Near) (*CalleesDoc, error) {
	groups := ix.Callees(name, near)
	if len(groups) == 0 {
		return nil, undefined(ix, name, near)
	}
	return &CalleesDoc{Name: name, Definitions: groups}, nil
}

// WriteText writes each definition's calls under its name and place.
func (d *CalleesDoc) WriteText(w io.Writer) error {
	for _, g := range d.Definitions {
		fmt.Fprintf(w, "# %s (%s:%d-%d)\n", g.Func.QualName, g.Func.File, g.Func.StartLine, g.Func.EndLine)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, s := range g.Calls {
			callee := s.Callee
			if s.Qualifier != "" && s.Kind == codegraph.Direct {
				callee = s.Qualifier + sepFor(g.Func.Lang) + s.Callee
			}
			if s.Kind == codegraph.Unresolved {
				callee = "(unresolved) " + s.Expr
			}
			fmt.Fprintf(tw, "%s\t%s:%d%s\n", callee, s.File, s.Line, kindNote(s))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func sepFor(l codegraph.Lang) string {
	if l == codegraph.CPP {
		return "::"
	}
	return "."
}

// DefinitionsDoc is the source of each definition of a function, nearest first, the document
// `vulnbench code definition` writes.
type DefinitionsDoc struct {
	Name        string             `json:"name"`
	Definitions []codegraph.Source `json:"definitions"`
}

// Kind implements output.Document.
func (DefinitionsDoc) Kind() string { return "definitions" }

// Definitions is the source of each definition of name, nearest first.
func Definitions(ix *codegraph.Index, name string, near codegraph.Near) (*DefinitionsDoc, error) {
	srcs, err := ix.Definition(name, near)
	if err != nil {
		return nil, err
	}
	if len(srcs) == 0 {
		return nil, undefined(ix, name, near)
	}
	return &DefinitionsDoc{Name: name, Definitions: srcs}, nil
}

// WriteText writes each definition's source under a comment naming its place.
func (d *DefinitionsDoc) WriteText(w io.Writer) error {
	for i, s := range d.Definitions {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "// %s:%d-%d\n%s", s.File, s.StartLine, s.EndLine, s.Text)
		if !strings.HasSuffix(s.Text, "\n") {
			fmt.Fprintln(w)
		}
	}
	return nil
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// undefined explains a name without a definition: called but not defined here, or unknown.
func undefined(ix *codegraph.Index, name string, near codegraph.Near) error {
	if len(ix.Callers(name, near)) > 0 {
		return &NotFoundError{msg: fmt.Sprintf("%s is called in %s but not defined there", name, ix.Root)}
	}
	return notFound(ix, name)
}
