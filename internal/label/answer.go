package label

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// The modes of a project.
const (
	// ModeVEX: annotators give each case's status and category (VEX-Bench's labelling).
	ModeVEX = "vex"
	// ModeAudit: annotators judge whether each sampled case's ground truth is right
	// (PrimeVul's label-accuracy study).
	ModeAudit = "audit"
)

// The kinds of label row.
const (
	KindLabel        = "label"
	KindAdjudication = "adjudication"
)

// The statuses of a vex answer.
const (
	Exploitable    = "exploitable"
	NotExploitable = "not_exploitable"
)

// The judgements of an audit answer.
const (
	Right  = "right"
	Wrong  = "wrong"
	Unsure = "unsure"
)

// Judgements lists the audit judgements in the form's order.
var Judgements = []string{Right, Wrong, Unsure}

// EvaluatedCategories are the five categories VEX-Bench's ground truth uses, offered first; the
// other seven of the twelve are offered after them.
var EvaluatedCategories = []string{"code_not_reachable", "vulnerable", "requires_configuration", "code_not_present", "requires_environment"}

// OtherCategories are the twelve categories but the five evaluated ones, in VEX-Bench's order.
func OtherCategories() []string {
	var out []string
	for _, c := range suite.VEXCategories {
		if !slices.Contains(EvaluatedCategories, c) {
			out = append(out, c)
		}
	}
	return out
}

// Answer is what one label row says. A vex label: Status, Category, Alternatives, Evidence,
// Confidence, Note. An audit label: Judgement, Correct (what the ground truth should be when it
// is wrong), Note, Confidence. An adjudication: Category (or Judgement) and Alternatives, with
// its Reason.
type Answer struct {
	Status       string     `json:"status,omitempty"`
	Category     string     `json:"category,omitempty"`
	Alternatives []string   `json:"alternatives,omitempty"`
	Evidence     []Evidence `json:"evidence,omitempty"`
	Confidence   int        `json:"confidence,omitempty"` // 1 (a guess) to 5 (certain)
	Judgement    string     `json:"judgement,omitempty"`
	Correct      string     `json:"correct,omitempty"`
	Note         string     `json:"note,omitempty"`
	Reason       string     `json:"reason,omitempty"`
}

// Evidence is a file:line reference into the case's snapshot (Line 0: the file as a whole)
// with what it shows.
type Evidence struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
	Text    string `json:"text,omitempty"`
}

// Limits of what an answer may hold.
const (
	MaxEvidence = 50
	MaxText     = 4000 // characters of a note, a reason or an evidence's text
)

// ParseEvidence reads evidence written one a line: `FILE:LINE[-END] text`, `FILE text` or a
// line of text alone. Blank lines are skipped.
func ParseEvidence(s string) ([]Evidence, error) {
	var out []Evidence
	for i, raw := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		ref, rest, _ := strings.Cut(line, " ")
		e := Evidence{Text: strings.TrimSpace(rest)}
		file, pos, hasPos := strings.Cut(ref, ":")
		switch {
		case hasPos && file != "" && pos != "":
			from, to, isRange := strings.Cut(pos, "-")
			n, err := strconv.Atoi(from)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("evidence line %d: %q: a line number is 1 or more (FILE:LINE or FILE:LINE-END, then the text)", i+1, ref)
			}
			e.File, e.Line = file, n
			if isRange {
				m, err := strconv.Atoi(to)
				if err != nil || m < n {
					return nil, fmt.Errorf("evidence line %d: %q: the range ends at a line at or after %d", i+1, ref, n)
				}
				e.EndLine = m
			}
		case strings.Contains(ref, "/") || strings.Contains(ref, "."):
			e.File = ref
		default:
			e.Text = line
		}
		out = append(out, e)
	}
	return out, nil
}

// String writes evidence as ParseEvidence reads it.
func (e Evidence) String() string {
	ref := e.File
	if e.Line > 0 {
		ref += ":" + strconv.Itoa(e.Line)
		if e.EndLine > e.Line {
			ref += "-" + strconv.Itoa(e.EndLine)
		}
	}
	return strings.TrimSpace(ref + " " + e.Text)
}

