package labels_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/label"
)

// The pages over plain HTTP: no session, a wrong secret, a form without its CSRF token, one
// with another annotator's, and a case that is not the annotator's are refused; a post with the
// page's own token is taken.
func TestSessionsAndForms(t *testing.T) {
	f := newFixture(t)
	get := func(c *http.Client, u string) (int, string) {
		t.Helper()
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	post := func(c *http.Client, u string, v url.Values) (int, string) {
		t.Helper()
		resp, err := c.PostForm(u, v)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	client := func(name string) (*http.Client, string) {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		code, body := get(c, f.links[name])
		if code != 200 || !strings.Contains(body, `id="who">`+name) {
			t.Fatalf("%s's link: %d", name, code)
		}
		return c, regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(body)[1]
	}
	if code, body := get(http.DefaultClient, f.srv.URL+"/label/deps/"); code != 403 || !strings.Contains(body, "open the personal link") {
		t.Errorf("no session: %d", code)
	}
	if code, _ := get(http.DefaultClient, f.srv.URL+"/label/deps/login?token=x"); code != 403 {
		t.Errorf("a wrong secret: %d", code)
	}
	ana, anaCSRF := client("ana")
	_, benCSRF := client("ben")
	p := projectCases(t, f)
	k := p.cal[0]
	// Blind by default: the case carries the sca hint, the project does not show hints.
	if code, body := get(ana, f.srv.URL+"/label/deps/case?id="+k); code != 200 || strings.Contains(body, "version matching") || strings.Contains(body, "Tool answers") {
		t.Errorf("a project without --show-hints shows the case's tool answers (%d)", code)
	}
	form := url.Values{"category": {"vulnerable"}, "status": {"exploitable"}, "confidence": {"3"}}
	if code, body := post(ana, f.srv.URL+"/label/deps/case?id="+k, form); code != 403 || !strings.Contains(body, "CSRF token is missing or wrong") {
		t.Errorf("no CSRF token: %d", code)
	}
	form.Set("csrf", benCSRF)
	if code, _ := post(ana, f.srv.URL+"/label/deps/case?id="+k, form); code != 403 {
		t.Errorf("another annotator's CSRF token: %d", code)
	}
	form.Set("csrf", anaCSRF)
	if code, _ := post(ana, f.srv.URL+"/label/deps/case?id="+p.notAna, form); code != 404 {
		t.Errorf("a case that is not ana's: %d", code)
	}
	form.Set("category", "nonsense")
	if code, body := post(ana, f.srv.URL+"/label/deps/case?id="+k, form); code != 400 || !strings.Contains(body, `category &#34;nonsense&#34; is not one of VEX-Bench&#39;s twelve`) {
		t.Errorf("an invalid label: %d", code)
	}
	form.Set("category", "vulnerable")
	if code, _ := post(ana, f.srv.URL+"/label/deps/case?id="+k, form); code != 200 {
		t.Errorf("a label with its token: %d", code)
	}
	if n := rowCount(t, f.st); n != 1 {
		t.Errorf("%d rows, want 1", n)
	}
	// The same form again (previous 0, but a row exists now): a conflict, not a lost revision.
	if code, _ := post(ana, f.srv.URL+"/label/deps/case?id="+k, form); code != 409 {
		t.Errorf("a stale form: %d", code)
	}
	// An annotator does not see the agreement figures or the disagreements.
	for _, path := range []string{"agreement", "adjudicate"} {
		if code, _ := get(ana, f.srv.URL+"/label/deps/"+path); code != 403 {
			t.Errorf("ana's %s: %d", path, code)
		}
	}
}

// A project made with ShowHints shows a case's tool answers (meta.hints) on its page.
func TestHintsShownWhenAsked(t *testing.T) {
	f := newFixture(t)
	links, problems, err := label.Init(t.Context(), f.st, label.Spec{ID: "hinted", SuitePath: f.suite, Annotators: []string{"ana"},
		Overlap: 1, ShowHints: true})
	if err != nil || problems != nil {
		t.Fatal(err, problems)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(f.srv.URL + "/label/hinted/login?token=" + links[0].Token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	p, err := label.Load(t.Context(), f.st, "hinted")
	if err != nil {
		t.Fatal(err)
	}
	resp, err = c.Get(f.srv.URL + "/label/hinted/case?id=" + url.QueryEscape(p.Cases[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"Tool answers", `&#34;sca&#34;: {`, `&#34;answer&#34;: &#34;vulnerable&#34;`, "version matching: example.com/parser 1.2.0 (go.mod:5)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the case page (%d) lacks %q", resp.StatusCode, want)
		}
	}
}
