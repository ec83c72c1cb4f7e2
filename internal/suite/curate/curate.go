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
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// Raw is one input line: a function as a fix commit found it. Before is null for a function the
// commit added, After null for one it deleted.
type Raw struct {
	Project    string   `json:"project"`
	CommitID   string   `json:"commit_id"`
	CommitDate string   `json:"commit_date"`
	CVE        string   `json:"cve"`
	CWE        []string `json:"cwe"`
	CVEDesc    string   `json:"cve_desc"`
	File       string   `json:"file"`
	Function   string   `json:"function"`
	Before     *string  `json:"before"`
	After      *string  `json:"after"`
}

// decoded is what a worker makes of one line.
type decoded struct {
	raw                  Raw
	date                 time.Time
	hb, ha               [16]byte
	namesFunc, namesFile bool
	err                  error
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

func (p *pipeline) read(ctx context.Context, in string) error {
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("curate: %w", err)
	}
	defer f.Close()
	p.problems.File = in
	lr := suite.NewLineReader(f, in)
	sw := bufio.NewWriterSize(p.spill, 1<<20)
	var off int64
	put := func(s *string) (int64, int32, error) {
		if s == nil {
			return 0, 0, nil
		}
		o := off
		n, err := sw.WriteString(*s)
		off += int64(n)
		if err != nil {
			return 0, 0, fmt.Errorf("curate: spill: %w", err)
		}
		return o, int32(len(*s)), nil
	}
	commitIdx := map[[2]string]int32{}
	cweIdx := map[string]int32{}
	intern := map[string]string{}
	in2 := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		intern[s] = s
		return s
	}
	lines := 0
	err = suite.DecodeLines(lr, p.opt.Workers, decodeLine, func(d decoded, line int, lerr error) error {
		lines = line
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if lerr == nil && d.err != nil {
			lerr = &suite.LineError{File: in, Line: line, Err: d.err}
		}
		if lerr != nil {
			if p.opt.Strict {
				return lerr
			}
			p.problems.Add(lerr)
			return nil
		}
		r := &d.raw
		key := [2]string{r.Project, r.CommitID}
		ci, ok := commitIdx[key]
		if !ok {
			ci = int32(len(p.commits))
			commitIdx[key] = ci
			p.commits = append(p.commits, commit{project: r.Project, id: r.CommitID, date: r.CommitDate, t: d.date})
		} else if c := &p.commits[ci]; d.date.Before(c.t) {
			c.t, c.date = d.date, r.CommitDate // rows disagree: the commit's earliest date
		}
		ck := strings.Join(r.CWE, ",")
		wi, ok := cweIdx[ck]
		if !ok {
			wi = int32(len(p.cwes))
			cweIdx[ck] = wi
			p.cwes = append(p.cwes, r.CWE)
		}
		w := row{commit: ci, cwe: wi, line: int32(line), cve: in2(r.CVE), file: in2(r.File), function: in2(r.Function),
			hb: d.hb, ha: d.ha, hasB: r.Before != nil, hasA: r.After != nil, namesFunc: d.namesFunc, namesFile: d.namesFile}
		var err error
		if w.offB, w.lenB, err = put(r.Before); err != nil {
			return err
		}
		if w.offA, w.lenA, err = put(r.After); err != nil {
			return err
		}
		p.rows = append(p.rows, w)
		return nil
	})
	if err != nil {
		var le *suite.LineError
		if errors.As(err, &le) {
			return err
		}
		return fmt.Errorf("curate: %w", err)
	}
	if err := sw.Flush(); err != nil {
		return fmt.Errorf("curate: spill: %w", err)
	}
	p.rep.Lines = lines
	p.rep.Records = len(p.rows)
	p.rep.Malformed = p.problems.Len()
	for _, e := range p.problems.List() {
		p.rep.Problems = append(p.rep.Problems, e.Error())
	}
	p.rep.Steps = append(p.rep.Steps, Step{Step: "parse", Unit: "lines", In: p.rep.Records + p.rep.Malformed, Out: p.rep.Records,
		Removed: nonzero(Removal{Reason: "malformed line (see problems)", Count: p.rep.Malformed})})
	return nil
}

