// Package labels is the viewer's labelling pages (`vulnbench serve --labels`): each annotator of
// a labelling project (internal/label) reaches them through a personal link, whose secret the
// login page turns into a cookie for that project's pages only; every form post must carry the
// annotator's CSRF token (an HMAC keyed by their secret), besides the Host and origin checks of
// web.Guard that wrap the whole viewer. An annotator sees their queue (the calibration set
// first), each case's snapshot (file tree, code, search), its advisories and manifest lines, and
// their own labels only; adjudicators see the disagreements side by side and resolve them with a
// reason, the agreement figures, and the labelled suite.
package labels

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/vulnbench/vulnbench/internal/label"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/textnorm"
)

// Options tune the pages.
type Options struct {
	// Repos overrides the projects' own --repos (where the cases' repositories are).
	Repos string
	// Snapshots materialises the cases' snapshots for the file tree, code and search; nil: the
	// pages say the code is not available.
	Snapshots *snapshot.Cache
	// Secure marks the cookie Secure (the viewer behind HTTPS).
	Secure bool
}

// Server serves /label/PROJECT/... .
type Server struct {
	st  label.Store
	opt Options
	mux *http.ServeMux
	mu  sync.Mutex // serialises a project's writes with its reloads
}

// New returns the labelling pages over st.
func New(st label.Store, opt Options) *Server {
	s := &Server{st: st, opt: opt, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /label/{project}/login", s.login)
	s.mux.HandleFunc("GET /label/{project}/{$}", s.authed(s.home))
	s.mux.HandleFunc("GET /label/{project}/case", s.authed(s.casePage))
	s.mux.HandleFunc("POST /label/{project}/case", s.authed(s.submit))
	s.mux.HandleFunc("GET /label/{project}/agreement", s.authed(s.agreement))
	s.mux.HandleFunc("GET /label/{project}/adjudicate", s.authed(s.adjudicateList))
	s.mux.HandleFunc("GET /label/{project}/adjudicate/case", s.authed(s.adjudicatePage))
	s.mux.HandleFunc("POST /label/{project}/adjudicate/case", s.authed(s.adjudicate))
	s.mux.HandleFunc("GET /label/{project}/export.jsonl", s.authed(s.export))
	s.mux.HandleFunc("POST /label/{project}/logout", s.authed(s.logout))
	return s
}

// ServeHTTP implements http.Handler with the viewer's headers: no framing, no script, and a
// referrer only to the viewer itself: "no-referrer" would make the browser send "Origin: null"
// with the forms' posts, which web.Guard rightly refuses.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

// cookieName is the cookie of a project's session: one per project, so that an annotator of two
// projects has both.
func cookieName(project string) string {
	sum := sha256.Sum256([]byte(project))
	return "vb_label_" + hex.EncodeToString(sum[:6])
}

// base is a project's pages' path prefix, the project escaped as one segment.
func base(project string) string { return "/label/" + textnorm.PathSegment(project) + "/" }

// Mount returns viewer with the labelling pages of st beside it under /label/, their
// snapshots kept in the user's cache directory (snapshot.DefaultDir) and read from repos (""
// for each project's own).
func Mount(viewer http.Handler, st label.Store, repos string) (http.Handler, error) {
	dir, err := snapshot.DefaultDir()
	if err != nil {
		return nil, err
	}
	cache, err := snapshot.NewCache(dir, snapshot.Options{})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/label/", New(st, Options{Repos: repos, Snapshots: cache}))
	mux.Handle("/", viewer)
	return mux, nil
}

// session is an authenticated request's annotator and the project as it stands.
type session struct {
	project *label.Project
	who     label.Annotator
	token   string
	csrf    string
}

// login turns a personal link into the project's session cookie and sends the annotator on to
// their queue, the secret out of the address bar.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	project := r.PathValue("project")
	token := r.URL.Query().Get("token")
	who, err := label.Authenticate(r.Context(), s.st, project, token)
	if err != nil {
		s.refuse(w, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName(project), Value: token, Path: base(project), HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.opt.Secure})
	_ = who
	http.Redirect(w, r, base(project), http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request, ss *session) {
	http.SetCookie(w, &http.Cookie{Name: cookieName(ss.project.ID), Value: "", Path: base(ss.project.ID), MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	s.render(w, http.StatusOK, "message", page{Title: "Signed out", Message: "You are signed out of " + ss.project.ID + ". Your personal link signs you in again."})
}

// authed runs h with the request's session: the project's cookie must hold an annotator's
// secret; a form post must also carry their CSRF token.
func (s *Server) authed(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		project := r.PathValue("project")
		c, err := r.Cookie(cookieName(project))
		if err != nil {
			s.refuse(w, fmt.Errorf("not signed in: %w", store.ErrNotFound))
			return
		}
		who, err := label.Authenticate(r.Context(), s.st, project, c.Value)
		if err != nil {
			s.refuse(w, err)
			return
		}
		ss := &session{who: who, token: c.Value, csrf: csrfToken(c.Value, project, who.Name)}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			if err := r.ParseForm(); err != nil {
				s.fail(w, http.StatusBadRequest, fmt.Errorf("unreadable form: %w", err))
				return
			}
			if !hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(ss.csrf)) {
				s.fail(w, http.StatusForbidden, errors.New("this form did not come from your labelling page (its CSRF token is missing or wrong): reload the page and submit again"))
				return
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		p, err := label.Load(r.Context(), s.st, project)
		if err != nil {
			s.fail(w, http.StatusInternalServerError, err)
			return
		}
		ss.project = p
		h(w, r, ss)
	}
}

// csrfToken binds a form to its annotator's session: HMAC-SHA256 keyed by their link secret.
func csrfToken(secret, project, annotator string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("vulnbench label form\x00" + project + "\x00" + annotator))
	return hex.EncodeToString(m.Sum(nil))
}

// refuse answers a request without a valid secret: 403 and what to do.
func (s *Server) refuse(w http.ResponseWriter, err error) {
	msg := "This link is not valid for this labelling project: open the personal link you were given (vulnbench label link makes a new one)."
	if !errors.Is(err, store.ErrNotFound) {
		msg = err.Error()
	}
	s.render(w, http.StatusForbidden, "message", page{Title: "403 Forbidden", Message: msg})
}

func (s *Server) fail(w http.ResponseWriter, code int, err error) {
	s.render(w, code, "message", page{Title: fmt.Sprintf("%d %s", code, http.StatusText(code)), Message: err.Error()})
}

// caseURL is a case's page.
func caseURL(project, id string) string { return base(project) + "case?id=" + url.QueryEscape(id) }

func adjURL(project, id string) string {
	return base(project) + "adjudicate/case?id=" + url.QueryEscape(id)
}
