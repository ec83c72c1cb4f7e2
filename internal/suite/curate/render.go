package curate

import (
	"fmt"
	"io"
)

// WriteText writes the curation's counts, step by step, and its splits, for the suites written
// into dir.
func (rep *Report) WriteText(w io.Writer, dir string) {
	fmt.Fprintf(w, "%d lines: %d functions, %d malformed\n", rep.Lines, rep.Records, rep.Malformed)
	for _, st := range rep.Steps {
		fmt.Fprintf(w, "%-19s %7d -> %7d %s\n", st.Step, st.In, st.Out, st.Unit)
		for _, r := range st.Removed {
			extra := ""
			if r.Commits > 0 {
				extra = fmt.Sprintf(" (%d commits)", r.Commits)
			}
			fmt.Fprintf(w, "  - %d %s%s\n", r.Count, r.Reason, extra)
		}
		if st.Step == "label" {
			d := st.Detail
			fmt.Fprintf(w, "  vul: %d onefunc, %d nvdcheck function, %d nvdcheck file (%d deleted by the fix); ben: %d patched, %d unchanged\n",
				d["vul_onefunc"], d["vul_nvdcheck_function"], d["vul_nvdcheck_file"], d["vul_deleted_by_fix"], d["ben_patched"], d["ben_unchanged"])
		}
	}
	fmt.Fprintf(w, "%-6s %8s %7s %8s %7s %8s %9s  %s\n", "split", "cases", "vul", "ben", "pairs", "commits", "projects", "dates")
	for _, s := range rep.Splits {
		if s.From == "" {
			s.From, s.To = "-", "-"
		}
		fmt.Fprintf(w, "%-6s %8d %7d %8d %7d %8d %9d  %s .. %s\n", s.Split, s.Cases, s.Vul, s.Ben, s.Pairs, s.Commits, s.Projects, s.From, s.To)
	}
	fmt.Fprintf(w, "wrote %s/{train,valid,test}.jsonl, {train,valid,test}_paired.jsonl, report.json\n", dir)
}