func decodeLine(b []byte, _ int) decoded {
	var d decoded
	if err := json.Unmarshal(b, &d.raw); err != nil {
		d.err = describe(err)
		return d
	}
	r := &d.raw
	switch {
	case r.Project == "":
		d.err = errors.New(`missing field "project"`)
	case r.CommitID == "":
		d.err = errors.New(`missing field "commit_id"`)
	case r.CommitDate == "":
		d.err = errors.New(`missing field "commit_date"`)
	case r.File == "":
		d.err = errors.New(`missing field "file"`)
	case r.Function == "":
		d.err = errors.New(`missing field "function"`)
	case r.Before == nil && r.After == nil:
		d.err = errors.New(`"before" and "after" are both null`)
	}
	if d.err != nil {
		return d
	}
	t, err := time.Parse(time.RFC3339, r.CommitDate)
	if err != nil {
		d.err = fmt.Errorf("commit_date %q is not RFC 3339 (like 2016-05-01T12:00:00Z)", r.CommitDate)
		return d
	}
	d.date = t
	for _, w := range r.CWE {
		if !suite.ValidCWE(w) {
			d.err = fmt.Errorf("cwe %q is not like CWE-787", w)
			return d
		}
	}
	if r.Before != nil {
		d.hb = NormHash(*r.Before)
	}
	if r.After != nil {
		d.ha = NormHash(*r.After)
	}
	d.namesFunc = NamesFunction(r.CVEDesc, r.Function)
	d.namesFile = NamesFile(r.CVEDesc, r.File)
	return d
}

func describe(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at column %d: %v", se.Offset, err)
	case errors.As(err, &te):
		return fmt.Errorf("field %q: expected %v, got JSON %s", te.Field, te.Type, te.Value)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// NamesFunction reports whether an NVD description names the function: its name (for C++, the
// part after the last "::") occurs as a whole identifier.
func NamesFunction(desc, function string) bool {
	if i := strings.LastIndex(function, "::"); i >= 0 {
		function = function[i+2:]
	}
	return containsWord(desc, function, isIdent, isIdent)
}

// NamesFile reports whether an NVD description names the file: its base name (like parser.c)
// occurs with no path-name character before it (a directory before it is fine) and no
// identifier character after it.
func NamesFile(desc, file string) bool {
	base := filepath.Base(strings.ReplaceAll(file, `\`, "/"))
	if base == "." || base == "/" {
		return false
	}
	before := func(c byte) bool { return isIdent(c) || c == '.' || c == '-' }
	return containsWord(desc, base, before, isIdent)
}

func containsWord(s, w string, badBefore, badAfter func(byte) bool) bool {
	if w == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !badBefore(s[j-1])) && (end == len(s) || !badAfter(s[end])) {
			return true
		}
		i = j + 1
	}
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

func (p *pipeline) text(buf []byte, off int64, n int32) ([]byte, error) {
	buf = slices.Grow(buf[:0], int(n))[:n]
	if _, err := p.spill.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, fmt.Errorf("curate: read spill: %w", err)
	}
	return buf, nil
}

// caseID is stable: a hash of the project, commit, file, function, version and normalised text.
func (p *pipeline) caseID(c *candidate) string {
	if c.id != "" {
		return c.id
	}
	r := &p.rows[c.row]
	cm := &p.commits[r.commit]
	h := sha256.New()
	version := "before"
	if c.after {
		version = "after"
	}
	for _, s := range []string{cm.project, cm.id, r.file, r.function, version, hex.EncodeToString(c.hash[:])} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	c.id = "pv-" + hex.EncodeToString(h.Sum(nil))[:20]
	return c.id
}

func language(file string) string {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".c++":
		return "cpp"
	}
	return ""
}

func (p *pipeline) write(dir string, cands []candidate) error {
	var buf []byte
	emit := func(w *suite.Writer, c *candidate) error {
		r := &p.rows[c.row]
		cm := &p.commits[r.commit]
		off, n, label, version := r.offB, r.lenB, suite.Ben, "before"
		if c.after {
			off, n, version = r.offA, r.lenA, "after"
		}
		if c.vul {
			label = suite.Vul
		}
		var err error
		if buf, err = p.text(buf, off, n); err != nil {
			return err
		}
		src := map[string]any{"file": r.file, "function": r.function, "version": version}
		if r.cve != "" {
			src["cve"] = r.cve
		}
		return w.Write(&suite.Case{ID: p.caseID(c), Kind: suite.KindFunction, Label: label, Pair: c.pair,
			Split: suite.Splits[c.split], Project: cm.project, Commit: cm.id, Date: cm.date, Language: language(r.file),
			CWE: p.cwes[r.cwe], CVE: r.cve, Code: string(buf), Source: src, Meta: map[string]any{"rule": c.rule}})
	}
	for s, name := range suite.Splits {
		for _, paired := range []bool{false, true} {
			path := filepath.Join(dir, name+".jsonl")
			if paired {
				path = filepath.Join(dir, name+"_paired.jsonl")
			}
			err := suite.WriteFileAtomic(path, func(f io.Writer) error {
				w := suite.NewWriter(f)
				for i := range cands {
					c := &cands[i]
					if c.drop || int(c.split) != s || (paired && c.pair == "") {
						continue
					}
					if err := emit(w, c); err != nil {
						return fmt.Errorf("write %s: %w", path, err)
					}
				}
				if err := w.Flush(); err != nil {
					return fmt.Errorf("write %s: %w", path, err)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(p.rep, "", "  ")
	if err != nil {
		return fmt.Errorf("curate: report: %w", err)
	}
	return suite.WriteFileAtomic(filepath.Join(dir, "report.json"), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
