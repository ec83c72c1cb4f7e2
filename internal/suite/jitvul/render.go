package jitvul

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// StopText says why the walk stopped: the stop, where from, and whether the change was only
// whitespace.
func (w Walk) StopText() string {
	s := string(w.Stop)
	if w.From != "" {
		s += " from " + w.From
	}
	if w.WhitespaceOnly {
		s += ", a whitespace-only change"
	}
	return s
}

// OriginURL is the origin remote's URL of the repository at dir, or "".
func OriginURL(dir string) string {
	cmd := exec.Command("git", "-C", dir, "remote", "get-url", "origin")
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	b, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// WriteText writes every dropped record of the batch read from in, the drops by reason and how
// the walks ended.
func (rep BatchReport) WriteText(w io.Writer, in string) {
	if len(rep.Dropped) > 0 {
		fmt.Fprintf(w, "dropped %d of %d records:\n", len(rep.Dropped), rep.Records)
		for _, d := range rep.Dropped {
			fmt.Fprintf(w, "  %s:%d: %s: %s\n", in, d.Line, d.Reason, d.Detail)
		}
		reasons := make([]string, 0, len(rep.ByReason))
		for r, n := range rep.ByReason {
			reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
		}
		sort.Strings(reasons)
		fmt.Fprintf(w, "dropped by reason: %s\n", strings.Join(reasons, ", "))
	}
	stops := make([]string, 0, len(rep.Stops))
	for st, n := range rep.Stops {
		stops = append(stops, fmt.Sprintf("%s %d", st, n))
	}
	sort.Strings(stops)
	if len(stops) > 0 {
		fmt.Fprintf(w, "walks ended: %s\n", strings.Join(stops, ", "))
	}
}
