package labels

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/label"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/vexmine"
)

//go:embed labels.tmpl
var tmplText string

var pages = template.Must(template.New("labels").Funcs(template.FuncMap{
	"evaluated": func() []string { return label.EvaluatedCategories },
	"others":    label.OtherCategories,
	"all":       func() []string { return suite.VEXCategories },
	"has":       func(xs []string, x string) bool { return slices.Contains(xs, x) },
	"caseurl":   caseURL,
	"adjurl":    adjURL,
	"kappa": func(v *float64) string {
		if v == nil {
			return "undefined"
		}
		return fmt.Sprintf("%.3f", *v)
	},
	"ci": func(ci *[2]float64) string {
		if ci == nil {
			return ""
		}
		return fmt.Sprintf("[%.3f, %.3f]", ci[0], ci[1])
	},
	"f3":  func(f float64) string { return fmt.Sprintf("%.3f", f) },
	"pct": func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"evidence": func(es []label.Evidence) string {
		var lines []string
		for _, e := range es {
			lines = append(lines, e.String())
		}
		return strings.Join(lines, "\n")
	},
	"join": strings.Join,
	"upto": func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out
	},
}).Parse(tmplText))

// page is every template's data.
type page struct {
	Title, Message string
	Base           string
	Project        *label.Project
	Who            label.Annotator
	CSRF           string
	// the annotator's home
	Queue      []queued
	Done, Todo int
	Locked     bool // the calibration set is not done: the other cases wait
	CalReport  *label.Agreement
	CalPending int // annotators still labelling the calibration set
	Disagree   int
	// a case
	Case    *label.Case
	Mined   *vexmine.Mined
	Hints   string // the case's meta.hints as indented JSON, when the project shows them
	History []label.Row
	Form    form
	Errors  []string
	Saved   bool
	Next    string
	Tree    *treeView
	Pos     int
	// adjudication
	Cases []*label.Case
	Side  []side
	Res   label.Resolution
	// agreement
	Report *label.Report
}

type queued struct {
	Case   *label.Case
	Status string // labelled, todo
	Value  string
}

// side is one annotator's labels of a case, for the adjudicator.
type side struct {
	Annotator string
	Current   label.Answer
	Initial   label.Answer
	Revisions int
}

// form is a label form's values, as shown again after a refused submission.
type form struct {
	Status, Category, Evidence, Note, Judgement, Correct, Reason string
	Alternatives                                                 []string
	Confidence                                                   int
	Previous                                                     int64
}

func formOf(a label.Answer, prev int64) form {
	ev := make([]string, 0, len(a.Evidence))
	for _, e := range a.Evidence {
		ev = append(ev, e.String())
	}
	return form{Status: a.Status, Category: a.Category, Evidence: strings.Join(ev, "\n"), Note: a.Note, Judgement: a.Judgement,
		Correct: a.Correct, Reason: a.Reason, Alternatives: a.Alternatives, Confidence: a.Confidence, Previous: prev}
}

// readForm reads a posted label form.
func readForm(r *http.Request) (form, label.Answer, error) {
	f := form{Status: r.PostForm.Get("status"), Category: r.PostForm.Get("category"), Evidence: r.PostForm.Get("evidence"),
		Note: r.PostForm.Get("note"), Judgement: r.PostForm.Get("judgement"), Correct: r.PostForm.Get("correct"),
		Reason: r.PostForm.Get("reason"), Alternatives: r.PostForm["alt"]}
	f.Confidence, _ = strconv.Atoi(r.PostForm.Get("confidence"))
	f.Previous, _ = strconv.ParseInt(r.PostForm.Get("previous"), 10, 64)
	ev, err := label.ParseEvidence(f.Evidence)
	a := label.Answer{Status: f.Status, Category: f.Category, Alternatives: f.Alternatives, Evidence: ev, Confidence: f.Confidence,
		Judgement: f.Judgement, Correct: f.Correct, Note: strings.TrimSpace(f.Note), Reason: strings.TrimSpace(f.Reason)}
	return f, a, err
}

func (s *Server) render(w http.ResponseWriter, code int, name string, data page) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

func (s *Server) page(ss *session, title string) page {
	return page{Title: title, Base: base(ss.project.ID), Project: ss.project, Who: ss.who, CSRF: ss.csrf}
}

