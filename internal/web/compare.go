package web

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/textnorm"
)

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
	ra, ea, err := s.runEntry(ctx, a, false, true)
	if err != nil {
		s.fail(w, err)
		return
	}
	rb, eb, err := s.runEntry(ctx, b, false, true)
	if err != nil {
		s.fail(w, err)
		return
	}
	if why := notComparable(ra, rb); why != "" {
		s.bad(w, "%s", why)
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
			AURL: "/runs/" + textnorm.PathSegment(a) + "/case?" + q, BURL: "/runs/" + textnorm.PathSegment(b) + "/case?" + q})
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
		"/runs/" + textnorm.PathSegment(a) + "/cases?" + url.Values{"flip": {b}}.Encode(),
		cmp.ScoresA.PAcc != nil && cmp.ScoresB.PAcc != nil, deref(cmp.ScoresA.PAcc), deref(cmp.ScoresB.PAcc)})
}

// sameSuite reports whether two runs judged the same suite (the same file content), the only
// runs a comparison pairs case by case.
func sameSuite(a, b *store.Run) bool { return a.SuiteHash != "" && a.SuiteHash == b.SuiteHash }

// notComparable says why runs a and b cannot be compared ("" when they can).
func notComparable(a, b *store.Run) string {
	if sameSuite(a, b) {
		return ""
	}
	return fmt.Sprintf("runs %s and %s judged different suites (%s, sha256 %.12s; %s, sha256 %.12s): a comparison pairs the answers of one suite's cases; compare runs of one suite",
		a.ID, b.ID, a.SuitePath, a.SuiteHash, b.SuitePath, b.SuiteHash)
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
