package report

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Keep says whether a case takes part (--after: dated after a cutoff); nil keeps every case.
type Keep func(*suite.Case) bool

// Truth is the ground truth of a report: the kept cases of a suite, compact enough for millions.
type Truth struct {
	// Source says where the cases came from: a suite file's path, or "run ID in the store".
	Source string
	// Hash is the suite file's sha256, as runs record it.
	Hash string
	// Cases are the kept cases, in suite order; answers are indexed like them.
	Cases []score.Case
	// Total counts the cases read, kept or not; Undated those left out that have no date.
	Total, Undated int

	byID     []int32                // positions in Cases, sorted by case id (stable), nil when Cases are: see Find
	byIdx    map[string]string      // PrimeVul idx -> case id
	excluded map[string]struct{}    // ids left out by keep: their verdicts are ignored silently
	scans    *score.InjectionMemo   // injection scans of codes read before (nil: none kept)
	metas    map[string]*score.Meta // cases share their CWE lists and projects: one Meta per distinct pair
	halves   map[string]half        // jit pair -> its first case seen
	vex      bool                   // some case has a VEX ground-truth category
	appsec   *appsecTruth           // the AppSecBench records, nil without appsec cases
	tooMany  bool                   // more cases than an int32 position holds
	pack     packer                 // the ids of the cases read since the last seal
	pairs    pairIDs                // the pair ids of the cases read, numbered by done
	dims     caseDims               // each case's language and repository size band, for the breakdown figures
}

// packer copies the case ids of a truth into shared strings of up to packChunk bytes: decoded
// one by one, each id sits in its own small allocation along with the bytes of fields the truth
// drops, and those stay alive with it (about 29 bytes a case where the ids hold 19). A case's ID
// is set when its chunk is sealed (seal, and done).
type packer struct {
	buf     []byte
	pending []packed
}

type packed struct {
	i        int32 // position in Cases
	off, end int32 // in buf
}

const packChunk = 64 << 10

func (t *Truth) packID(i int, id string) {
	p := &t.pack
	if len(p.buf)+len(id) > packChunk {
		t.seal()
	}
	off := len(p.buf)
	p.buf = append(p.buf, id...)
	p.pending = append(p.pending, packed{i: int32(i), off: int32(off), end: int32(len(p.buf))})
}

// seal makes one string of the ids packed since the last seal and sets them.
func (t *Truth) seal() {
	p := &t.pack
	s := string(p.buf)
	for _, q := range p.pending {
		t.Cases[q.i].ID = s[q.off:q.end]
	}
	p.buf, p.pending = p.buf[:0], p.pending[:0]
}

// pairIDs holds the pair ids of the cases read, until done numbers the pairs.
type pairIDs struct {
	buf []byte
	end []uint32 // where each id ends in buf
	pos []int32  // the case each id is of
}

func (p *pairIDs) add(i int, pair string) {
	p.buf = append(p.buf, pair...)
	p.end = append(p.end, uint32(len(p.buf)))
	p.pos = append(p.pos, int32(i))
}

func (p *pairIDs) id(k int) []byte {
	start := uint32(0)
	if k > 0 {
		start = p.end[k-1]
	}
	return p.buf[start:p.end[k]]
}

// number gives the cases that share a pair id the same Case.Pair, from 1 in the order of the
// ids (so that cases compare by pair as their ids do).
func (p *pairIDs) number(cases []score.Case) error {
	if len(p.buf) > math.MaxUint32 {
		return fmt.Errorf("the pair ids take more than 4 GiB")
	}
	order := make([]int32, len(p.pos))
	for k := range order {
		order[k] = int32(k)
	}
	byID := func(a, b int32) int { return bytes.Compare(p.id(int(a)), p.id(int(b))) }
	if !slices.IsSortedFunc(order, byID) {
		slices.SortFunc(order, byID)
	}
	n := int32(0)
	for k, o := range order {
		if k == 0 || !bytes.Equal(p.id(int(o)), p.id(int(order[k-1]))) {
			n++
		}
		cases[p.pos[o]].Pair = n
	}
	return nil
}

type half struct {
	i    int
	code string
}