// check says what is wrong with an answer of kind for case c in a project of mode, nil when
// nothing is. It also fills what follows from what was given (a vex status from its category).
func check(mode, kind string, c *suite.Case, a *Answer) error {
	var errs []error
	for _, t := range []struct{ name, v string }{{"note", a.Note}, {"reason", a.Reason}} {
		if utf8.RuneCountInString(t.v) > MaxText {
			errs = append(errs, fmt.Errorf("the %s is over %d characters", t.name, MaxText))
		}
	}
	if a.Confidence < 0 || a.Confidence > 5 {
		errs = append(errs, fmt.Errorf("confidence %d is not 1 (a guess) to 5 (certain)", a.Confidence))
	}
	if len(a.Evidence) > MaxEvidence {
		errs = append(errs, fmt.Errorf("%d evidence lines, over %d", len(a.Evidence), MaxEvidence))
	}
	for _, e := range a.Evidence {
		if strings.HasPrefix(e.File, "/") || slices.Contains(strings.Split(e.File, "/"), "..") {
			errs = append(errs, fmt.Errorf("evidence file %q is not a path inside the project", e.File))
		}
		if utf8.RuneCountInString(e.Text) > MaxText {
			errs = append(errs, fmt.Errorf("an evidence text is over %d characters", MaxText))
		}
	}
	vexCase := c.Kind == suite.KindVEX
	switch {
	case mode == ModeVEX || (mode == ModeAudit && kind == KindAdjudication && a.Category != ""):
		if a.Category == "" {
			errs = append(errs, errors.New("choose a category"))
			break
		}
		if !suite.ValidVEXCategory(a.Category) {
			errs = append(errs, fmt.Errorf("category %q is not one of VEX-Bench's twelve", a.Category))
			break
		}
		want := suite.VEXStatus(a.Category)
		if a.Status == "" {
			a.Status = want
		}
		if a.Status != want {
			errs = append(errs, fmt.Errorf("status %s contradicts category %s (only vulnerable is exploitable)", a.Status, a.Category))
		}
		for _, alt := range a.Alternatives {
			switch {
			case !suite.ValidVEXCategory(alt):
				errs = append(errs, fmt.Errorf("further category %q is not one of the twelve", alt))
			case alt == a.Category:
				errs = append(errs, fmt.Errorf("further category %q is the category itself", alt))
			}
		}
		if a.Judgement != "" || a.Correct != "" {
			errs = append(errs, errors.New("a vex label has no judgement"))
		}
	default: // audit
		if !slices.Contains(Judgements, a.Judgement) {
			errs = append(errs, fmt.Errorf("judge the ground truth: right, wrong or unsure (not %q)", a.Judgement))
		}
		if a.Correct != "" {
			switch {
			case a.Judgement != Wrong:
				errs = append(errs, errors.New("what the ground truth should be is asked only when it is wrong"))
			case vexCase && !suite.ValidVEXCategory(a.Correct):
				errs = append(errs, fmt.Errorf("%q is not one of the twelve categories", a.Correct))
			case !vexCase && !suite.Label(a.Correct).Valid():
				errs = append(errs, fmt.Errorf("%q is not vul or ben", a.Correct))
			}
		}
		if a.Category != "" || a.Status != "" || len(a.Alternatives) > 0 {
			errs = append(errs, errors.New("an audit judgement has no category"))
		}
	}
	if kind == KindAdjudication && strings.TrimSpace(a.Reason) == "" {
		errs = append(errs, errors.New("an adjudication needs its reason"))
	}
	if kind == KindLabel && a.Reason != "" {
		errs = append(errs, errors.New("a label has a note, not a reason (reasons are adjudications')"))
	}
	slices.Sort(a.Alternatives)
	a.Alternatives = slices.Compact(a.Alternatives)
	return errors.Join(errs...)
}

// Value is the answer's value that agreement is measured on: the category of a vex answer,
// the judgement of an audit answer.
func (a Answer) Value(mode string) string {
	if mode == ModeAudit && a.Judgement != "" {
		return a.Judgement
	}
	return a.Category
}
