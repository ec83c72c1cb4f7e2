package cli

import (
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/suite/importer"
)

func printImportResult(w io.Writer, r importer.Result) {
	fmt.Fprintln(w, r.Summary)
	for _, n := range r.Notes {
		printList(w, n.Header, n.Items, n.Total)
	}
}

// printList prints a header and the first ten items of a list of total; nothing when it is empty.
func printList(w io.Writer, header string, items []string, total int) {
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
