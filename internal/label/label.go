// Package label runs labelling projects over suites, as VEX-Bench's five experts labelled its
// cases and PrimeVul's three annotators audited its labels: named annotators, each reaching the
// viewer through a personal secret link; a calibration set every annotator labels first;
// assigned cases with an overlap; every label an append-only row (who, when, what, the row it
// revises); agreement (Fleiss' kappa over all raters, Cohen's per pair, with bootstrap
// intervals, per category, the raters' confusion, the share confirmed without revision);
// adjudication of disagreements with a reason; and the labelled suite, its ground truth the
// adjudicated label, the other acceptable categories in vex.alternatives and meta.annotation.
// In audit mode annotators judge whether a sample of any suite's ground truth is right, and
// the label accuracy comes with its Wilson interval.
package label

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/textnorm"
)

// Version is bumped whenever the same labels may give other figures or another export.
const Version = "1"

// Store is what the labelling reads and writes of a store.
type Store interface {
	CreateLabelProject(ctx context.Context, p store.LabelProject, cases []store.LabelCase, annotators []store.LabelAnnotator, assigns []store.LabelAssignment) error
	GetLabelProject(ctx context.Context, id string) (*store.LabelProject, error)
	LabelCases(ctx context.Context, project string) ([]store.LabelCase, error)
	LabelAnnotators(ctx context.Context, project string) ([]store.LabelAnnotator, error)
	LabelAnnotatorByToken(ctx context.Context, project, hash string) (*store.LabelAnnotator, error)
	SetLabelToken(ctx context.Context, project, name, hash string) error
	LabelAssignments(ctx context.Context, project string) ([]store.LabelAssignment, error)
	AppendLabels(ctx context.Context, project string, rs []store.LabelRow) ([]store.LabelRow, error)
	LabelRows(ctx context.Context, project string) ([]store.LabelRow, error)
}

// Config is a project's configuration, as stored.
type Config struct {
	Overlap     int    `json:"overlap"`     // annotators per assigned case
	Calibration int    `json:"calibration"` // cases every annotator labels first
	Audit       int    `json:"audit,omitempty"`
	Seed        uint64 `json:"seed"`
	Repos       string `json:"repos,omitempty"`      // where the cases' repositories are (--repos)
	ShowHints   bool   `json:"show_hints,omitempty"` // show tool answers (meta.hints) to annotators
	Version     string `json:"label_version"`
}

// Annotator is one annotator of a project.
type Annotator struct {
	Name        string
	Adjudicator bool
}

// Case is one case of a project with its labels.
type Case struct {
	*suite.Case
	Ord         int
	Calibration bool
	Context     Context
	// Assigned are the annotators who label it (every annotator for a calibration case).
	Assigned []string
	// Labels are each annotator's label rows, oldest first; Adjudications the case's.
	Labels        map[string][]Row
	Adjudications []Row
}

// Row is one label row, read.
type Row struct {
	ID        int64     `json:"id"`
	Case      string    `json:"case"`
	Annotator string    `json:"annotator"`
	Kind      string    `json:"kind"`
	At        time.Time `json:"at"`
	Answer    Answer    `json:"answer"`
	Previous  int64     `json:"previous,omitempty"`
	Source    string    `json:"source"`
}

// Project is a labelling project as stored, with every label row.
type Project struct {
	ID, Mode, SuitePath, SuiteHash string
	Config                         Config
	CreatedAt                      time.Time
	Annotators                     []Annotator
	Cases                          []*Case
	Rows                           []Row
	byCase                         map[string]*Case
}