// home is an annotator's queue: the calibration set first, the other cases locked until it is
// done; the calibration's agreement once everyone labelled it.
func (s *Server) home(w http.ResponseWriter, r *http.Request, ss *session) {
	p := ss.project
	pg := s.page(ss, p.ID)
	pg.Locked = !p.CalibrationDone(ss.who.Name)
	for _, c := range p.Queue(ss.who.Name) {
		q := queued{Case: c, Status: "todo"}
		if cur := c.Current(ss.who.Name); cur != nil {
			q.Status, q.Value = "labelled", cur.Answer.Value(p.Mode)
			pg.Done++
		} else {
			pg.Todo++
		}
		pg.Queue = append(pg.Queue, q)
	}
	if p.Config.Calibration > 0 {
		if p.CalibrationComplete() {
			pg.CalReport = p.BuildReport().CalibrationAgreement
		} else {
			for _, a := range p.Labellers() {
				if !p.CalibrationDone(a) {
					pg.CalPending++
				}
			}
		}
	}
	if ss.who.Adjudicator {
		pg.Disagree = len(p.Disagreements(false))
	}
	s.render(w, http.StatusOK, "home", pg)
}

// casePage is a case for its annotator: the snapshot, the advisories, the manifest lines, and
// the form with their current label.
func (s *Server) casePage(w http.ResponseWriter, r *http.Request, ss *session) {
	p := ss.project
	c := p.Case(r.URL.Query().Get("id"))
	if c == nil || !c.IsAssigned(ss.who.Name) {
		s.fail(w, http.StatusNotFound, errors.New("no such case among yours"))
		return
	}
	pg := s.casePageData(r, ss, c)
	pg.Saved = r.URL.Query().Get("saved") == "1"
	if cur := c.Current(ss.who.Name); cur != nil {
		pg.Form = formOf(cur.Answer, cur.ID)
	}
	s.render(w, http.StatusOK, "case", pg)
}

func (s *Server) casePageData(r *http.Request, ss *session, c *label.Case) page {
	p := ss.project
	pg := s.page(ss, c.ID)
	pg.Case = c
	pg.Locked = !c.Calibration && !p.CalibrationDone(ss.who.Name)
	pg.History = c.Labels[ss.who.Name]
	if mi, err := vexmine.ReadMined(c.Case); err == nil {
		pg.Mined = mi
	}
	if h, ok := c.Meta["hints"]; ok && p.Config.ShowHints {
		if b, err := json.MarshalIndent(h, "", "  "); err == nil {
			pg.Hints = string(b)
		}
	}
	q := r.URL.Query()
	from, _ := strconv.Atoi(q.Get("line"))
	to, _ := strconv.Atoi(q.Get("end"))
	pg.Tree = s.tree(r.Context(), p, c, q.Get("dir"), q.Get("file"), q.Get("q"), from, to)
	queue := p.Queue(ss.who.Name)
	for i, x := range queue {
		if x.ID == c.ID {
			pg.Pos = i + 1
			if i+1 < len(queue) {
				pg.Next = caseURL(p.ID, queue[i+1].ID)
			}
		}
	}
	return pg
}

// submit appends the annotator's label and goes on to the next case of their queue; a label
// that is not complete comes back with what is missing, one whose form is older than their
// latest label is refused as a conflict.
func (s *Server) submit(w http.ResponseWriter, r *http.Request, ss *session) {
	p := ss.project
	c := p.Case(r.URL.Query().Get("id"))
	if c == nil || !c.IsAssigned(ss.who.Name) {
		s.fail(w, http.StatusNotFound, errors.New("no such case among yours"))
		return
	}
	f, a, perr := readForm(r)
	var err error
	if perr != nil {
		err = fmt.Errorf("%w: %w", label.ErrInvalid, perr)
	} else {
		_, err = p.Submit(r.Context(), s.st, ss.who.Name, c.ID, a, f.Previous, "viewer")
	}
	switch {
	case err == nil:
		next := caseURL(p.ID, c.ID) + "&saved=1"
		if q := p.Queue(ss.who.Name); !slices.ContainsFunc(q, func(x *label.Case) bool { return x.Current(ss.who.Name) == nil }) {
			next = base(p.ID) // all done
		} else {
			for _, x := range q {
				if x.Current(ss.who.Name) == nil && (x.Calibration || p.CalibrationDone(ss.who.Name)) {
					next = caseURL(p.ID, x.ID)
					break
				}
			}
		}
		http.Redirect(w, r, next, http.StatusSeeOther)
	case errors.Is(err, store.ErrConflict):
		s.fail(w, http.StatusConflict, fmt.Errorf("%w: your label of %s changed in another window; reload the case and submit again", store.ErrConflict, c.ID))
	case errors.Is(err, label.ErrInvalid), errors.Is(err, label.ErrCalibration):
		pg := s.casePageData(r, ss, c)
		pg.Form = f
		pg.Errors = strings.Split(err.Error(), "\n")
		s.render(w, http.StatusBadRequest, "case", pg)
	default:
		s.fail(w, http.StatusInternalServerError, err)
	}
}

