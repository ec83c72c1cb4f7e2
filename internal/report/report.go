// Package report assembles what every score writer presents, from a store and suite or
// predictions files: the runs and their manifests, the ground truth, the answers of each repeat,
// the scores (score.Result per repeat and their aggregate), comparisons of two runs (McNemar,
// paired bootstrap deltas, Youden) and the verdicts themselves; and the one table of metric
// definitions (Metrics) that text, Markdown, CSV and JSON all iterate.
//
// It reads the store through the narrow interfaces it declares (Store, CaseStore) and prints
// nothing: what is worth telling a user is kept as Notes.
package report

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
	"github.com/vulnbench/vulnbench/internal/version"
)

// Store is what a report reads of a store.
type Store interface {
	GetRun(ctx context.Context, id string) (*store.Run, error)
	// Labels calls fn with the scoring fields of each unit's scored verdict, by case and repeat.
	Labels(ctx context.Context, runID string, fn func(verdict.Verdict) error) error
	VerdictStore
}

// VerdictStore is a store's whole verdicts.
type VerdictStore interface {
	// Verdicts calls fn with each unit's scored verdict, whole, by case and repeat.
	Verdicts(ctx context.Context, runID string, fn func(verdict.Verdict) error) error
}

// CaseStore is a store that keeps the cases of each run, in suite order: with one, a stored
// run's ground truth needs no suite file. Report uses it when the Store given also is one.
type CaseStore interface {
	Cases(ctx context.Context, runID string, fn func(*suite.Case) error) error
}

// Report is one assembled report.
type Report struct {
	Scorer    int    // score.Version
	Vulnbench string // the version of the vulnbench that scored
	Options   score.Options
	Truth     *Truth
	Runs      []*Run
	// Comparisons are the pairs of runs compared (see Compare and Report.Compare).
	Comparisons []*Comparison
}

// Kind names a report among the documents commands write (output.Document): a report's scores.
func (*Report) Kind() string { return "scores" }

// Note is something a user should hear about a report: a warning, or a plain note.
type Note struct {
	Warning bool
	Text    string
}

// Run is one column of a report: a stored run, or a predictions file.
type Run struct {
	ID       string             // the run id; for a predictions file, its path
	Name     string             // the column name: the run id, or the file's base name (its path when two clash)
	Subject  string             // as the run was started, e.g. llm, random, predictions:FILE
	Model    string             // the model an llm run asked, e.g. openai:gpt-4o; "" for others
	Stored   *store.Run         // nil for a predictions file
	Manifest *manifest.Manifest // nil for a predictions file or an unreadable manifest
	// Spend is what every attempt of the run used (retries and errors included; its Cost is
	// the run's cost only when Spend.Known) and ROC the curve of its first repeat, filled by
	// Build with Request.Plots (plots.go); nil: not known (a predictions file has no spend), or
	// no curve to draw.
	Spend *store.Spend
	ROC   *ROC
	// PerCase is what the first repeat used and did per case (percase.go), filled by Build
	// with Request.Plots; nil: nothing to draw.
	PerCase *PerCase
	// Groups are the run's scores per group of the cases' language and repository size
	// (DimLanguage, DimRepoSize: groups.go), filled by Build with Request.Plots where the truth
	// has two groups or more.
	Groups map[string][]GroupScore
	// Export is the run's cases and whole verdicts, for export presenters (LoadExport); nil
	// in a scored report.
	Export *Export

	// Answers holds each repeat's answers, indexed like Truth.Cases.
	Answers map[int][]score.Answer
	// Unknown counts verdicts about cases the truth does not have (ignored).
	Unknown int

	Repeats []int             // the repeats scored, ascending
	Results []score.Result    // the score of each repeat, as Repeats
	Agg     *score.Aggregated // over Results when there are several
	// Tiers are the binary scores per CWE tier of each repeat, as Repeats; nil when no verdict of
	// the run was made by matching a finding to its case.
	Tiers []TierScore
	Notes []Note

	ranks map[int][]int8 // per repeat, indexed like Truth.Cases: see rankOf
	// appsecAnswers are the whole verdicts on AppSecBench cases, per repeat and case position;
	// appsec their graded summary per repeat (GradeAppSec); appsecPoints each graded record's
	// points per repeat, by its vul case's position, and appsecPass the rubric's pass mark.
	appsecAnswers map[int]map[int]*verdict.Verdict
	appsec        map[int]*score.AppSec
	appsecPoints  map[int]map[int]float64
	appsecPass    float64
	// ci is the run's bootstrap intervals over its repeats (Score with intervals asked).
	ci *score.CI
}