// Load reads a project and all its rows.
func Load(ctx context.Context, st Store, id string) (*Project, error) {
	sp, err := st.GetLabelProject(ctx, id)
	if err != nil {
		return nil, err
	}
	p := &Project{ID: sp.ID, Mode: sp.Mode, SuitePath: sp.SuitePath, SuiteHash: sp.SuiteHash, CreatedAt: sp.CreatedAt, byCase: map[string]*Case{}}
	if err := json.Unmarshal(sp.Config, &p.Config); err != nil {
		return nil, fmt.Errorf("labelling project %s: unreadable configuration: %w", id, err)
	}
	anns, err := st.LabelAnnotators(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, a := range anns {
		p.Annotators = append(p.Annotators, Annotator{Name: a.Name, Adjudicator: a.Adjudicator})
	}
	cases, err := st.LabelCases(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, sc := range cases {
		c := &Case{Ord: sc.Ord, Calibration: sc.Calibration, Labels: map[string][]Row{}}
		if err := json.Unmarshal(sc.Body, &c.Case); err != nil {
			return nil, fmt.Errorf("labelling project %s: case %s: %w", id, sc.ID, err)
		}
		if err := json.Unmarshal(sc.Context, &c.Context); err != nil {
			return nil, fmt.Errorf("labelling project %s: case %s's context: %w", id, sc.ID, err)
		}
		p.Cases = append(p.Cases, c)
		p.byCase[sc.ID] = c
	}
	assigns, err := st.LabelAssignments(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, a := range assigns {
		if c := p.byCase[a.Case]; c != nil {
			c.Assigned = append(c.Assigned, a.Annotator)
		}
	}
	rows, err := st.LabelRows(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, sr := range rows {
		r := Row{ID: sr.ID, Case: sr.Case, Annotator: sr.Annotator, Kind: sr.Kind, At: sr.At, Previous: sr.Previous, Source: sr.Source}
		if err := json.Unmarshal(sr.Answer, &r.Answer); err != nil {
			return nil, fmt.Errorf("labelling project %s: row %d: %w", id, sr.ID, err)
		}
		p.add(r)
	}
	return p, nil
}

// add files a row in its case.
func (p *Project) add(r Row) {
	p.Rows = append(p.Rows, r)
	c := p.byCase[r.Case]
	if c == nil {
		return
	}
	if r.Kind == KindAdjudication {
		c.Adjudications = append(c.Adjudications, r)
	} else {
		c.Labels[r.Annotator] = append(c.Labels[r.Annotator], r)
	}
}

// Case returns a case of the project, nil when there is none of that id.
func (p *Project) Case(id string) *Case { return p.byCase[id] }

// Annotator returns an annotator of the project.
func (p *Project) Annotator(name string) (Annotator, bool) {
	i := slices.IndexFunc(p.Annotators, func(a Annotator) bool { return a.Name == name })
	if i < 0 {
		return Annotator{}, false
	}
	return p.Annotators[i], true
}

// Labellers are the annotators who label cases (adjudicators only adjudicate unless they are
// assigned cases too).
func (p *Project) Labellers() []string {
	seen := map[string]bool{}
	for _, c := range p.Cases {
		for _, a := range c.Assigned {
			seen[a] = true
		}
	}
	var out []string
	for _, a := range p.Annotators {
		if seen[a.Name] {
			out = append(out, a.Name)
		}
	}
	return out
}

// Current is an annotator's latest label of the case, nil when there is none.
func (c *Case) Current(annotator string) *Row {
	rs := c.Labels[annotator]
	if len(rs) == 0 {
		return nil
	}
	return &rs[len(rs)-1]
}

// Initial is an annotator's first label of the case, nil when there is none.
func (c *Case) Initial(annotator string) *Row {
	rs := c.Labels[annotator]
	if len(rs) == 0 {
		return nil
	}
	return &rs[0]
}

// Adjudication is the case's latest adjudication, nil when there is none.
func (c *Case) Adjudication() *Row {
	if len(c.Adjudications) == 0 {
		return nil
	}
	return &c.Adjudications[len(c.Adjudications)-1]
}

// IsAssigned reports whether annotator labels the case.
func (c *Case) IsAssigned(annotator string) bool { return slices.Contains(c.Assigned, annotator) }

// Done reports whether every annotator assigned the case has labelled it.
func (c *Case) Done() bool {
	for _, a := range c.Assigned {
		if c.Current(a) == nil {
			return false
		}
	}
	return len(c.Assigned) > 0
}

// CalibrationDone reports whether annotator labelled every calibration case.
func (p *Project) CalibrationDone(annotator string) bool {
	for _, c := range p.Cases {
		if c.Calibration && c.IsAssigned(annotator) && c.Current(annotator) == nil {
			return false
		}
	}
	return true
}

// CalibrationComplete reports whether every annotator labelled every calibration case: only
// then is the calibration's agreement shown.
func (p *Project) CalibrationComplete() bool {
	for _, c := range p.Cases {
		if c.Calibration && !c.Done() {
			return false
		}
	}
	return true
}

// Queue is what annotator labels, in order: the calibration cases, then their assigned ones.
func (p *Project) Queue(annotator string) []*Case {
	var cal, rest []*Case
	for _, c := range p.Cases {
		switch {
		case !c.IsAssigned(annotator):
		case c.Calibration:
			cal = append(cal, c)
		default:
			rest = append(rest, c)
		}
	}
	return append(cal, rest...)
}

// Errors of Submit and Adjudicate that a page shows as such.
var (
	ErrNotAssigned    = errors.New("the case is not one of yours")
	ErrCalibration    = errors.New("label the calibration cases first")
	ErrNotAdjudicator = errors.New("only an adjudicator adjudicates")
	ErrInvalid        = errors.New("the label is not complete")
)

// Submit appends annotator's label of a case: previous is the row their form showed (0: none),
// so that a label changed in another window meanwhile is a store.ErrConflict, not a lost
// revision. The answer is checked (ErrInvalid, with what is wrong); a case that is not the
// annotator's is ErrNotAssigned, one outside the calibration set before the annotator finished
// it ErrCalibration.
func (p *Project) Submit(ctx context.Context, st Store, annotator, caseID string, a Answer, previous int64, source string) (Row, error) {
	c := p.byCase[caseID]
	if c == nil || !c.IsAssigned(annotator) {
		return Row{}, fmt.Errorf("%s: %w", caseID, ErrNotAssigned)
	}
	if !c.Calibration && !p.CalibrationDone(annotator) {
		return Row{}, fmt.Errorf("%s: %w", caseID, ErrCalibration)
	}
	if err := check(p.Mode, KindLabel, c.Case, &a); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return p.append(ctx, st, Row{Case: caseID, Annotator: annotator, Kind: KindLabel, Answer: a, Previous: previous, Source: source})
}

// Adjudicate appends an adjudicator's resolution of a case that has labels: the category (or
// judgement) that stands, the alternatives also acceptable, and the reason.
func (p *Project) Adjudicate(ctx context.Context, st Store, adjudicator, caseID string, a Answer, previous int64, source string) (Row, error) {
	who, ok := p.Annotator(adjudicator)
	if !ok || !who.Adjudicator {
		return Row{}, ErrNotAdjudicator
	}
	c := p.byCase[caseID]
	if c == nil {
		return Row{}, fmt.Errorf("no case %q in project %s", caseID, p.ID)
	}
	if len(c.Labels) == 0 {
		return Row{}, fmt.Errorf("%s: %w: nobody labelled it yet", caseID, ErrInvalid)
	}
	if err := check(p.Mode, KindAdjudication, c.Case, &a); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return p.append(ctx, st, Row{Case: caseID, Annotator: adjudicator, Kind: KindAdjudication, Answer: a, Previous: previous, Source: source})
}

func (p *Project) append(ctx context.Context, st Store, r Row) (Row, error) {
	b, err := json.Marshal(r.Answer)
	if err != nil {
		return Row{}, err
	}
	out, err := st.AppendLabels(ctx, p.ID, []store.LabelRow{{Case: r.Case, Annotator: r.Annotator, Kind: r.Kind, Answer: b, Previous: r.Previous, Source: r.Source}})
	if err != nil {
		return Row{}, err
	}
	r.ID, r.At, r.Previous = out[0].ID, out[0].At, out[0].Previous
	p.add(r)
	return r, nil
}

// NewToken is a personal link's secret (256 random bits, URL-safe) and the hash the store keeps.
func NewToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("new link secret: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken is what the store keeps of a link's secret.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// Authenticate returns the annotator of project whose link secret token is; store.ErrNotFound
// when it is no annotator's.
func Authenticate(ctx context.Context, st Store, project, token string) (Annotator, error) {
	if token == "" || len(token) > 128 {
		return Annotator{}, fmt.Errorf("link secret: %w", store.ErrNotFound)
	}
	a, err := st.LabelAnnotatorByToken(ctx, project, HashToken(token))
	if err != nil {
		return Annotator{}, err
	}
	return Annotator{Name: a.Name, Adjudicator: a.Adjudicator}, nil
}

// NewLink replaces an annotator's link secret and returns the new one: the old link stops
// working.
func NewLink(ctx context.Context, st Store, project, annotator string) (string, error) {
	token, hash, err := NewToken()
	if err != nil {
		return "", err
	}
	if err := st.SetLabelToken(ctx, project, annotator, hash); err != nil {
		return "", err
	}
	return token, nil
}

// checkName refuses project and annotator names that cannot be a path segment or a form value.
func checkName(what, s string) error {
	if err := textnorm.CheckID(s); err != nil {
		return fmt.Errorf("%s %q: %w", what, s, err)
	}
	if len(s) > 64 {
		return fmt.Errorf("%s %q is over 64 characters", what, s)
	}
	return nil
}
