package cli

import (
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/suite/primevul"
)

func printImportReport(w io.Writer, r primevul.Report) {
	fmt.Fprintf(w, "read %d rows (%s fields)\n", r.Rows, r.Format)
	dups := make([]string, len(r.DuplicateIdx))
	for i, d := range r.DuplicateIdx {
		dups[i] = fmt.Sprintf("idx %d on line %d (first on line %d)", d.Idx, d.Line, d.First)
	}
	printList(w, fmt.Sprintf("dropped %d rows with a repeated idx:", len(dups)), dups, len(dups))
	printList(w, fmt.Sprintf("%d cases kept without a twin:", len(r.Unpaired)), r.Unpaired, len(r.Unpaired))
	printList(w, fmt.Sprintf("%d line pairs differ between commit grouping (used) and consecutive-line pairing:", r.DisagreementCount),
		r.Disagreements, r.DisagreementCount)
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
