package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// codeLine is one line of a case's code.
type codeLine struct {
	N          int
	Text       string
	Cut        int  // bytes of the line left out (CutAt)
	Hit, Found bool // a target line; a line a finding points at
}

type attemptView struct {
	verdict.Verdict
	Scored bool
	Events []eventView
	// NEvents is the attempt's events, of which Events are the page shown (EventPager).
	NEvents    int
	EventPager pager
	// Raw and Explanation are the verdict's, cut (CutAt); RawCut, ExplanationCut: bytes left out.
	Raw, Explanation       string
	RawCut, ExplanationCut int
}

type eventView struct {
	trace.Event
	Turn int
	// Args and Content are the event's, cut (CutAt); Cut: bytes left out, Full: the whole text.
	Args, Content string
	Cut           int
	Full          string
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
	code, trc := pageParam(r, "code"), pageParam(r, "events")
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
			av := attemptView{Verdict: a, Scored: k == scored, NEvents: len(evs)}
			av.Raw, av.RawCut = cut(a.Raw)
			av.Explanation, av.ExplanationCut = cut(a.Explanation)
			var lo, hi int
			av.EventPager, lo, hi = pageOf(trc, len(evs), TracePage, func(p int) string {
				return runLink(id, caseQuery(caseID, "code", strconv.Itoa(code), "events", strconv.Itoa(p)), "case") + "#attempts"
			})
			turn := 0
			for i, e := range evs {
				if e.Kind == trace.ModelRequest {
					turn++
				}
				if i < lo || i >= hi {
					continue
				}
				ev := eventView{Event: e, Turn: turn}
				var c1, c2 int
				ev.Args, c1 = cut(e.Args)
				ev.Content, c2 = cut(e.Content)
				if ev.Cut = c1 + c2; ev.Cut > 0 {
					ev.Full = runLink(id, caseQuery(caseID, "repeat", strconv.Itoa(rep), "attempt", strconv.Itoa(a.Attempt), "seq", strconv.Itoa(e.Seq)), "case", "event")
				}
				av.Events = append(av.Events, ev)
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
	lines := codeLines(c, found)
	codePager, lo, hi := pageOf(code, len(lines), CodePage, func(p int) string {
		return runLink(id, caseQuery(caseID, "code", strconv.Itoa(p), "events", strconv.Itoa(trc)), "case") + "#code"
	})
	s.render(w, http.StatusOK, "case", struct {
		Title     string
		Run       *store.Run
		Case      *suite.Case
		Lines     []codeLine
		CodePager pager
		WholeCode string
		Truth     string
		Repeats   []repeatView
		Cases     string
	}{"case " + caseID + " of run " + id, run, c, lines[lo:hi], codePager, runLink(id, caseQuery(caseID), "case", "code"),
		string(truth), reps, runLink(id, nil, "cases")})
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
		text, left := cut(l)
		out[i] = codeLine{N: n, Text: text, Cut: left, Hit: n >= lo && n <= hi}
		for _, f := range found {
			end := max(f.EndLine, f.StartLine)
			if f.StartLine > 0 && n >= f.StartLine && n <= end && (c.Target == nil || f.File == "" || f.File == c.Target.File || strings.HasSuffix(c.Target.File, f.File)) {
				out[i].Found = true
			}
		}
	}
	return out
}
