package label

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Spec is what Init makes a project of.
type Spec struct {
	ID        string
	SuitePath string
	// Mode is ModeVEX (label every case's category) or ModeAudit (judge the ground truth of
	// Audit cases sampled from the suite).
	Mode  string
	Audit int
	// Annotators label; Adjudicators resolve disagreements (one may be both).
	Annotators, Adjudicators []string
	// Overlap is how many annotators label each case that is not a calibration case (0: 2, or
	// every annotator in audit mode); Calibration how many cases every annotator labels first
	// (0: none).
	Overlap, Calibration int
	Seed                 uint64
	// Advisories, when set, gives each vex case's page its advisories (ranges, symbols).
	Advisories *advisory.DB
	Repos      string
	ShowHints  bool
	Reading    *lineerr.Reading
}

// Link is an annotator's personal link secret, shown once: the store keeps only its hash.
type Link struct {
	Annotator   string
	Token       string
	Adjudicator bool
}

// Init reads the suite, chooses the calibration set and the assignment, and stores the project
// with each annotator's link; the links' secrets are returned, never stored. A suite with
// problems (FILE:LINE) makes no project.
func Init(ctx context.Context, st Store, spec Spec) ([]Link, []error, error) {
	if err := spec.check(); err != nil {
		return nil, nil, err
	}
	var cases []*suite.Case
	hash, problems, err := suite.ScanUnlabelled(spec.SuitePath, spec.Reading, func(c *suite.Case, _ int) error {
		cases = append(cases, c)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for i, c := range cases {
		switch {
		case spec.Mode == ModeVEX && c.Kind != suite.KindVEX:
			problems = append(problems, fmt.Errorf("%s: case %s is a %s case: a vex project labels vex cases (use --audit N to judge other ground truth)", spec.SuitePath, c.ID, c.Kind))
		case spec.Mode == ModeAudit && c.Label == "":
			problems = append(problems, fmt.Errorf("%s: case %s has no ground truth to audit", spec.SuitePath, c.ID))
		}
		if len(problems) > 20 {
			problems = append(problems, fmt.Errorf("%s: ... and more, from case %d on", spec.SuitePath, i+1))
			break
		}
	}
	if len(problems) > 0 {
		return nil, problems, nil
	}
	if len(cases) == 0 {
		return nil, nil, fmt.Errorf("%s holds no case", spec.SuitePath)
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 34))
	order := rng.Perm(len(cases))
	if spec.Mode == ModeAudit {
		if spec.Audit > len(cases) {
			return nil, nil, fmt.Errorf("--audit %d: the suite has %d cases", spec.Audit, len(cases))
		}
		order = order[:spec.Audit]
		slices.Sort(order) // the sample, in the suite's order
	}
	if spec.Calibration > len(order) {
		return nil, nil, fmt.Errorf("--calibration %d: the project has %d cases", spec.Calibration, len(order))
	}
	cfg := Config{Overlap: spec.Overlap, Calibration: spec.Calibration, Audit: spec.Audit, Seed: spec.Seed, Repos: spec.Repos,
		ShowHints: spec.ShowHints, Version: Version}
	calib := map[int]bool{}
	for _, i := range rng.Perm(len(order))[:spec.Calibration] {
		calib[order[i]] = true
	}
	var rows []store.LabelCase
	var assigns []store.LabelAssignment
	slot := 0
	for _, i := range order {
		c := cases[i]
		body, err := json.Marshal(c)
		if err != nil {
			return nil, nil, err
		}
		ctxt, err := json.Marshal(contextOf(c, spec.Advisories))
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, store.LabelCase{ID: c.ID, Ord: i, Calibration: calib[i], Body: body, Context: ctxt})
		who := spec.Annotators
		if !calib[i] {
			who = nil
			for k := 0; k < spec.Overlap; k++ { // round robin: each annotator gets as many cases
				who = append(who, spec.Annotators[(slot*spec.Overlap+k)%len(spec.Annotators)])
			}
			slot++
		}
		for _, a := range who {
			assigns = append(assigns, store.LabelAssignment{Case: c.ID, Annotator: a})
		}
	}
	var links []Link
	var anns []store.LabelAnnotator
	for _, name := range unique(spec.Annotators, spec.Adjudicators) {
		token, hash, err := NewToken()
		if err != nil {
			return nil, nil, err
		}
		adj := slices.Contains(spec.Adjudicators, name)
		links = append(links, Link{Annotator: name, Token: token, Adjudicator: adj})
		anns = append(anns, store.LabelAnnotator{Name: name, TokenHash: hash, Adjudicator: adj})
	}
	cb, err := json.Marshal(cfg)
	if err != nil {
		return nil, nil, err
	}
	p := store.LabelProject{ID: spec.ID, Mode: spec.Mode, SuitePath: spec.SuitePath, SuiteHash: hash, Config: cb}
	if err := st.CreateLabelProject(ctx, p, rows, anns, assigns); err != nil {
		return nil, nil, err
	}
	return links, nil, nil
}

