package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/report"
)

// Document is one command's result, a typed value that the presenters of the one registry
// (internal/output/formats) write: a report's scores (*report.Report), a board, a comparison,
// a breakdown, a suite's counts, a run's export, and the results of every other command. Kind
// names it in messages ("scores", "board", ...).
//
// A document is written in a format by the format's presenter. The general formats (text, md,
// json, csv, html) write every document: in the layout it gives for the format (TextWriter,
// MarkdownWriter, CSVWriter, HTMLWriter, JSONValue), else as its Blocks (Blocker, or its JSON
// value flattened to path = value rows). A format added to the registry thus reaches every
// command at once; the export formats (sarif, jsonl, openvex) write exports only.
type Document interface {
	Kind() string
}

// The layouts a document may give for the general formats.
type (
	// TextWriter writes the document as aligned text.
	TextWriter interface{ WriteText(w io.Writer) error }
	// MarkdownWriter writes it as GitHub Markdown.
	MarkdownWriter interface{ WriteMarkdown(w io.Writer) error }
	// CSVWriter writes it as CSV.
	CSVWriter interface{ WriteCSV(w io.Writer) error }
	// HTMLWriter writes it as one self-contained HTML page.
	HTMLWriter interface{ WriteHTML(w io.Writer) error }
	// JSONValue is the value the json format writes (its JSON contract); without it, the
	// document itself is marshalled.
	JSONValue interface{ JSONValue() (any, error) }
	// Blocker gives the document as titled tables and lines, the shape every general format can
	// write (Blocks).
	Blocker interface{ Blocks() ([]Block, error) }
)

// Block is one part of a document as general formats lay it out: a title, a table, lines of
// text; any may be empty.
type Block struct {
	Title string
	Table *Table
	Lines []string
}

// JSONOf is the value the json format writes of d: a report's score JSON (ScoresJSON), a
// document's JSONValue, or the document itself.
func JSONOf(d Document) (any, error) {
	switch x := d.(type) {
	case *report.Report:
		var b bytes.Buffer
		if err := ScoresJSON(&b, x); err != nil {
			return nil, err
		}
		return json.RawMessage(b.Bytes()), nil
	case JSONValue:
		return x.JSONValue()
	}
	return d, nil
}

// Blocks is d as titled tables and lines: its own (Blocker), else its JSON value flattened into
// one table of path and value, a row per leaf (object members in their order, array items by
// index), so that any format can write any document.
func Blocks(d Document) ([]Block, error) {
	switch x := d.(type) {
	case *report.Report: // the score tables, as text and Markdown lay them out
		ts, err := Tables(x)
		if err != nil {
			return nil, err
		}
		bs := make([]Block, len(ts))
		for i := range ts {
			bs[i] = Block{Table: &ts[i]}
		}
		return append(bs, Block{Lines: []string{Footer(x)}}), nil
	case Blocker:
		return x.Blocks()
	}
	v, err := JSONOf(d)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Kind(), err)
	}
	t := &Table{Header: []string{"field", "value"}}
	if err := flatten(json.NewDecoder(strings.NewReader(string(raw))), "", t); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Kind(), err)
	}
	return []Block{{Title: d.Kind(), Table: t}}, nil
}

// flatten reads one JSON value from dec and adds a row per leaf to t, named by its path.
func flatten(dec *json.Decoder, path string, t *Table) error {
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				if err := flatten(dec, join(path, fmt.Sprint(k)), t); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; dec.More(); i++ {
				if err := flatten(dec, join(path, strconv.Itoa(i)), t); err != nil {
					return err
				}
			}
		}
		_, err := dec.Token() // the closing delimiter
		return err
	case nil:
		t.Rows = append(t.Rows, []string{path, "null"})
	default:
		t.Rows = append(t.Rows, []string{path, fmt.Sprint(x)})
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// UnsupportedError is a document a format cannot write.
type UnsupportedError struct {
	Format, Kind string
	Known        []string // the formats that write it
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("format %s does not write a %s document: use one of %s", e.Format, e.Kind, strings.Join(e.Known, ", "))
}

// For lists the formats of r that write d, in order: what --format takes for d's command.
func (r *Registry) For(d Document) []string {
	var ns []string
	for _, p := range r.ps {
		if p.Presents(d) {
			ns = append(ns, p.Name())
		}
	}
	return ns
}

// Check refuses a format name that does not write d, with the ones that do.
func (r *Registry) Check(name string, d Document) error {
	p, err := r.Lookup(name)
	if err != nil {
		return &UnknownFormatError{Name: name, Known: r.For(d)}
	}
	if !p.Presents(d) {
		return &UnsupportedError{Format: name, Kind: d.Kind(), Known: r.For(d)}
	}
	return nil
}

// Describe is the help text of a command's --format: its formats, and what each writes where a
// format says (Summarizer).
func (r *Registry) Describe(d Document) string {
	return strings.Join(r.For(d), ", ")
}

// Summaries are the one-line summaries of the formats of r that write d and say what they write.
func (r *Registry) Summaries(d Document) [][2]string {
	var out [][2]string
	for _, p := range r.ps {
		if s, ok := p.(Summarizer); ok && p.Presents(d) {
			out = append(out, [2]string{p.Name(), s.Summary()})
		}
	}
	return out
}

// General is what the general formats share: they write every document.
type General struct{}

// Presents implements Presenter: every document.
func (General) Presents(Document) bool { return true }

// Buffered writes through write into a buffer, and the buffer to w once whole: a document is
// written all or nothing.
func Buffered(w io.Writer, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
