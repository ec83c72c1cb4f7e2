// Package curate turns raw vulnerability-fix data (one function occurrence in a fix commit per
// JSONL line) into PrimeVul-style suites: de-duplication by the MD5 of the formatting-free text
// (before labelling and again after merging), ONEFUNC and NVDCHECK labelling, a chronological
// 80/10/10 split that keeps every commit in one split, and pairs of a vulnerable function and its
// patched version that share at least 80 % of their tokens. Report counts what each step removed.
//
// Memory: the first pass decodes and hashes lines on every core and spills the texts to a
// temporary file, keeping per function only a compact record (hashes, offsets, names); the
// second pass works on the records and reads back only the texts it writes.
package curate

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// DefaultMinSimilarity is the pair rule's threshold (see Similarity).
const DefaultMinSimilarity = 0.8

// Options are the pipeline's choices.
type Options struct {
	// Strict makes the first malformed line fatal; otherwise malformed lines are skipped and
	// reported.
	Strict bool
	// Workers decode lines in parallel; <= 0 means one per CPU.
	Workers int
	// TempDir holds the text spill file; "" means the output directory.
	TempDir string
	// MinSimilarity is the pair threshold; 0 means DefaultMinSimilarity.
	MinSimilarity float64
}

// row is the compact record kept per function.
type row struct {
	commit               int32
	cwe                  int32
	line                 int32
	cve, file, function  string
	hb, ha               [16]byte
	hasB, hasA           bool
	namesFunc, namesFile bool
	offB, offA           int64
	lenB, lenA           int32
}

func (r *row) changed() bool { return !(r.hasB && r.hasA && r.hb == r.ha) }

type commit struct {
	project, id, date string
	t                 time.Time
}

// Labelling rules and benign kinds, as recorded in a case's meta.rule.
const (
	RuleOneFunc     = "onefunc"
	RuleNVDFunction = "nvdcheck_function"
	RuleNVDFile     = "nvdcheck_file"
	RulePatched     = "patched"
	RuleUnchanged   = "unchanged"
)

// candidate is one case to be: a version of a row.
type candidate struct {
	row   int32
	after bool
	vul   bool
	rule  string
	hash  [16]byte
	drop  bool
	split uint8
	pair  string
	id    string
}

// Curate runs the pipeline on the JSONL file in and writes DIR/{train,valid,test}.jsonl,
// DIR/{train,valid,test}_paired.jsonl and DIR/report.json. Re-runs on the same input write the
// same bytes.
func Curate(ctx context.Context, in, dir string, opt Options) (*Report, error) {
	if opt.MinSimilarity == 0 {
		opt.MinSimilarity = DefaultMinSimilarity
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("curate: %w", err)
	}
	tmpDir := opt.TempDir
	if tmpDir == "" {
		tmpDir = dir
	}
	spill, err := os.CreateTemp(tmpDir, ".curate-spill-*")
	if err != nil {
		return nil, fmt.Errorf("curate: spill file: %w", err)
	}
	defer func() {
		spill.Close()
		os.Remove(spill.Name())
	}()

	p := &pipeline{opt: opt, spill: spill, rep: &Report{MinSimilarity: opt.MinSimilarity, Similarity: SimilarityDefinition}}
	if err := p.read(ctx, in); err != nil {
		return nil, err
	}
	cands := p.label()
	p.dedupAfter(cands)
	p.split(cands)
	if err := p.pair(ctx, cands); err != nil {
		return nil, err
	}
	if err := p.write(dir, cands); err != nil {
		return nil, err
	}
	return p.rep, nil
}

type pipeline struct {
	opt      Options
	spill    *os.File
	rep      *Report
	rows     []row
	commits  []commit
	cwes     [][]string
	problems suite.Problems
}

// order is the rows' chronological order: commit date, project, commit, file, function, line.
func (p *pipeline) order() []int32 {
	idx := make([]int32, len(p.rows))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		ra, rb := &p.rows[a], &p.rows[b]
		if ra.commit != rb.commit {
			if c := p.commitCmp(ra.commit, rb.commit); c != 0 {
				return c
			}
		}
		if c := strings.Compare(ra.file, rb.file); c != 0 {
			return c
		}
		if c := strings.Compare(ra.function, rb.function); c != 0 {
			return c
		}
		return int(ra.line - rb.line)
	})
	return idx
}

