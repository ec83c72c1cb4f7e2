package importer

import (
	"fmt"
	"io"
)

// WriteText writes the result's summary and, of each note, its header and first ten items.
func (r Result) WriteText(w io.Writer) {
	fmt.Fprintln(w, r.Summary)
	for _, n := range r.Notes {
		writeList(w, n.Header, n.Items, n.Total)
	}
}

// writeList writes a header and the first ten items of a list of total; nothing when it is empty.
func writeList(w io.Writer, header string, items []string, total int) {
	if total == 0 {
		return
	}
	fmt.Fprintln(w, header)
	for i, s := range items {
		if i == 10 {
			break
		}
		fmt.Fprintf(w, "  %s\n", s)
	}
	if total > 10 {
		fmt.Fprintf(w, "  ... and %d more\n", total-10)
	}
}
