package web

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/output/html"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

//go:embed web.tmpl
var tmplText string

var pages = template.Must(template.New("web").Funcs(template.FuncMap{
	"usd": func(f *float64) string {
		if f == nil {
			return ""
		}
		return fmt.Sprintf("$%.6f", *f)
	},
	"stamp": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	},
	"join": strings.Join,
	"pct":  func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"fmtf": func(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) },
	"deref": func(f *float64) string {
		if f == nil {
			return ""
		}
		return strconv.FormatFloat(*f, 'g', 4, 64)
	},
}).Parse(tmplText))

func (s *Server) render(w http.ResponseWriter, code int, name string, data any) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

func (s *Server) style(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=3600")
	fmt.Fprint(w, html.Style())
}

// runRow is a run as the runs list shows it.
type runRow struct {
	store.Run
	Model string
}

func (s *Server) runRows(ctx context.Context) ([]runRow, error) {
	runs, err := s.st.Runs(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]runRow, len(runs))
	for i, r := range runs {
		rows[i].Run = r
		var m report.Manifest
		if json.Unmarshal(r.Manifest, &m) == nil {
			rows[i].Model = m.Model()
		}
	}
	return rows, nil
}

func (s *Server) runs(w http.ResponseWriter, r *http.Request) {
	rows, err := s.runRows(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	s.render(w, http.StatusOK, "runs", struct {
		Title string
		Runs  []runRow
	}{"vulnbench runs", rows})
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("run")
	run, e, err := s.runEntry(r.Context(), id, true, false)
	if err != nil {
		s.fail(w, err)
		return
	}
	others, err := s.runRows(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	others = slices.DeleteFunc(others, func(o runRow) bool { return o.ID == id })
	s.render(w, http.StatusOK, "run", struct {
		Title  string
		Run    *store.Run
		Body   template.HTML
		Others []runRow
	}{"run " + id, run, e.body, others})
}

// caseRow is one row of a cases table.
type caseRow struct {
	ID, Label, Status, Answer, Outcome, CWE, Lang, URL string
	Tools                                              int32
}

type option struct {
	Value, Text string
	Selected    bool
}

type column struct {
	Name, URL string
	Sorted    string // "", "▲" or "▼"
}

const perPage = 50

func (s *Server) cases(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("run")
	run, e, err := s.runEntry(ctx, id, false, true)
	if err != nil {
		s.fail(w, err)
		return
	}
	ix := e.index
	q := r.URL.Query()
	f := filter{lang: -1, sort: q.Get("sort"), desc: q.Get("desc") == "1", limit: perPage}
	pick := func(name string, names []string) (uint8, bool) {
		v := q.Get(name)
		if v == "" {
			return 0, true
		}
		i := slices.Index(names, v)
		return uint8(i + 1), i >= 0
	}
	var ok bool
	if f.label, ok = pick("label", labelNames); !ok {
		s.bad(w, "label %q is not vul or ben", q.Get("label"))
		return
	}
	if f.status, ok = pick("status", statusNames); !ok {
		s.bad(w, "status %q is not one of %s", q.Get("status"), strings.Join(statusNames, ", "))
		return
	}
	if f.outcome, ok = pick("outcome", outcomeNames); !ok {
		s.bad(w, "outcome %q is not one of %s", q.Get("outcome"), strings.Join(outcomeNames, ", "))
		return
	}
	if v := q.Get("cwe"); v != "" {
		if !slices.Contains(ix.cwes, v) {
			s.bad(w, "no case of run %s has CWE %q", id, v)
			return
		}
		f.cwe = v
	}
	if v, has := q["lang"]; has && v[0] != "*" {
		f.lang = slices.Index(ix.langs, v[0])
		if f.lang < 0 {
			s.bad(w, "no case of run %s has language %q", id, v[0])
			return
		}
	}
	if f.sort != "" && f.sort != "id" && ix.order(f.sort) == nil {
		s.bad(w, "cannot sort by %q: use id, label, status, outcome, cwe, lang or tools", f.sort)
		return
	}
	flip := q.Get("flip")
	if flip != "" {
		if flip == id {
			s.bad(w, "flipped against itself: pick another run")
			return
		}
		_, fe, err := s.runEntry(ctx, flip, false, true)
		if err != nil {
			s.fail(w, err)
			return
		}
		f.flip = fe.index
	}
	page := 1
	if v := q.Get("page"); v != "" {
		if page, err = strconv.Atoi(v); err != nil || page < 1 {
			s.bad(w, "page %q is not a number from 1", v)
			return
		}
	}
	f.offset = (page - 1) * perPage
	pos, total := ix.query(&f)
	pages := max(1, (total+perPage-1)/perPage)

	link := func(change map[string]string) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = slices.Clone(vs)
		}
		for k, x := range change {
			if x == "" {
				v.Del(k)
			} else {
				v.Set(k, x)
			}
		}
		return "/runs/" + url.PathEscape(id) + "/cases?" + v.Encode()
	}
	rows := make([]caseRow, len(pos))
	for k, i := range pos {
		cid := ix.id(i)
		rows[k] = caseRow{ID: cid, Label: labelNames[ix.label[i]], Status: statusNames[ix.status[i]], Answer: labelNames[ix.pred[i]],
			Outcome: outcomeNames[ix.outcome(i)], CWE: strings.Join(ix.cweLists[ix.cwe[i]], ", "), Lang: ix.langs[ix.lang[i]], Tools: ix.tools[i],
			URL: "/runs/" + url.PathEscape(id) + "/case?" + url.Values{"id": {cid}}.Encode()}
	}
	var cols []column
	for _, c := range []struct{ name, key string }{{"case", "id"}, {"label", "label"}, {"status", "status"}, {"answer", ""}, {"outcome", "outcome"}, {"CWE", "cwe"}, {"language", "lang"}, {"tool calls", "tools"}} {
		col := column{Name: c.name}
		if c.key != "" {
			desc := ""
			if f.sort == c.key {
				col.Sorted, desc = "▲", "1"
				if f.desc {
					col.Sorted, desc = "▼", ""
				}
			}
			col.URL = link(map[string]string{"sort": c.key, "desc": desc, "page": ""})
		}
		cols = append(cols, col)
	}
	opts := func(names []string, cur string) []option {
		var out []option
		for _, n := range names {
			if n != "" {
				out = append(out, option{Value: n, Text: n, Selected: n == cur})
			}
		}
		return out
	}
	var langOpts []option
	for _, l := range ix.langs {
		text := l
		if l == "" {
			text = "(none)"
		}
		langOpts = append(langOpts, option{Value: l, Text: text, Selected: f.lang >= 0 && ix.langs[f.lang] == l})
	}
	others, err := s.runRows(ctx)
	if err != nil {
		s.fail(w, err)
		return
	}
	var flipOpts []option
	for _, o := range others {
		if o.ID != id {
			flipOpts = append(flipOpts, option{Value: o.ID, Text: o.ID + " (" + o.Subject + ")", Selected: o.ID == flip})
		}
	}
	data := struct {
		Title                                          string
		Run                                            *store.Run
		Rows                                           []caseRow
		Cols                                           []column
		Total, Page, Pages, First, Last                int
		Prev, Next                                     string
		Labels, Statuses, Outcomes, CWEs, Langs, Flips []option
		Sort, Desc                                     string
		Flip                                           string
	}{Title: "cases of run " + id, Run: run, Rows: rows, Cols: cols, Total: total, Page: page, Pages: pages,
		First: f.offset + 1, Last: f.offset + len(rows),
		Labels: opts(labelNames, q.Get("label")), Statuses: opts(statusNames, q.Get("status")), Outcomes: opts(outcomeNames, q.Get("outcome")),
		CWEs: opts(ix.cwes, f.cwe), Langs: langOpts, Flips: flipOpts, Sort: f.sort, Desc: q.Get("desc"), Flip: flip}
	if page > 1 {
		data.Prev = link(map[string]string{"page": strconv.Itoa(page - 1)})
	}
	if page < pages {
		data.Next = link(map[string]string{"page": strconv.Itoa(page + 1)})
	}
	s.render(w, http.StatusOK, "cases", data)
}

