package fetch

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteEvent writes one progress line: a repository starting its network work, or done.
func WriteEvent(w io.Writer, ev Event) {
	if ev.Step != StepDone {
		fmt.Fprintf(w, "fetch: %s: %s\n", ev.URL, ev.Step)
		return
	}
	r := ev.Result
	prefix := fmt.Sprintf("fetch: [%d/%d] %s:", ev.Done, ev.Total, r.URL)
	if r.Err != nil {
		fmt.Fprintf(w, "%s failed: %v\n", prefix, r.Err)
		return
	}
	kind := ""
	if r.Partial {
		kind = " (partial)"
	}
	fmt.Fprintf(w, "%s %s%s at %s, %s verified", prefix, r.Action, kind, r.Path, plural(r.Commits, "commit"))
	if len(r.Missing) > 0 {
		fmt.Fprintf(w, ", %d missing", len(r.Missing))
	}
	fmt.Fprintf(w, " (%s)\n", r.Took.Round(10*time.Millisecond))
}

// WriteResults writes the summary to w and every repository or commit that could not be had to
// problems; it reports whether there was one.
func WriteResults(w, problems io.Writer, results []Result) (failed bool) {
	s := Summarise(results)
	fmt.Fprintf(w, "repositories: %d (%d present, %d cloned, %d updated, %d failed); commits: %d verified, %d missing\n",
		len(results), s.Present, s.Cloned, s.Updated, s.Failed, s.Commits, s.Missing)
	var bad []string
	for _, r := range results {
		if r.Err != nil {
			bad = append(bad, fmt.Sprintf("  %s: %v", r.URL, r.Err))
		}
		for _, m := range r.Missing {
			bad = append(bad, fmt.Sprintf("  %s: commit %s: %v", r.URL, m.ID, m.Err))
		}
	}
	if len(bad) == 0 {
		return false
	}
	fmt.Fprintf(problems, "vulnbench: could not be had:\n%s\n", strings.Join(bad, "\n"))
	return true
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// WriteText writes the sources read and which ids have records, withdrawn ones or none.
func (rep *AdvisoryReport) WriteText(w io.Writer) {
	for _, s := range rep.Sources {
		switch {
		case s.Unchanged:
			fmt.Fprintf(w, "source %s: %s, unchanged (the server said 304: nothing transferred), sha256 %s, %d records written before\n",
				s.Ecosystem, s.From, s.SHA256, s.Written)
		case s.Ecosystem == "*":
			fmt.Fprintf(w, "source: %s (a directory of records), %d records, %d written, %s\n",
				s.From, s.Records, s.Written, s.Fetched.Format(time.RFC3339))
		default:
			fmt.Fprintf(w, "source %s: %s, %d bytes, sha256 %s, %d records, %d written, %s\n",
				s.Ecosystem, s.From, s.Bytes, s.SHA256, s.Records, s.Written, s.Fetched.Format(time.RFC3339))
		}
	}
	if m := rep.Manifest; m != nil && len(rep.Sources) == 0 && len(rep.Failed) == 0 && len(m.Sources) > 0 {
		for _, s := range m.Sources {
			fmt.Fprintf(w, "fetched: %s export %s, %s (manifest)\n", s.Ecosystem, s.From, s.Fetched.Format(time.RFC3339))
		}
	}
	for _, d := range rep.Differences {
		fmt.Fprintf(w, "against the manifest: %s\n", d)
	}
	var missing, withdrawn []string
	found := 0
	for _, f := range rep.Found {
		switch {
		case f.Missing():
			missing = append(missing, f.ID)
		case f.Withdrawn:
			withdrawn = append(withdrawn, f.ID+" ("+strings.Join(f.Records, ", ")+")")
			found++
		default:
			found++
		}
	}
	fmt.Fprintf(w, "advisories: %d ids; %d with records (%d only withdrawn ones), %d without any\n",
		len(rep.Found), found, len(withdrawn), len(missing))
	if len(withdrawn) > 0 {
		fmt.Fprintf(w, "withdrawn: %s\n", strings.Join(withdrawn, ", "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "no record: %s\n", strings.Join(missing, ", "))
	}
}

// WriteAdvisoryEvent writes one progress line of fetch advisories.
func WriteAdvisoryEvent(w io.Writer, ev AdvisoryEvent) {
	switch ev.Step {
	case "done":
		fmt.Fprintf(w, "fetch: %s: %d records written\n", ev.From, ev.Records)
	case "unchanged":
		fmt.Fprintf(w, "fetch: %s: unchanged since the last fetch, nothing transferred\n", ev.From)
	default:
		fmt.Fprintf(w, "fetch: %s: reading the %s export\n", ev.From, ev.Ecosystem)
	}
}
