package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/textnorm"
)

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
	f, page, bad, err := s.casesFilter(ctx, run, q, ix)
	if bad != "" {
		s.bad(w, "%s", bad)
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	flip := q.Get("flip")
	pos, total := ix.query(&f)
	pages := max(1, (total+perPage-1)/perPage)
	link := casesLink(id, q)
	rows := caseRows(ix, id, pos)
	cols := caseColumns(&f, link)
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
		if o.ID != id && sameSuite(run, &o.Run) {
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

// casesFilter reads the query of a cases page: the filter, the sort, the run to flip against
// and the page. A query that asks for what cannot be shown returns bad, the message of a 400.
func (s *Server) casesFilter(ctx context.Context, run *store.Run, q url.Values, ix *caseIndex) (f filter, page int, bad string, err error) {
	id := run.ID
	f = filter{lang: -1, sort: q.Get("sort"), desc: q.Get("desc") == "1", limit: perPage}
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
		return f, 0, fmt.Sprintf("label %q is not vul or ben", q.Get("label")), nil
	}
	if f.status, ok = pick("status", statusNames); !ok {
		return f, 0, fmt.Sprintf("status %q is not one of %s", q.Get("status"), strings.Join(statusNames, ", ")), nil
	}
	if f.outcome, ok = pick("outcome", outcomeNames); !ok {
		return f, 0, fmt.Sprintf("outcome %q is not one of %s", q.Get("outcome"), strings.Join(outcomeNames, ", ")), nil
	}
	if v := q.Get("cwe"); v != "" {
		if !slices.Contains(ix.cwes, v) {
			return f, 0, fmt.Sprintf("no case of run %s has CWE %q", id, v), nil
		}
		f.cwe = v
	}
	if v, has := q["lang"]; has && v[0] != "*" {
		f.lang = slices.Index(ix.langs, v[0])
		if f.lang < 0 {
			return f, 0, fmt.Sprintf("no case of run %s has language %q", id, v[0]), nil
		}
	}
	if f.sort != "" && f.sort != "id" && ix.order(f.sort) == nil {
		return f, 0, fmt.Sprintf("cannot sort by %q: use id, label, status, outcome, cwe, lang or tools", f.sort), nil
	}
	flip := q.Get("flip")
	if flip != "" {
		if flip == id {
			return f, 0, "flipped against itself: pick another run", nil
		}
		fr, fe, err := s.runEntry(ctx, flip, false, true)
		if err != nil {
			return f, 0, "", err
		}
		if why := notComparable(run, fr); why != "" {
			return f, 0, why, nil
		}
		f.flip = fe.index
	}
	page = 1
	if v := q.Get("page"); v != "" {
		if page, err = strconv.Atoi(v); err != nil || page < 1 {
			return f, 0, fmt.Sprintf("page %q is not a number from 1", v), nil
		}
	}
	f.offset = (page - 1) * perPage
	return f, page, "", nil
}

// casesLink returns the link to the cases page of run id with the query q changed: a key set
// to "" is removed.
func casesLink(id string, q url.Values) func(change map[string]string) string {
	return func(change map[string]string) string {
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
		return "/runs/" + textnorm.PathSegment(id) + "/cases?" + v.Encode()
	}
}

// caseRows are the table rows of the cases at pos.
func caseRows(ix *caseIndex, id string, pos []uint32) []caseRow {
	rows := make([]caseRow, len(pos))
	for k, i := range pos {
		cid := ix.id(i)
		rows[k] = caseRow{ID: cid, Label: labelNames[ix.label[i]], Status: statusNames[ix.status[i]], Answer: labelNames[ix.pred[i]],
			Outcome: outcomeNames[ix.outcome(i)], CWE: strings.Join(ix.cweLists[ix.cwe[i]], ", "), Lang: ix.langs[ix.lang[i]], Tools: ix.toolCalls(i),
			URL: "/runs/" + textnorm.PathSegment(id) + "/case?" + url.Values{"id": {cid}}.Encode()}
	}
	return rows
}

// caseColumns are the table's headers, each sortable one linking to its sort.
func caseColumns(f *filter, link func(map[string]string) string) []column {
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
	return cols
}