func unique(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// check fills the defaults and refuses what cannot make a project.
func (s *Spec) check() error {
	var errs []error
	if err := checkName("project", s.ID); err != nil {
		errs = append(errs, err)
	}
	if s.Mode == "" {
		s.Mode = ModeVEX
		if s.Audit > 0 {
			s.Mode = ModeAudit
		}
	}
	if s.Mode != ModeVEX && s.Mode != ModeAudit {
		errs = append(errs, fmt.Errorf("mode %q is not vex or audit", s.Mode))
	}
	if s.Mode == ModeAudit && s.Audit < 1 {
		errs = append(errs, errors.New("an audit samples at least 1 case (--audit N)"))
	}
	if len(s.Annotators) == 0 {
		errs = append(errs, errors.New("name the annotators (--annotator NAME, repeated)"))
	}
	seen := map[string]bool{}
	for _, a := range unique(s.Annotators, s.Adjudicators) {
		if err := checkName("annotator", a); err != nil {
			errs = append(errs, err)
		}
		if seen[strings.ToLower(a)] {
			errs = append(errs, fmt.Errorf("annotator %q named twice", a))
		}
		seen[strings.ToLower(a)] = true
	}
	if s.Overlap == 0 {
		s.Overlap = min(2, len(s.Annotators))
		if s.Mode == ModeAudit {
			s.Overlap = len(s.Annotators)
		}
	}
	if s.Overlap < 1 || s.Overlap > len(s.Annotators) {
		errs = append(errs, fmt.Errorf("--overlap %d: each case is labelled by 1 to %d annotators", s.Overlap, len(s.Annotators)))
	}
	if s.Calibration < 0 {
		errs = append(errs, errors.New("--calibration is a number of cases, 0 or more"))
	}
	return errors.Join(errs...)
}

// Context is what a case's page shows beside the case: its advisories, read when the project
// was made (a vex case's CVE and advisory, and the records that alias them).
type Context struct {
	Advisories []Advisory `json:"advisories,omitempty"`
}

// Advisory is what a page shows of an advisory.
type Advisory struct {
	ID         string     `json:"id"`
	Aliases    []string   `json:"aliases,omitempty"`
	Summary    string     `json:"summary,omitempty"`
	Details    string     `json:"details,omitempty"`
	Withdrawn  bool       `json:"withdrawn,omitempty"`
	Affected   []Affected `json:"affected,omitempty"`
	References []string   `json:"references,omitempty"`
}

// Affected is an affected package: its ranges written out and its vulnerable symbols.
type Affected struct {
	Ecosystem string   `json:"ecosystem"`
	Package   string   `json:"package"`
	Ranges    []string `json:"ranges,omitempty"` // "introduced 0, fixed 1.3.0"
	Versions  int      `json:"versions,omitempty"`
	Symbols   []string `json:"symbols,omitempty"`
}

func contextOf(c *suite.Case, db *advisory.DB) Context {
	var out Context
	if db == nil || c.Kind != suite.KindVEX {
		return out
	}
	seen := map[string]bool{}
	var ids []string
	if c.VEX != nil && c.VEX.Advisory != "" {
		ids = append(ids, c.VEX.Advisory)
	}
	ids = append(ids, c.CVE)
	for _, id := range ids {
		as, err := db.Related(id)
		if err != nil {
			continue // an unreadable record: the page says none was found
		}
		for _, a := range as {
			if seen[a.ID] {
				continue
			}
			seen[a.ID] = true
			x := Advisory{ID: a.ID, Aliases: a.Aliases, Summary: a.Summary, Details: clip(a.Details, 6000), Withdrawn: a.IsWithdrawn()}
			for _, af := range a.Affected {
				y := Affected{Ecosystem: af.Ecosystem, Package: af.Package, Versions: len(af.Versions), Symbols: af.Symbols}
				for _, r := range af.Ranges {
					y.Ranges = append(y.Ranges, r.Type+": "+r.EventsText())
				}
				x.Affected = append(x.Affected, y)
			}
			for i, r := range a.References {
				if i == 20 {
					break
				}
				x.References = append(x.References, r)
			}
			out.Advisories = append(out.Advisories, x)
		}
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