// markIdentical marks both cases of a jit pair whose halves are identical once whitespace is
// removed (SPEC section 2: about 146 JitVul pairs are). The code of the first half is kept until
// the second arrives.
func (t *Truth) markIdentical(c *suite.Case) {
	code := strings.Join(strings.Fields(c.Code), "")
	i := len(t.Cases) - 1
	if t.halves == nil {
		t.halves = map[string]half{}
	}
	h, ok := t.halves[c.Pair]
	if !ok {
		t.halves[c.Pair] = half{i: i, code: code}
		return
	}
	delete(t.halves, c.Pair)
	if h.code == code && code != "" {
		t.Cases[h.i].Identical, t.Cases[i].Identical = true, true
	}
}

// HasVEX reports whether some case has a VEX ground-truth category, so that scoring needs the
// verdicts' VEX answers.
func (t *Truth) HasVEX() bool { return t.vex }

func newTruth(source string, n int, scans *score.InjectionMemo) *Truth {
	return &Truth{Source: source, Cases: make([]score.Case, 0, n),
		byIdx: map[string]string{}, metas: map[string]*score.Meta{}, scans: scans}
}

// done ends reading: it drops what only reading needed and sorts the id index. A sorted slice
// of positions costs 4 bytes a case where a map from id costs about 55; a suite already in id
// order (most are) needs none.
func (t *Truth) done() error {
	if t.tooMany {
		return fmt.Errorf("more than %d cases: split the suite", math.MaxInt32)
	}
	t.seal()
	t.pack = packer{}
	if err := t.pairs.number(t.Cases); err != nil {
		return err
	}
	t.pairs = pairIDs{}
	t.metas, t.halves = nil, nil
	t.byID = nil
	if slices.IsSortedFunc(t.Cases, func(a, b score.Case) int { return strings.Compare(a.ID, b.ID) }) {
		return nil // most suites are: Find searches Cases itself
	}
	t.byID = make([]int32, len(t.Cases))
	for i := range t.byID {
		t.byID[i] = int32(i)
	}
	slices.SortStableFunc(t.byID, func(a, b int32) int { return strings.Compare(t.Cases[a].ID, t.Cases[b].ID) })
	return nil
}

// sorted returns the position of the k-th case in id order.
func (t *Truth) sorted(k int) int {
	if t.byID == nil {
		return k
	}
	return int(t.byID[k])
}

func (t *Truth) add(c *suite.Case, keep Keep) {
	t.Total++
	if keep != nil && !keep(c) {
		if t.excluded == nil {
			t.excluded = map[string]struct{}{}
		}
		t.excluded[c.ID] = struct{}{}
		if c.Date == "" {
			t.Undated++
		}
		return
	}
	var meta *score.Meta
	if len(c.CWE) > 0 || c.Project != "" {
		key := c.Project + "\x00" + strings.Join(c.CWE, ",")
		if meta = t.metas[key]; meta == nil {
			meta = &score.Meta{CWE: c.CWE, Project: c.Project}
			t.metas[key] = meta
		}
	}
	if len(t.Cases) == math.MaxInt32 {
		t.tooMany = true
		return
	}
	inj := t.scans.Scan(c.Code)
	sc := score.Case{Vul: c.Label == suite.Vul, Meta: meta, JIT: c.Kind == suite.KindJIT,
		Injected: inj.Injected, Suspicious: inj.Suspicious}
	if c.Kind == suite.KindVEX && c.VEX != nil {
		sc.VEX = score.VEXCategory(c.VEX.Category)
		sc.VEXAlt = score.VEXAlternatives(c.VEX.Alternatives)
		t.vex = t.vex || sc.VEX > 0
	}
	t.Cases = append(t.Cases, sc)
	t.dims.add(c)
	t.packID(len(t.Cases)-1, c.ID)
	if c.Pair != "" {
		t.pairs.add(len(t.Cases)-1, c.Pair)
	}
	if c.Kind == suite.KindAppSec {
		t.addAppSec(c, len(t.Cases)-1)
	}
	if c.Kind == suite.KindJIT && c.Pair != "" {
		t.markIdentical(c)
	}
	if idx, ok := c.SourceIdx(); ok {
		t.byIdx[idx] = c.ID
	}
}