func (p *pipeline) commitCmp(a, b int32) int {
	ca, cb := &p.commits[a], &p.commits[b]
	if c := ca.t.Compare(cb.t); c != 0 {
		return c
	}
	if c := strings.Compare(ca.project, cb.project); c != 0 {
		return c
	}
	return strings.Compare(ca.id, cb.id)
}

// label de-duplicates rows, applies ONEFUNC and NVDCHECK, and returns the candidate cases in
// chronological order.
func (p *pipeline) label() []candidate {
	order := p.order()
	// Step 2: a function whose normalised before and after texts both equal an earlier one's is
	// the same change recorded again (a fork, a backport, a second CVE of one commit).
	dup := make([]bool, len(p.rows))
	seen := make(map[[34]byte]struct{}, len(p.rows))
	nDup := 0
	for _, i := range order {
		r := &p.rows[i]
		var k [34]byte
		copy(k[:16], r.hb[:])
		copy(k[16:32], r.ha[:])
		if r.hasB {
			k[32] = 1
		}
		if r.hasA {
			k[33] = 1
		}
		if _, ok := seen[k]; ok {
			dup[i] = true
			nDup++
			continue
		}
		seen[k] = struct{}{}
	}
	seen = nil
	p.rep.Steps = append(p.rep.Steps, Step{Step: "dedup_before_label", Unit: "functions", In: len(p.rows), Out: len(p.rows) - nDup,
		Removed: nonzero(Removal{Reason: "same normalised before and after text (MD5) as an earlier function", Count: nDup})})

	// The commit's shape counts every function it changes, duplicates included: removing a copy
	// must not make another function look like the only one changed.
	changedIn := make([]int32, len(p.commits))
	type cf struct {
		c int32
		f string
	}
	changedInFile := map[cf]int32{}
	for i := range p.rows {
		r := &p.rows[i]
		if r.changed() {
			changedIn[r.commit]++
			changedInFile[cf{r.commit, r.file}]++
		}
	}
	rule := make([]string, len(p.rows))
	hasVul := make([]bool, len(p.commits))
	for i := range p.rows {
		r := &p.rows[i]
		if dup[i] || !r.changed() || !r.hasB {
			continue
		}
		switch {
		case changedIn[r.commit] == 1:
			rule[i] = RuleOneFunc
		case r.namesFunc:
			rule[i] = RuleNVDFunction
		case r.namesFile && changedInFile[cf{r.commit, r.file}] == 1:
			rule[i] = RuleNVDFile
		}
		if rule[i] != "" {
			hasVul[r.commit] = true
		}
	}
	var (
		cands                                 []candidate
		noVulRows, unlabelled, added, deleted int
		kept                                  int
		byRule                                = map[string]int{}
	)
	noVulCommits := map[int32]bool{}
	for _, i := range order {
		r := &p.rows[i]
		if dup[i] {
			continue
		}
		if !hasVul[r.commit] {
			noVulRows++
			noVulCommits[r.commit] = true
			continue
		}
		switch {
		case !r.changed():
			cands = append(cands, candidate{row: i, rule: RuleUnchanged, hash: r.hb})
			byRule[RuleUnchanged]++
		case !r.hasB:
			added++
			continue
		case rule[i] == "":
			unlabelled++
			continue
		default:
			cands = append(cands, candidate{row: i, vul: true, rule: rule[i], hash: r.hb})
			byRule[rule[i]]++
			if r.hasA {
				cands = append(cands, candidate{row: i, after: true, rule: RulePatched, hash: r.ha})
				byRule[RulePatched]++
			} else {
				deleted++
			}
		}
		kept++
	}
	p.rep.Steps = append(p.rep.Steps, Step{Step: "label", Unit: "functions", In: len(p.rows) - nDup, Out: kept,
		Removed: nonzero(
			Removal{Reason: "in a commit where no function is labelled vulnerable by ONEFUNC or NVDCHECK", Count: noVulRows, Commits: len(noVulCommits)},
			Removal{Reason: "changed function that neither rule labels vulnerable", Count: unlabelled},
			Removal{Reason: "function added by the fix (no vulnerable version)", Count: added}),
		Detail: map[string]int{
			"vul_" + RuleOneFunc: byRule[RuleOneFunc], "vul_" + RuleNVDFunction: byRule[RuleNVDFunction], "vul_" + RuleNVDFile: byRule[RuleNVDFile],
			"ben_" + RulePatched: byRule[RulePatched], "ben_" + RuleUnchanged: byRule[RuleUnchanged],
			"vul_deleted_by_fix": deleted, "cases": len(cands),
		}})
	return cands
}

