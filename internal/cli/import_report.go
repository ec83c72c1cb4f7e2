package cli

import (
	"fmt"
	"io"

	"github.com/vulnbench/vulnbench/internal/suite/primevul"
)

func printImportReport(w io.Writer, r primevul.Report) {
	fmt.Fprintf(w, "read %d rows (%s fields)\n", r.Rows, r.Format)
	if n := len(r.DuplicateIdx); n > 0 {
		fmt.Fprintf(w, "dropped %d rows with a repeated idx:\n", n)
		for i, d := range r.DuplicateIdx {
			if i == 10 {
				fmt.Fprintf(w, "  ... and %d more\n", n-10)
				break
			}
			fmt.Fprintf(w, "  idx %d on line %d (first on line %d)\n", d.Idx, d.Line, d.First)
		}
	}
	if n := len(r.Unpaired); n > 0 {
		fmt.Fprintf(w, "%d cases kept without a twin:\n", n)
		for i, u := range r.Unpaired {
			if i == 10 {
				fmt.Fprintf(w, "  ... and %d more\n", n-10)
				break
			}
			fmt.Fprintf(w, "  %s\n", u)
		}
	}
	if n := r.DisagreementCount; n > 0 {
		fmt.Fprintf(w, "%d line pairs differ between commit grouping (used) and consecutive-line pairing:\n", n)
		for i, d := range r.Disagreements {
			if i == 10 {
				break
			}
			fmt.Fprintf(w, "  %s\n", d)
		}
		if n > 10 {
			fmt.Fprintf(w, "  ... and %d more\n", n-10)
		}
	}
}
