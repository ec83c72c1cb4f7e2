package web

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/output/html"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/textnorm"
)

//go:embed web.tmpl
var tmplText string

var pages = template.Must(template.New("web").Funcs(template.FuncMap{
	"seg": textnorm.PathSegment, // an id as one path segment: "/" and ".." escaped
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
	"pts":  func(f float64) string { return fmt.Sprintf("%.1f", 100*f) }, // a difference of percentages, in points (as compare writes it)
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
		if m, err := manifest.Read(r.ID, r.Manifest); err == nil {
			rows[i].Model = m.Settings().Model
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
	stored := make([]store.Run, len(rows))
	for i := range rows {
		stored[i] = rows[i].Run
	}
	var tables []board.HTMLTable
	boardErr := ""
	if len(stored) > 0 {
		b, err := s.leaderboard(r.Context(), stored)
		if err != nil {
			boardErr = err.Error() // the runs list is still worth showing
		}
		tables = boardTables(b)
	}
	s.render(w, http.StatusOK, "runs", struct {
		Title    string
		Runs     []runRow
		Boards   []board.HTMLTable
		BoardErr string
	}{"vulnbench runs", rows, tables, boardErr})
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
	others = slices.DeleteFunc(others, func(o runRow) bool { return o.ID == id || !sameSuite(run, &o.Run) })
	s.render(w, http.StatusOK, "run", struct {
		Title  string
		Run    *store.Run
		Body   template.HTML
		Others []runRow
	}{"run " + id, run, e.body, others})
}