// dedupAfter removes, among the merged cases, every later copy of a normalised text, and every
// copy of a text labelled both vulnerable and benign.
func (p *pipeline) dedupAfter(cands []candidate) {
	type group struct {
		first    int32
		vul, ben bool
	}
	groups := make(map[[16]byte]*group, len(cands))
	for i := range cands {
		c := &cands[i]
		g := groups[c.hash]
		if g == nil {
			g = &group{first: int32(i)}
			groups[c.hash] = g
		}
		if c.vul {
			g.vul = true
		} else {
			g.ben = true
		}
	}
	nDup, nConflict := 0, 0
	for i := range cands {
		c := &cands[i]
		g := groups[c.hash]
		switch {
		case g.vul && g.ben:
			c.drop = true
			nConflict++
		case g.first != int32(i):
			c.drop = true
			nDup++
		}
	}
	p.rep.Steps = append(p.rep.Steps, Step{Step: "dedup_after_merge", Unit: "cases", In: len(cands), Out: len(cands) - nDup - nConflict,
		Removed: nonzero(
			Removal{Reason: "same normalised text (MD5) as an earlier case", Count: nDup},
			Removal{Reason: "same normalised text labelled both vul and ben (every copy)", Count: nConflict})})
}

// split assigns commits, oldest first, to train until 80 % of the cases are assigned, then valid
// until 90 %, then test: a commit goes to the split where its first case falls, whole.
func (p *pipeline) split(cands []candidate) {
	total := 0
	for i := range cands {
		if !cands[i].drop {
			total++
		}
	}
	var sr [3]SplitReport
	for i := range sr {
		sr[i].Split = suite.Splits[i]
	}
	before := 0
	cur := int32(-1)
	var s uint8
	projects := [3]map[string]bool{{}, {}, {}}
	for i := range cands {
		c := &cands[i]
		if c.drop {
			continue
		}
		r := &p.rows[c.row]
		if r.commit != cur {
			cur = r.commit
			switch {
			case 10*before < 8*total:
				s = 0
			case 10*before < 9*total:
				s = 1
			default:
				s = 2
			}
			x := &sr[s]
			x.Commits++
			cm := &p.commits[r.commit]
			if x.From == "" {
				x.From = cm.date
			}
			x.To = cm.date
			projects[s][cm.project] = true
		}
		c.split = s
		before++
		sr[s].Cases++
		if c.vul {
			sr[s].Vul++
		} else {
			sr[s].Ben++
		}
	}
	for i := range sr {
		sr[i].Projects = len(projects[i])
	}
	p.rep.Splits = sr[:]
}

// pair links each vulnerable case to its patched version when both survived and share at least
// MinSimilarity of their tokens.
func (p *pipeline) pair(ctx context.Context, cands []candidate) error {
	after := map[int32]int32{} // row -> index of its surviving after-version
	for i := range cands {
		if c := &cands[i]; c.after && !c.drop {
			after[c.row] = int32(i)
		}
	}
	vul, noPatch, low, paired := 0, 0, 0, 0
	var ta, tb []uint64
	var bufA, bufB []byte
	for i := range cands {
		c := &cands[i]
		if !c.vul || c.drop {
			continue
		}
		vul++
		j, ok := after[c.row]
		if !ok {
			noPatch++
			continue
		}
		if vul%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		r := &p.rows[c.row]
		var err error
		if bufA, err = p.text(bufA, r.offB, r.lenB); err != nil {
			return err
		}
		if bufB, err = p.text(bufB, r.offA, r.lenA); err != nil {
			return err
		}
		ta, tb = Tokens(string(bufA), ta[:0]), Tokens(string(bufB), tb[:0])
		if !AtLeast(ta, tb, p.opt.MinSimilarity) {
			low++
			continue
		}
		paired++
		id := p.caseID(c)
		c.pair = "pair-" + strings.TrimPrefix(id, "pv-")
		cands[j].pair = c.pair
		p.rep.Splits[c.split].Pairs++
	}
	p.rep.Steps = append(p.rep.Steps, Step{Step: "pair", Unit: "vulnerable cases", In: vul, Out: paired,
		Removed: nonzero(
			Removal{Reason: "no patched version (deleted by the fix, or removed as a duplicate)", Count: noPatch},
			Removal{Reason: fmt.Sprintf("patched version shares less than %g%% of the tokens", 100*p.opt.MinSimilarity), Count: low})})
	return nil
}