// Label names the run for a reader: the column name, with subject and model for a stored run.
func (r *Run) Label() string {
	if r.Stored == nil {
		return r.Name
	}
	if r.Model != "" {
		return fmt.Sprintf("%s (%s, %s)", r.Name, r.Subject, r.Model)
	}
	return fmt.Sprintf("%s (%s)", r.Name, r.Subject)
}

// Request says what to assemble.
type Request struct {
	Runs        []string // stored run ids
	Predictions []string // predictions files
	// Suite is the ground truth file. Empty: the first run's own (see RunTruth); every stored
	// run must have judged the same suite either way.
	Suite string
	Keep  Keep
	Score score.Options
	// CI asks for bootstrap intervals of runs with one repeat; nil: none.
	CI *score.CIOptions
	// AppSec grades the answers on AppSecBench records (with its judge and fix checks); nil:
	// the automatic parts of the rubric only.
	AppSec *grade.Grader
	// Reading is how the suite and predictions files are read (--lossy-utf8, and the notes of
	// what their readers accepted); nil: strictly.
	Reading *lineerr.Reading
	// Scans remembers the injection scans of the codes of earlier reports built with it (the
	// board builds one report per run of a suite); nil: every case's code scanned.
	Scans *score.InjectionMemo
	// Plots also fills what plots draw: each run's Spend (from a Store that is a SpendStore)
	// and ROC.
	Plots bool
}

// New is a report of runs already scored against t.
func New(t *Truth, opt score.Options, runs ...*Run) *Report {
	return &Report{Scorer: score.Version, Vulnbench: version.String(), Options: opt, Truth: t, Runs: runs}
}