// adjudicateList is the disagreements, for an adjudicator.
func (s *Server) adjudicateList(w http.ResponseWriter, r *http.Request, ss *session) {
	if !ss.who.Adjudicator {
		s.fail(w, http.StatusForbidden, label.ErrNotAdjudicator)
		return
	}
	pg := s.page(ss, "Disagreements")
	pg.Cases = ss.project.Disagreements(true)
	s.render(w, http.StatusOK, "disagreements", pg)
}

func (s *Server) adjudicatePage(w http.ResponseWriter, r *http.Request, ss *session) {
	if !ss.who.Adjudicator {
		s.fail(w, http.StatusForbidden, label.ErrNotAdjudicator)
		return
	}
	c := ss.project.Case(r.URL.Query().Get("id"))
	if c == nil {
		s.fail(w, http.StatusNotFound, errors.New("no such case"))
		return
	}
	pg := s.adjudicateData(r, ss, c)
	if adj := c.Adjudication(); adj != nil {
		pg.Form = formOf(adj.Answer, adj.ID)
	}
	s.render(w, http.StatusOK, "adjudicate", pg)
}

func (s *Server) adjudicateData(r *http.Request, ss *session, c *label.Case) page {
	p := ss.project
	pg := s.page(ss, "Adjudicate "+c.ID)
	pg.Case = c
	pg.Res = p.Resolve(c)
	if mi, err := vexmine.ReadMined(c.Case); err == nil {
		pg.Mined = mi
	}
	for _, a := range c.Assigned {
		rs := c.Labels[a]
		if len(rs) == 0 {
			continue
		}
		pg.Side = append(pg.Side, side{Annotator: a, Current: rs[len(rs)-1].Answer, Initial: rs[0].Answer, Revisions: len(rs) - 1})
	}
	pg.History = c.Adjudications
	return pg
}

func (s *Server) adjudicate(w http.ResponseWriter, r *http.Request, ss *session) {
	if !ss.who.Adjudicator {
		s.fail(w, http.StatusForbidden, label.ErrNotAdjudicator)
		return
	}
	p := ss.project
	c := p.Case(r.URL.Query().Get("id"))
	if c == nil {
		s.fail(w, http.StatusNotFound, errors.New("no such case"))
		return
	}
	f, a, perr := readForm(r)
	a.Evidence, a.Confidence, a.Note = nil, 0, ""
	var err error
	if perr != nil {
		err = fmt.Errorf("%w: %w", label.ErrInvalid, perr)
	} else {
		_, err = p.Adjudicate(r.Context(), s.st, ss.who.Name, c.ID, a, f.Previous, "viewer")
	}
	switch {
	case err == nil:
		http.Redirect(w, r, base(p.ID)+"adjudicate", http.StatusSeeOther)
	case errors.Is(err, store.ErrConflict):
		s.fail(w, http.StatusConflict, fmt.Errorf("%w: %s was adjudicated meanwhile; reload it", store.ErrConflict, c.ID))
	case errors.Is(err, label.ErrInvalid):
		pg := s.adjudicateData(r, ss, c)
		pg.Form = f
		pg.Errors = strings.Split(err.Error(), "\n")
		s.render(w, http.StatusBadRequest, "adjudicate", pg)
	default:
		s.fail(w, http.StatusInternalServerError, err)
	}
}

// agreement is the project's report, for adjudicators (annotators see the calibration's on
// their home page once it is complete).
func (s *Server) agreement(w http.ResponseWriter, r *http.Request, ss *session) {
	if !ss.who.Adjudicator {
		s.fail(w, http.StatusForbidden, errors.New("the agreement figures are the adjudicators': annotators stay blind to each other"))
		return
	}
	pg := s.page(ss, "Agreement")
	pg.Report = ss.project.BuildReport()
	s.render(w, http.StatusOK, "agreement", pg)
}

// export is the labelled suite as it stands (settled cases only), for adjudicators.
func (s *Server) export(w http.ResponseWriter, r *http.Request, ss *session) {
	if !ss.who.Adjudicator {
		s.fail(w, http.StatusForbidden, label.ErrNotAdjudicator)
		return
	}
	var b bytes.Buffer
	if _, err := ss.project.Export(&b, true); err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/jsonl; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+strings.NewReplacer(`"`, "", "\\", "", "/", "-").Replace(ss.project.ID)+`.labelled.jsonl"`)
	w.Write(b.Bytes())
}
