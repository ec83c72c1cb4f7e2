package probe

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteMarkdown writes the report as Markdown; WriteText as aligned text. Both have the rows,
// the memorised prompts with their cases, the cases left out, the retries and the rule answers
// are read by; its JSON (the document itself) has them too.
func (rep Report) WriteMarkdown(w io.Writer) error { return rep.write(w, true) }

// WriteText writes the report as aligned text (WriteMarkdown).
func (rep Report) WriteText(w io.Writer) error { return rep.write(w, false) }

func (rep Report) write(w io.Writer, md bool) error {
	if md {
		fmt.Fprintf(w, "Memorisation probe: %s\n\n| year | prompts | cases | memorised | control |\n|---|---:|---:|---:|---:|\n", rep.Suite)
	} else {
		fmt.Fprintf(w, "memorisation probe: %s\n%-8s %7s %6s %16s %16s\n", rep.Suite, "year", "prompts", "cases", "memorised", "control")
	}
	for _, r := range rep.Rows {
		if md {
			fmt.Fprintf(w, "| %s | %d | %d | %d (%.1f%%) | %d (%.1f%%) |\n", r.Year, r.Prompts, r.Cases, r.Memorised, 100*r.Share, r.Control, 100*r.ControlShare)
		} else {
			fmt.Fprintf(w, "%-8s %7d %6d %8d %6.1f%% %8d %6.1f%%\n", r.Year, r.Prompts, r.Cases, r.Memorised, 100*r.Share, r.Control, 100*r.ControlShare)
		}
	}
	heading, item := "memorised (%d prompts):", "  %s %s\n"
	if md {
		heading, item = "\nMemorised (%d prompts):", "- %s: %s\n"
	}
	fmt.Fprintf(w, heading, len(rep.Memorised))
	if len(rep.Memorised) == 0 {
		fmt.Fprint(w, " none")
	}
	fmt.Fprintln(w)
	for _, m := range rep.Memorised {
		sep := " "
		if md {
			sep = ", "
		}
		y := m.Year
		if y == "" {
			y = "(none)"
		}
		fmt.Fprintf(w, item, y, strings.Join(m.Cases, sep))
	}
	if md {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d cases too short to cut, %d without an answer; cases sharing a prompt (the halves of a pair cut before their change) count once\n", rep.TooShort, rep.Missing)
	fmt.Fprintf(w, "retries: %d attempts tried again", rep.Retries.Attempts)
	reasons := make([]string, 0, len(rep.Retries.Reasons))
	for r, n := range rep.Retries.Reasons {
		reasons = append(reasons, fmt.Sprintf("%dx %s", n, r))
	}
	sort.Strings(reasons)
	if len(reasons) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(reasons, "; "))
	}
	fmt.Fprintf(w, ", %d model calls retried within their attempts (transient faults)\n", rep.Retries.Calls)
	_, err := fmt.Fprintf(w, "rule: %s\n", rep.Rule)
	return err
}