// Find returns the position of the case with id in Cases; excluded is true when keep left it out.
func (t *Truth) Find(id string) (i int, ok, excluded bool) {
	// the last of the cases with id, as a map filled in suite order would keep
	j := sort.Search(len(t.Cases), func(k int) bool { return t.Cases[t.sorted(k)].ID > id })
	if j > 0 && t.Cases[t.sorted(j-1)].ID == id {
		return t.sorted(j - 1), true, false
	}
	_, ex := t.excluded[id]
	return 0, false, ex
}

// LoadTruth reads the ground truth of the suite file at path, keeping the cases keep says yes to.
// A suite with problems is refused with the first of them. rd is how it is read (nil: strictly).
func LoadTruth(path string, keep Keep, rd *lineerr.Reading) (*Truth, error) {
	return loadTruth(path, keep, rd, nil)
}

func loadTruth(path string, keep Keep, rd *lineerr.Reading, scans *score.InjectionMemo) (*Truth, error) {
	n, err := suite.CountLines(path)
	if err != nil {
		return nil, fmt.Errorf("ground truth: %w", err)
	}
	t := newTruth(path, n, scans)
	hash, problems, err := suite.Scan(path, rd, true, func(c *suite.Case, _ int) error {
		t.add(c, keep)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ground truth: %w", err)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%v (and %d problems in all: vulnbench suite validate %s)", problems[0], len(problems), path)
	}
	t.Hash = hash
	if err := t.done(); err != nil {
		return nil, fmt.Errorf("ground truth: %s: %w", path, err)
	}
	return t, nil
}

// StoredTruth reads the cases stored with run: no suite file is needed. It returns nil, nil when
// the store holds no case of the run (a run stored before cases were). scans remembers the
// injection scans of codes seen before (nil: each case's code scanned).
func StoredTruth(ctx context.Context, cs CaseStore, run *store.Run, keep Keep, scans *score.InjectionMemo) (*Truth, error) {
	n := 0
	if cc, ok := cs.(caseCounter); ok { // sized once: growing a million cases by appends holds old and new arrays
		var err error
		if n, err = cc.CaseCount(ctx, run.ID); err != nil {
			return nil, fmt.Errorf("ground truth of run %s: %w", run.ID, err)
		}
	}
	t := newTruth("run "+run.ID+" in the store", n, scans)
	if err := cs.Cases(ctx, run.ID, func(c *suite.Case) error {
		t.add(c, keep)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("ground truth of run %s: %w", run.ID, err)
	}
	if t.Total == 0 {
		return nil, nil
	}
	t.Hash = run.SuiteHash
	if err := t.done(); err != nil {
		return nil, fmt.Errorf("ground truth of run %s: %w", run.ID, err)
	}
	return t, nil
}

// caseCounter is a CaseStore that counts a run's cases without reading them.
type caseCounter interface {
	CaseCount(ctx context.Context, runID string) (int, error)
}

// RunTruth is the ground truth of a stored run: the cases stored with it when st keeps cases
// (CaseStore), else the suite file its manifest names, which must still be the file it judged.
func RunTruth(ctx context.Context, st Store, run *store.Run, keep Keep, scans *score.InjectionMemo) (*Truth, error) {
	if cs, ok := st.(CaseStore); ok {
		t, err := StoredTruth(ctx, cs, run, keep, scans)
		if err != nil || t != nil {
			return t, err
		}
	}
	t, err := loadTruth(run.SuitePath, keep, nil, scans)
	if err != nil {
		return nil, fmt.Errorf("run %s judged the suite %s: %w (give its suite file with --suite)", run.ID, run.SuitePath, err)
	}
	if err := CheckSuite(t, run); err != nil {
		return nil, err
	}
	return t, nil
}

// CheckSuite refuses a truth read from a suite file other than the one run judged.
func CheckSuite(t *Truth, run *store.Run) error {
	if t.Hash == run.SuiteHash {
		return nil
	}
	return fmt.Errorf("%s (sha256 %.12s) is not the suite run %s judged (sha256 %.12s, %s): the verdicts would be scored against other cases",
		t.Source, t.Hash, run.ID, run.SuiteHash, run.SuitePath)
}
