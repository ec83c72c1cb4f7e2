// Package importer is the explicit list of dataset importers behind `vulnbench suite import`:
// each reads a public dataset's file and writes a vulnbench suite, reporting every problem with
// its line and what it dropped and why.
package importer

import (
	"fmt"
	"io"
	"strings"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
	"github.com/vulnbench/vulnbench/internal/suite/primevul"
	"github.com/vulnbench/vulnbench/internal/suite/vexbench"
)

// Flag is a string option of one importer.
type Flag struct {
	Name, Default, Usage string
}

// Note is a list the import report shows: what was dropped or doubtful, with how many in all.
type Note struct {
	Header string
	Items  []string // the first items, at least
	Total  int
}

// Result sums up an import.
type Result struct {
	Summary                string // one line about what was read
	Cases, Vul, Ben, Pairs int
	Notes                  []Note
}

// Importer converts one dataset.
type Importer struct {
	Name    string // `vulnbench suite import NAME`
	Summary string // one line for --help
	Long    string
	Example string
	Version string // bumped whenever the cases written for the same input may change
	Flags   []Flag
	// Check validates the flags before anything is read; nil accepts any.
	Check func(flags map[string]string) error
	// Import reads file (open as r), writes cases to w and returns the problems found (as
	// *suite.LineError, FILE:LINE: msg); the caller writes nothing when there are any.
	// rd is how r is read (--lossy-utf8; nil: strictly).
	Import func(r io.Reader, file string, rd *lineerr.Reading, w *suite.Writer, flags map[string]string) (Result, []error, error)
}

// Registry lists the importers vulnbench ships, in the order --help shows them.
func Registry() []Importer {
	return []Importer{primeVul(), jitVul(), vexBench()}
}

// Lookup finds an importer by name.
func Lookup(name string) (Importer, error) {
	var names []string
	for _, im := range Registry() {
		if im.Name == name {
			return im, nil
		}
		names = append(names, im.Name)
	}
	return Importer{}, fmt.Errorf("unknown dataset %q; known: %s", name, strings.Join(names, ", "))
}

func primeVul() Importer {
	return Importer{
		Name:    "primevul",
		Summary: "Import PrimeVul JSONL (original or v0.1 fields, unpaired or paired)",
		Version: "1",
		Long: `Reads a PrimeVul JSONL file (either public field set) and writes a suite of function cases with
ids primevul-<idx>; the idx is kept so PrimeVul's predictions.txt can be scored against the suite.

In paired files (--paired auto: the file name contains "paired") rows are paired by
(project, commit_id), matched by function name when a commit has several pairs, and cross-checked
against consecutive-line pairing; disagreements are reported. Repeated idx values are reported and
dropped. Any malformed line stops the import with FILE:LINE errors and writes nothing.`,
		Example: `  vulnbench suite import primevul --in primevul_test_paired.jsonl --out primevul-test.jsonl`,
		Flags:   []Flag{{Name: "paired", Default: "auto", Usage: `pair rows: auto (when the file name contains "paired"), yes or no`}},
		Check: func(flags map[string]string) error {
			if p := flags["paired"]; p != "auto" && p != "yes" && p != "no" {
				return fmt.Errorf("--paired %q is not auto, yes or no", p)
			}
			return nil
		},
		Import: func(r io.Reader, file string, rd *lineerr.Reading, w *suite.Writer, flags map[string]string) (Result, []error, error) {
			rep, problems, err := primevul.Import(r, file, w, primevul.Options{Paired: flags["paired"], Reading: rd})
			dups := make([]string, len(rep.DuplicateIdx))
			for i, d := range rep.DuplicateIdx {
				dups[i] = fmt.Sprintf("idx %d on line %d (first on line %d)", d.Idx, d.Line, d.First)
			}
			return Result{
				Summary: fmt.Sprintf("read %d rows (%s fields)", rep.Rows, rep.Format),
				Cases:   rep.Cases, Vul: rep.Vul, Ben: rep.Ben, Pairs: rep.Pairs,
				Notes: []Note{
					{Header: fmt.Sprintf("dropped %d rows with a repeated idx:", len(dups)), Items: dups, Total: len(dups)},
					{Header: fmt.Sprintf("%d cases kept without a twin:", len(rep.Unpaired)), Items: rep.Unpaired, Total: len(rep.Unpaired)},
					{Header: fmt.Sprintf("%d line pairs differ between commit grouping (used) and consecutive-line pairing:", rep.DisagreementCount),
						Items: rep.Disagreements, Total: rep.DisagreementCount},
					looksPairedNote(rep),
				},
			}, problems, err
		},
	}
}

