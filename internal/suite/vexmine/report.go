package vexmine

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// WriteCases writes the candidates to path as a suite, atomically.
func (r *Report) WriteCases(path string) error {
	return suite.WriteFileAtomic(path, func(w io.Writer) error {
		sw := suite.NewWriter(w)
		for _, c := range r.Cases {
			if err := sw.Write(c); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
		}
		if err := sw.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	})
}

// WriteDrops writes every drop to path as JSONL, atomically.
func (r *Report) WriteDrops(path string) error {
	return suite.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, d := range r.Drops {
			if err := enc.Encode(d); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
		}
		return nil
	})
}

// Summary is the result of suite mine vex as a document of the output registry: the report, the
// suite file written and the time taken. Text is the one summary line (the report itself goes to
// stderr as WriteText lays it out), JSON the whole report.
type Summary struct {
	*Report
	Out     string
	Elapsed time.Duration
}

// Kind names the document.
func (m Summary) Kind() string { return "mining report" }

// WriteText writes the summary line.
func (m Summary) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s: %d candidates from %d repositories, %d dropped (%s)\n", m.Out, len(m.Cases), len(m.Repos),
		len(m.Drops), m.Elapsed.Round(time.Millisecond))
	return err
}

// JSONValue is the whole report with the suite file, the number of candidates and the drops by
// reason.
func (m Summary) JSONValue() (any, error) {
	return struct {
		Out        string         `json:"out"`
		Candidates int            `json:"candidates"`
		Drops      map[Reason]int `json:"drops"`
		*Report
	}{m.Out, len(m.Cases), m.DropCounts(), m.Report}, nil
}

// WriteText writes what was mined: one line per repository, the drops by reason, then every
// drop (at most maxDrops, 0: all) with its reason.
func (r *Report) WriteText(w io.Writer, maxDrops int) {
	fmt.Fprintf(w, "%d advisory records read", r.Advisories)
	if n := len(r.AdvisoryProblems); n > 0 {
		fmt.Fprintf(w, " (%d could not be read; first: %v)", n, r.AdvisoryProblems[0])
	}
	fmt.Fprintln(w)
	for _, x := range r.Repos {
		pulls := ""
		if x.PullCommits > 0 {
			pulls = fmt.Sprintf(" and %d pull request commits", x.PullCommits)
		}
		fmt.Fprintf(w, "%s: %d first-parent commits from %s%s, %d changing manifests, %d version changes (%d of advised packages): %d candidates, %d dropped\n",
			x.Project, x.Commits, short(x.Head), pulls, x.ManifestCommits, x.Bumps, x.Advised, x.Candidates, sum(x.Drops))
		if x.Err != "" {
			fmt.Fprintf(w, "  not mined to the end: %s\n", x.Err)
		}
		for _, p := range x.Problems {
			fmt.Fprintf(w, "  unreadable manifest %s\n", p)
		}
	}
	counts := r.DropCounts()
	if len(r.Drops) > 0 {
		var parts []string
		for _, reason := range Reasons {
			if n := counts[reason]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", reason, n))
			}
		}
		fmt.Fprintf(w, "dropped %d: %s\n", len(r.Drops), strings.Join(parts, ", "))
	}
	for i, d := range r.Drops {
		if maxDrops > 0 && i == maxDrops {
			fmt.Fprintf(w, "  ... and %d more (--drops FILE writes them all)\n", len(r.Drops)-maxDrops)
			break
		}
		fmt.Fprintf(w, "  %s %s %s %s %s -> %s: %s: %s\n", d.Project, short(d.Commit), d.Bump.Ecosystem, d.Bump.Package, d.Bump.Old, d.Bump.New,
			d.Reason, clipText(d.Detail, 200))
	}
}

func sum(m map[Reason]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// ReadMined reads a case's meta.mined back (a case read from a suite file holds it as JSON
// values); nil when the case was not mined.
func ReadMined(c *suite.Case) (*Mined, error) {
	v, ok := c.Meta["mined"]
	if !ok {
		return nil, nil
	}
	if m, ok := v.(*Mined); ok {
		return m, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m Mined
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("case %s: meta.mined: %w", c.ID, err)
	}
	return &m, nil
}