// Build assembles a report: the ground truth, each run's and file's answers, and their scores.
// st may be nil when req names no run.
func Build(ctx context.Context, st Store, req Request) (*Report, error) {
	if len(req.Runs)+len(req.Predictions) == 0 {
		return nil, errors.New("report: no run and no predictions file")
	}
	for i, id := range req.Runs {
		if slices.Contains(req.Runs[:i], id) {
			return nil, fmt.Errorf("report: run %s is named twice", id)
		}
	}
	stored := make([]*store.Run, len(req.Runs))
	for i, id := range req.Runs {
		r, err := st.GetRun(ctx, id)
		if err != nil {
			return nil, err
		}
		stored[i] = r
	}
	var t *Truth
	var err error
	switch {
	case req.Suite != "":
		t, err = loadTruth(req.Suite, req.Keep, req.Reading, req.Scans)
	case len(stored) > 0:
		t, err = RunTruth(ctx, st, stored[0], req.Keep, req.Scans)
	default:
		return nil, errors.New("report: predictions files need a suite file for their ground truth")
	}
	if err != nil {
		return nil, err
	}
	for _, r := range stored {
		if err := CheckSuite(t, r); err != nil {
			return nil, err
		}
	}
	rep := New(t, req.Score)
	for _, r := range stored {
		run, err := loadRun(ctx, st, r, t)
		if err != nil {
			return nil, err
		}
		rep.Runs = append(rep.Runs, run)
	}
	for _, p := range req.Predictions {
		run, err := LoadPredictions(p, t, req.Reading)
		if err != nil {
			return nil, err
		}
		rep.Runs = append(rep.Runs, run)
	}
	if err := nameColumns(rep.Runs); err != nil {
		return nil, err
	}
	for _, run := range rep.Runs {
		g, err := run.grader(ctx, st, t, req.AppSec)
		if err != nil {
			return nil, err
		}
		if err := run.GradeAppSec(ctx, t, g); err != nil {
			return nil, err
		}
		run.Score(t, req.Score, req.CI)
	}
	if req.Plots {
		if err := rep.plots(ctx, st); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// nameColumns gives predictions files whose base names clash their paths as names.
func nameColumns(runs []*Run) error {
	count := map[string]int{}
	for _, r := range runs {
		count[r.Name]++
	}
	for _, r := range runs {
		if r.Stored == nil && count[r.Name] > 1 {
			r.Name = r.ID
		}
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r.Name] {
			return fmt.Errorf("report: two columns would be named %q", r.Name)
		}
		seen[r.Name] = true
	}
	return nil
}

// Notes gathers the notes of every run.
func (r *Report) Notes() []Note {
	var ns []Note
	for _, run := range r.Runs {
		ns = append(ns, run.Notes...)
	}
	return ns
}

// LoadRun reads a stored run and its answers against t (use Run.Score to score them).
func LoadRun(ctx context.Context, st Store, runID string, t *Truth) (*Run, error) {
	r, err := st.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	return loadRun(ctx, st, r, t)
}

func loadRun(ctx context.Context, st Store, r *store.Run, t *Truth) (*Run, error) {
	run := &Run{ID: r.ID, Name: r.ID, Subject: r.Subject, Stored: r, Answers: map[int][]score.Answer{}}
	if m, err := manifest.Read(r.ID, r.Manifest); err == nil {
		run.Manifest = m
		run.Model = m.Settings().Model
		if m.Sandbox == "none" {
			run.Notes = append(run.Notes, Note{Warning: true, Text: fmt.Sprintf("run %s ran with --sandbox none: scanners, git and agents on case code ran on the host, with the whole host in view", r.ID)})
		}
		for _, u := range m.SandboxUnbounded {
			run.Notes = append(run.Notes, Note{Warning: true, Text: fmt.Sprintf("run %s: sandbox bound not enforced: %s", r.ID, u)})
		}
		if u, _ := m.Describe[advisory.DescribeKey].(string); u != "" {
			run.Notes = append(run.Notes, Note{Warning: true, Text: fmt.Sprintf("run %s: %s", r.ID, u)})
		}
	} else {
		run.Notes = append(run.Notes, Note{Warning: true, Text: fmt.Sprintf("run %s: unreadable manifest (%v)", r.ID, errors.Unwrap(err))})
	}
	// Labels reads only the scoring fields; a run that may have matched findings to cases is read
	// whole, for the tier its findings record (scores per tier), and so are VEX suites (small):
	// Labels holds no VEX answer.
	each := st.Labels
	if (run.Manifest != nil && run.Manifest.Describe["matcher"] != nil) || t.HasVEX() || t.HasAppSec() {
		each = st.Verdicts
	}
	if err := each(ctx, r.ID, func(v verdict.Verdict) error { run.add(t, v.CaseID, v); return nil }); err != nil {
		return nil, err
	}
	if run.Unknown > 0 {
		run.Notes = append(run.Notes, Note{Warning: true, Text: fmt.Sprintf("run %s has %d verdicts for cases not in %s (ignored)", r.ID, run.Unknown, t.Source)})
	}
	return run, nil
}

// ProblemsError is a predictions file with problems: nothing of it was scored.
type ProblemsError struct {
	Path     string
	Problems []error // each FILE:LINE: msg
}

func (e *ProblemsError) Error() string {
	return fmt.Sprintf("%s: %d problems; nothing was scored", e.Path, len(e.Problems))
}

// LoadPredictions reads a predictions file's answers against t. A file written by run --out may
// hold several repeats. rd is how it is read (nil: strictly).
func LoadPredictions(path string, t *Truth, rd *lineerr.Reading) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read predictions: %w", err)
	}
	defer f.Close()
	run := &Run{ID: path, Name: filepath.Base(path), Subject: "predictions:" + path, Answers: map[int][]score.Answer{}}
	problems := verdict.ReadPredictions(f, path, rd, func(p verdict.Prediction, _ int) error {
		id := p.CaseID
		if id == "" {
			id = t.byIdx[p.Idx]
		}
		run.add(t, id, p.Verdict)
		return nil
	})
	if len(problems) > 0 {
		return nil, &ProblemsError{Path: path, Problems: problems}
	}
	if run.Unknown > 0 {
		run.Notes = append(run.Notes, Note{Warning: true, Text: fmt.Sprintf("%s has %d predictions for cases not in %s (ignored)", path, run.Unknown, t.Source)})
	}
	return run, nil
}

