package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// StatsFormats are the formats of WriteStats.
func StatsFormats() []string { return []string{"text", "md", "json", "csv"} }

// WriteStats writes a suite's counts in format (text, md, json or csv).
func WriteStats(w io.Writer, format string, st *suite.Stats) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"dimension", "value", "cases"})
		_ = cw.Write([]string{"total", "cases", strconv.Itoa(st.Cases)})
		_ = cw.Write([]string{"total", "pairs", strconv.Itoa(st.Pairs)})
		for _, d := range st.Dimensions() {
			for _, c := range d.Counts {
				_ = cw.Write([]string{d.Name, c.Key, strconv.Itoa(c.N)})
			}
		}
		cw.Flush()
		return cw.Error()
	case "md":
		var b bytes.Buffer // writes to a buffer never fail: one error check at the end
		fmt.Fprintf(&b, "**%d cases, %d pairs**\n", st.Cases, st.Pairs)
		for _, d := range st.Dimensions() {
			fmt.Fprintf(&b, "\n| %s | cases |\n|---|---:|\n", d.Name)
			for _, c := range d.Counts {
				fmt.Fprintf(&b, "| %s | %d |\n", strings.ReplaceAll(c.Key, "|", `\|`), c.N)
			}
		}
		_, err := w.Write(b.Bytes())
		return err
	case "text":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "cases\t%d\npairs\t%d\n", st.Cases, st.Pairs)
		for _, d := range st.Dimensions() {
			fmt.Fprintf(tw, "\n%s\t\n", strings.ToUpper(d.Name))
			for _, c := range d.Counts {
				fmt.Fprintf(tw, "  %s\t%d\n", c.Key, c.N)
			}
		}
		return tw.Flush()
	}
	return fmt.Errorf("unknown format %q (use %s)", format, strings.Join(StatsFormats(), ", "))
}