// codeLine is one line of a case's code.
type codeLine struct {
	N          int
	Text       string
	Hit, Found bool // a target line; a line a finding points at
}

type attemptView struct {
	verdict.Verdict
	Scored bool
	Events []eventView
}

type eventView struct {
	trace.Event
	Turn int
}

type repeatView struct {
	Repeat   int
	Attempts []attemptView
}

func (s *Server) oneCase(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("run")
	caseID := r.URL.Query().Get("id")
	if caseID == "" {
		s.bad(w, "which case? add ?id=CASE_ID")
		return
	}
	run, err := s.st.GetRun(ctx, id)
	if err != nil {
		s.fail(w, err)
		return
	}
	c, err := s.st.Case(ctx, id, caseID)
	if err != nil {
		s.fail(w, err)
		return
	}
	var reps []repeatView
	var found []verdict.Finding
	for rep := range max(run.Repeats, 1) {
		as, err := s.st.Attempts(ctx, id, caseID, rep)
		if err != nil {
			s.fail(w, err)
			return
		}
		if len(as) == 0 {
			continue
		}
		rv := repeatView{Repeat: rep}
		scored := len(as) - 1
		for k := len(as) - 1; k >= 0; k-- {
			if as[k].Status != verdict.Error {
				scored = k
				break
			}
		}
		for k, a := range as {
			evs, err := s.st.TraceEvents(ctx, id, caseID, rep, a.Attempt)
			if err != nil {
				s.fail(w, err)
				return
			}
			av := attemptView{Verdict: a, Scored: k == scored}
			turn := 0
			for _, e := range evs {
				if e.Kind == trace.ModelRequest {
					turn++
				}
				av.Events = append(av.Events, eventView{Event: e, Turn: turn})
			}
			rv.Attempts = append(rv.Attempts, av)
		}
		if len(reps) == 0 {
			found = as[scored].Findings
		}
		reps = append(reps, rv)
	}
	truth, _ := json.MarshalIndent(struct {
		VEX    *suite.VEX     `json:"vex,omitempty"`
		AppSec map[string]any `json:"appsec,omitempty"`
		Source map[string]any `json:"source,omitempty"`
		Meta   map[string]any `json:"meta,omitempty"`
	}{c.VEX, c.AppSec, c.Source, c.Meta}, "", "  ")
	s.render(w, http.StatusOK, "case", struct {
		Title   string
		Run     *store.Run
		Case    *suite.Case
		Lines   []codeLine
		Truth   string
		Repeats []repeatView
		Cases   string
	}{"case " + caseID + " of run " + id, run, c, codeLines(c, found), string(truth), reps, "/runs/" + url.PathEscape(id) + "/cases"})
}

