package leak

import (
	"fmt"
	"io"
)

// Doc is a leak search's result with the two suites' names and how many matches text lists:
// the document `vulnbench suite leak` writes (output.Document).
type Doc struct {
	*Result
	A, B string `json:"-"`
	List int    `json:"-"`
}

// Kind implements output.Document.
func (Doc) Kind() string { return "leak" }

// JSONValue is the result as JSON.
func (d Doc) JSONValue() (any, error) { return d.Result, nil }

// WriteText writes the counts and the first List matches (WriteText of Result).
func (d Doc) WriteText(w io.Writer) error { return d.Result.WriteText(w, d.A, d.B, d.List) }

// WriteText writes the counts of exact and near copies of suite b's cases in suite a, and the
// first list matches.
func (r *Result) WriteText(w io.Writer, a, b string, list int) error {
	fmt.Fprintf(w, "%s: %d cases; %s: %d cases\n", a, r.CasesA, b, r.CasesB)
	fmt.Fprintf(w, "exact copies: %d of %d (%.2f%%)\n", r.ExactB, r.CasesB, 100*r.ExactRate)
	fmt.Fprintf(w, "near copies (Jaccard >= %g over %d-token shingles, exact included): %d of %d (%.2f%%)\n",
		r.Threshold, r.Shingle, r.NearB, r.CasesB, 100*r.NearRate)
	for i, m := range r.Matches {
		if i == list {
			fmt.Fprintf(w, "... and %d more (--list N or --format json)\n", len(r.Matches)-list)
			break
		}
		kind := "near"
		if m.Exact {
			kind = "exact"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%.3f\n", m.B, m.A, kind, m.Jaccard)
	}
	return nil
}