func (r *Run) add(t *Truth, id string, v verdict.Verdict) {
	i, ok, excluded := t.Find(id)
	if !ok {
		if !excluded {
			r.Unknown++
		}
		return
	}
	as := r.Answers[v.Repeat]
	if as == nil {
		as = make([]score.Answer, len(t.Cases))
		r.Answers[v.Repeat] = as
	}
	as[i] = score.AnswerFor(v, &t.Cases[i])
	r.keepAppSec(t, i, v)
	if rank := rankOf(v); rank != rankNone || r.ranks[v.Repeat] != nil {
		if r.ranks == nil {
			r.ranks = map[int][]int8{}
		}
		rk := r.ranks[v.Repeat]
		if rk == nil {
			rk = make([]int8, len(t.Cases))
			r.ranks[v.Repeat] = rk
		}
		rk[i] = rank
	}
}

// Score scores every repeat (at least one: a run's repeats without a verdict count with every
// case missing) and aggregates them when there are several. Intervals (ci) resample the units
// and, over several repeats, the repeats too (score.RunIntervals); the std over repeats is shown
// beside them.
func (r *Run) Score(t *Truth, opt score.Options, ci *score.CIOptions) {
	keys := make([]int, 0, len(r.Answers))
	for k := range r.Answers {
		keys = append(keys, k)
	}
	if r.Stored != nil {
		for k := 0; k < r.Stored.Repeats; k++ {
			if _, ok := r.Answers[k]; !ok {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		keys = []int{0}
	}
	r.Repeats = keys
	r.Results = make([]score.Result, len(keys))
	for i, k := range keys {
		r.Results[i] = score.Compute(t.Cases, r.Answers[k], opt)
		r.Results[i].AppSec = r.appsec[k]
	}
	r.Tiers = r.tierScores(t, opt, keys)
	r.Agg, r.ci = nil, nil
	if len(r.Results) > 1 {
		a := score.Aggregate(r.Results)
		r.Agg = &a
	}
	if ci != nil {
		answers := make([][]score.Answer, len(keys))
		for i, k := range keys {
			answers[i] = r.Answers[k]
		}
		r.ci = score.RunIntervals(t.Cases, answers, opt, *ci, r.appsecMeans(t, keys)...)
		if len(r.Results) == 1 {
			r.Results[0].CI = r.ci
		}
		if c := r.ci; c.Requested > 0 {
			r.Notes = append(r.Notes, Note{Text: fmt.Sprintf("%s: %d bootstrap resamples instead of %d over %d units (the draw budget)", r.Name, c.Resamples, c.Requested, c.Units)})
		}
	}
}

// First returns the answers and score of the run's lowest repeat, and a note when it has several.
func (r *Run) First() ([]score.Answer, *score.Result, *Note) {
	if len(r.Repeats) == 0 {
		return nil, nil, nil
	}
	var n *Note
	if len(r.Repeats) > 1 {
		n = &Note{Text: fmt.Sprintf("%s has %d repeats: comparing repeat %d", r.Name, len(r.Repeats), r.Repeats[0])}
	}
	return r.Answers[r.Repeats[0]], &r.Results[0], n
}

// Verdicts returns a run's scored verdicts, whole, sorted by case and repeat.
func Verdicts(ctx context.Context, st VerdictStore, runID string) ([]verdict.Verdict, error) {
	var vs []verdict.Verdict
	if err := st.Verdicts(ctx, runID, func(v verdict.Verdict) error {
		vs = append(vs, v)
		return nil
	}); err != nil {
		return nil, err
	}
	slices.SortStableFunc(vs, func(a, b verdict.Verdict) int {
		if a.CaseID != b.CaseID {
			if a.CaseID < b.CaseID {
				return -1
			}
			return 1
		}
		return a.Repeat - b.Repeat
	})
	return vs, nil
}
