package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vulnbench/vulnbench/internal/store"
)

// A case page never writes a long text whole (a 7.3 MB function made a 99.8 MB page Chromium
// had not drawn after 120 s): code is shown CodePage lines at a time, a trace TracePage events
// at a time, and a line, an event's text, a raw output or an explanation is cut at CutAt bytes;
// the whole code and each event as stored (trace.MaxContent) are served as plain text
// (/runs/ID/case/code, /runs/ID/case/event).
const (
	CodePage  = 2000
	TracePage = 200
	CutAt     = 16 << 10
)

// pager is the navigation of one paged list: page N of Pages (1-based), the links to the
// pages around it.
type pager struct {
	Page, Pages, First, Last, Total int    // items First..Last (1-based) of Total are shown
	Prev, Next, FirstURL, LastURL   string // "" where there is none
}

// pageOf is page (1-based, clamped) of total items, size a page; link makes a page's URL.
func pageOf(page, total, size int, link func(int) string) (pager, int, int) {
	pages := max(1, (total+size-1)/size)
	page = min(max(page, 1), pages)
	lo, hi := (page-1)*size, min(page*size, total)
	p := pager{Page: page, Pages: pages, First: lo + 1, Last: hi, Total: total}
	if page > 1 {
		p.Prev, p.FirstURL = link(page-1), link(1)
	}
	if page < pages {
		p.Next, p.LastURL = link(page+1), link(pages)
	}
	return p, lo, hi
}

// pageParam reads a page number from the query (1 when absent or not a number).
func pageParam(r *http.Request, name string) int {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// cut is s up to CutAt bytes (on a rune boundary) and how many bytes were left out.
func cut(s string) (string, int) {
	if len(s) <= CutAt {
		return s, 0
	}
	n := CutAt
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], len(s) - n
}

// caseQuery is the query of a case's pages: its id and the pages shown.
func caseQuery(caseID string, kv ...string) url.Values {
	q := url.Values{"id": {caseID}}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

// caseCode serves a case's whole code as plain text.
func (s *Server) caseCode(w http.ResponseWriter, r *http.Request) {
	c, err := s.st.Case(r.Context(), r.PathValue("run"), r.URL.Query().Get("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	plain(w, c.Code)
}

// caseEvent serves one trace event's whole text (its arguments, then its content) as plain text.
func (s *Server) caseEvent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var n [3]int
	for i, k := range []string{"repeat", "attempt", "seq"} {
		v, err := strconv.Atoi(q.Get(k))
		if err != nil || v < 0 {
			s.bad(w, "?%s must be a number, not %q", k, q.Get(k))
			return
		}
		n[i] = v
	}
	evs, err := s.st.TraceEvents(r.Context(), r.PathValue("run"), q.Get("id"), n[0], n[1])
	if err != nil {
		s.fail(w, err)
		return
	}
	for _, e := range evs {
		if e.Seq == n[2] {
			plain(w, strings.Join(nonEmpty(e.Args, e.Content), "\n\n"))
			return
		}
	}
	s.fail(w, fmt.Errorf("event %d of attempt %d of case %s (repeat %d): %w", n[2], n[1], q.Get("id"), n[0], store.ErrNotFound))
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func plain(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(s))
}