// looksPairedNote is the hint for a paired file read unpaired; empty (not printed) otherwise.
func looksPairedNote(rep primevul.Report) Note {
	if !rep.LooksPaired {
		return Note{}
	}
	return Note{Header: `looks paired: use --paired yes (every (project, commit_id) has one vul and one ben row, but the file name lacks "paired")`, Total: 1}
}

func jitVul() Importer {
	return Importer{
		Name:    "jitvul",
		Summary: "Import the public JitVul benchmark (final_benchmark.jsonl): one jit pair per record",
		Version: jitvul.Version,
		Long: `Reads the public JitVul JSONL (PrimeVul v0.1 fields plus the fixing, vulnerable and introducing
commits with their URLs and messages, the vulnerable and non-vulnerable function bodies and the
precomputed caller graphs, callee graphs and function bodies) and writes one pair per record, ids
jitvul-<idx>-vul and jitvul-<idx>-ben: the vul case at the record's introducing commit with the
vulnerable body, the ben case at the fixing commit with the non-vulnerable body. The record's own
commits are kept (its introducing commit is one older than suite jit's rule: SPEC section 2).

Each case keeps its side's precomputed context in meta.context {caller_graph, callee_graph,
function_bodies}, as the record has it, for subjects run with --context precomputed; commit URLs
and messages go to source. Pairs whose halves are equal after whitespace normalisation are
written, marked "identical_halves": true in meta, and listed, so scores can be given with and
without them. Any malformed line stops the import with FILE:LINE errors and writes nothing.`,
		Example: `  vulnbench suite import jitvul --in final_benchmark.jsonl --out jitvul.jsonl`,
		Import: func(r io.Reader, file string, rd *lineerr.Reading, w *suite.Writer, _ map[string]string) (Result, []error, error) {
			rep, problems, err := jitvul.Import(r, file, rd, w)
			return Result{
				Summary: fmt.Sprintf("read %d JitVul records", rep.Records),
				Cases:   2 * rep.Pairs, Vul: rep.Pairs, Ben: rep.Pairs, Pairs: rep.Pairs,
				Notes: []Note{{Header: fmt.Sprintf("%d pairs have identical halves after whitespace normalisation (kept, marked identical_halves in meta):", len(rep.Identical)),
					Items: rep.Identical, Total: len(rep.Identical)}},
			}, problems, err
		},
	}
}

func vexBench() Importer {
	return Importer{
		Name:    "vexbench",
		Summary: "Import VEX-Bench's task file (vex_bench.jsonl): one vex case per task",
		Version: vexbench.Version,
		Long: `Reads VEX-Bench's vex_bench.jsonl and writes one vex case per task, with id task_id, repo (url,
commit), cve, language, vex.category (the ground-truth category), vex.ecosystem and label vul for
exploitable tasks. A pr_url that is not a pull request URL is reported and left out of the case;
any other malformed line stops the import with FILE:LINE errors and writes nothing.`,
		Example: `  vulnbench suite import vexbench --in vex_bench.jsonl --out vex.jsonl`,
		Import: func(r io.Reader, file string, rd *lineerr.Reading, w *suite.Writer, _ map[string]string) (Result, []error, error) {
			rep, problems, err := vexbench.Import(r, file, rd, w)
			bad := make([]string, len(rep.BadPRURLs))
			for i, b := range rep.BadPRURLs {
				bad[i] = fmt.Sprintf("line %d: task %s: pr_url %q", b.Line, b.TaskID, b.PRURL)
			}
			return Result{
				Summary: fmt.Sprintf("read %d tasks", rep.Rows),
				Cases:   rep.Cases, Vul: rep.Vul, Ben: rep.Ben,
				Notes: []Note{{Header: fmt.Sprintf("%d tasks kept without their malformed pr_url:", len(bad)), Items: bad, Total: len(bad)}},
			}, problems, err
		},
	}
}