// codeLines numbers a case's code from its target's first line (1 without a target), marking
// the target's lines and those a finding points at.
func codeLines(c *suite.Case, found []verdict.Finding) []codeLine {
	if c.Code == "" {
		return nil
	}
	first, lo, hi := 1, 0, -1
	if t := c.Target; t != nil && t.Line > 0 {
		first, lo, hi = t.Line, t.Line, t.EndLine
		if hi < lo {
			hi = lo
		}
	}
	lines := strings.Split(strings.TrimSuffix(c.Code, "\n"), "\n")
	out := make([]codeLine, len(lines))
	for i, l := range lines {
		n := first + i
		out[i] = codeLine{N: n, Text: l, Hit: n >= lo && n <= hi}
		for _, f := range found {
			end := max(f.EndLine, f.StartLine)
			if f.StartLine > 0 && n >= f.StartLine && n <= end && (c.Target == nil || f.File == "" || f.File == c.Target.File || strings.HasSuffix(c.Target.File, f.File)) {
				out[i].Found = true
			}
		}
	}
	return out
}

type flipRow struct {
	ID, Label, A, B, AURL, BURL string
	ARight                      bool
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	a, b := r.URL.Query().Get("a"), r.URL.Query().Get("b")
	if a == "" || b == "" || a == b {
		s.bad(w, "compare two different runs: /compare?a=RUN_A&b=RUN_B")
		return
	}
	_, ea, err := s.runEntry(ctx, a, false, true)
	if err != nil {
		s.fail(w, err)
		return
	}
	_, eb, err := s.runEntry(ctx, b, false, true)
	if err != nil {
		s.fail(w, err)
		return
	}
	cmp, err := s.comparison(ctx, ea, eb)
	if err != nil {
		s.fail(w, err)
		return
	}
	const maxFlips = 500
	var flips []flipRow
	total := 0
	ia, ib := ea.index, eb.index
	for i := range ia.n {
		if !ia.flipped(ib, uint32(i)) {
			continue
		}
		total++
		if len(flips) == maxFlips {
			continue
		}
		cid := ia.id(uint32(i))
		j, _ := ib.find(cid)
		right, _ := ia.correct(uint32(i))
		q := url.Values{"id": {cid}}.Encode()
		flips = append(flips, flipRow{ID: cid, Label: labelNames[ia.label[i]], ARight: right,
			A: answerText(ia, uint32(i)), B: answerText(ib, j),
			AURL: "/runs/" + url.PathEscape(a) + "/case?" + q, BURL: "/runs/" + url.PathEscape(b) + "/case?" + q})
	}
	notes := make([]string, 0, len(cmp.Notes))
	for _, n := range cmp.Notes {
		notes = append(notes, n.Text)
	}
	s.render(w, http.StatusOK, "compare", struct {
		Title    string
		A, B     string
		Cmp      *report.Comparison
		Flips    []flipRow
		Total    int
		More     bool
		Notes    []string
		CasesURL string
		HasPAcc  bool
		PAccA    float64
		PAccB    float64
	}{"compare " + a + " and " + b, a, b, cmp, flips, total, total > len(flips), notes,
		"/runs/" + url.PathEscape(a) + "/cases?" + url.Values{"flip": {b}}.Encode(),
		cmp.ScoresA.PAcc != nil && cmp.ScoresB.PAcc != nil, deref(cmp.ScoresA.PAcc), deref(cmp.ScoresB.PAcc)})
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func answerText(ix *caseIndex, i uint32) string {
	if ix.status[i] != stOK {
		return statusNames[ix.status[i]]
	}
	return labelNames[ix.pred[i]]
}
