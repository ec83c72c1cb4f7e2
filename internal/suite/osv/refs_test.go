package osv_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/suite/osv"
)

// pyweb is a Python project whose releases are tagged: v1.0.0, v1.1.0 (where a change brought
// the bug the records below describe), then one fix per function.
func pyFunc(name string, k int) string {
	return fmt.Sprintf("def %s(x):\n    y = x + %d\n    return y\n\n\n", name, k)
}

func pySource(ks map[string]int) string {
	var b strings.Builder
	for _, n := range []string{"render", "parse_query", "load", "sanitize", "quote", "escape"} {
		b.WriteString(pyFunc(n, ks[n]))
	}
	return b.String()
}

// ghsaFixture builds pyweb under github.com/acme/pyweb (and a clone under gitlab.com) and
// records in the GitHub Advisory Database's layout, one per reference shape.
func ghsaFixture(t *testing.T) (repos, advisories string, c map[string]string) {
	t.Helper()
	root := t.TempDir()
	repos, advisories = filepath.Join(root, "repos"), filepath.Join(root, "advisory-database")
	r := newRepo(t, filepath.Join(repos, "github.com", "acme", "pyweb"))
	c = map[string]string{}
	ks := map[string]int{}
	c["v100"] = r.commit("pyweb", map[string]string{"pyweb/handler.py": pySource(ks), "README.md": "pyweb\n", "tests/test_handler.py": "def test_render():\n    assert True\n"})
	r.git("tag", "v1.0.0")
	ks["render"] = 1
	c["intro"] = r.commit("render: faster", map[string]string{"pyweb/handler.py": pySource(ks)})
	r.git("tag", "v1.1.0")
	c["docs"] = r.commit("docs: security policy", map[string]string{"README.md": "pyweb\n\nReport issues privately.\n"})
	c["tests"] = r.commit("tests: render", map[string]string{"tests/test_handler.py": "def test_render():\n    assert 1\n"})
	for i, fn := range []string{"render", "parse_query", "load", "sanitize", "quote", "escape"} {
		ks[fn] = 10 + i
		c[fn] = r.commit("fix "+fn, map[string]string{"pyweb/handler.py": pySource(ks)})
	}
	r.git("tag", "v1.1.1")
	gl := filepath.Join(repos, "gitlab.com", "acme", "pyweb")
	gittest.Run(t, "", "clone", "-q", "--bare", r.dir, gl)

	gh := "https://github.com/acme/pyweb"
	rec := func(id string, refs ...string) string {
		return fmt.Sprintf(`{
  "schema_version": "1.4.0",
  "id": %q,
  "modified": "2024-05-20T00:00:00Z",
  "published": "2024-05-02T00:00:00Z",
  "aliases": ["CVE-2024-%s"],
  "summary": "pyweb: injection in the handler",
  "affected": [{"package": {"ecosystem": "PyPI", "name": "pyweb"},
    "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "1.1.0"}, {"fixed": "1.1.1"}]}]}],
  "references": [%s],
  "database_specific": {"cwe_ids": ["CWE-79"], "github_reviewed": true}
}`, id, id[5:9], strings.Join(refs, ",\n    "))
	}
	ref := func(typ, url string) string { return fmt.Sprintf(`{"type": %q, "url": %q}`, typ, url) }
	put := func(id string, refs ...string) (string, string) {
		return "github-reviewed/2024/05/" + id + "/" + id + ".json", rec(id, refs...)
	}
	files := map[string]string{}
	for _, x := range [][2]string{
		// a WEB reference to the fix commit, as GitHub's records mark it (the advisory first)
		pair(put("GHSA-aaaa-0001-wwww", ref("ADVISORY", "https://nvd.nist.gov/vuln/detail/CVE-2024-aaaa"), ref("WEB", gh+"/commit/"+c["render"]))),
		// a WEB commit URL with a diff fragment
		pair(put("GHSA-aaaa-0002-wwww", ref("WEB", gh+"/commit/"+c["parse_query"]+"#diff-59130575b4fb2932c957db2922977d7d"))),
		// a PACKAGE reference to the commit
		pair(put("GHSA-aaaa-0003-wwww", ref("PACKAGE", gh+"/commit/"+c["load"]))),
		// an ADVISORY reference to a pull request's commit
		pair(put("GHSA-aaaa-0004-wwww", ref("ADVISORY", gh+"/pull/12/commits/"+c["sanitize"]))),
		// a GitLab merge request's commit, on the GitLab clone
		pair(put("GHSA-aaaa-0005-wwww", ref("WEB", "https://gitlab.com/acme/pyweb/-/merge_requests/3/diffs?commit_id="+c["quote"]))),
		// the commit that brought the bug listed before the fix: release v1.1.0 (affected) holds it
		pair(put("GHSA-aaaa-0006-wwww", ref("WEB", gh+"/commit/"+c["intro"]), ref("WEB", gh+"/commit/"+c["escape"]))),
		// only a docs commit and a tests commit: no fix
		pair(put("GHSA-aaaa-0007-wwww", ref("WEB", gh+"/commit/"+c["docs"]), ref("WEB", gh+"/commit/"+c["tests"]))),
		// near misses that are not commit URLs
		pair(put("GHSA-aaaa-0008-wwww", ref("WEB", gh+"/pull/1991/commits"), ref("WEB", gh+"/commits/v1.1.1"), ref("WEB", gh+"/compare/v1.1.0...v1.1.1"))),
		// a REPORT reference to a commit is not a fix candidate
		pair(put("GHSA-aaaa-0009-wwww", ref("REPORT", gh+"/commit/"+c["render"]))),
	} {
		files[x[0]] = x[1]
	}
	gittest.WriteFiles(t, advisories, files)
	return repos, advisories, c
}

func pair(a, b string) [2]string { return [2]string{a, b} }

// GitHub's advisories name their fix commits in WEB references (issue 35 item 1): each shape of
// reference gives its pair when the commit is in the repository and changes code; the commits a
// record lists that brought the bug (held by an affected release) or touch no code are refused.
func TestBuildGHSAReferenceShapes(t *testing.T) {
	repos, advisories, c := ghsaFixture(t)
	res := build(t, &fixture{repos: repos, advisories: advisories}, osv.Options{})
	want := map[string]string{
		"GHSA-aaaa-0001-wwww": "max-funcs: render->render",
		"GHSA-aaaa-0002-wwww": "max-funcs: parse_query->parse_query",
		"GHSA-aaaa-0003-wwww": "max-funcs: load->load",
		"GHSA-aaaa-0004-wwww": "max-funcs: sanitize->sanitize",
		"GHSA-aaaa-0005-wwww": "max-funcs: quote->quote",
		"GHSA-aaaa-0006-wwww": "max-funcs: escape->escape",
		"GHSA-aaaa-0007-wwww": "drop: no fix commit",
		"GHSA-aaaa-0008-wwww": "drop: no fix commit",
		"GHSA-aaaa-0009-wwww": "drop: no fix commit",
	}
	if d := cmp.Diff(want, summary(res)); d != "" {
		t.Fatalf("outcomes (-want +got):\n%s", d)
	}
	from := map[string][2]string{}
	for _, o := range res.Outcomes {
		for _, p := range o.Pairs {
			m := osvMeta(p.Ben)
			from[o.Record.ID] = [2]string{m["fix_from"].(string), m["fix_commit"].(string)}
			if p.Vul.Repo.Commit != m["parent_commit"] || p.Ben.Repo.Commit != m["fix_commit"] || p.Vul.Language != "python" {
				t.Errorf("%s: %+v %+v", o.Record.ID, p.Vul.Repo, p.Ben.Repo)
			}
		}
	}
	wantFrom := map[string][2]string{
		"GHSA-aaaa-0001-wwww": {"WEB reference", c["render"]},
		"GHSA-aaaa-0002-wwww": {"WEB reference", c["parse_query"]},
		"GHSA-aaaa-0003-wwww": {"PACKAGE reference", c["load"]},
		"GHSA-aaaa-0004-wwww": {"ADVISORY reference", c["sanitize"]},
		"GHSA-aaaa-0005-wwww": {"WEB reference", c["quote"]},
		"GHSA-aaaa-0006-wwww": {"WEB reference", c["escape"]},
	}
	if d := cmp.Diff(wantFrom, from); d != "" {
		t.Errorf("fix sources (-want +got):\n%s", d)
	}
	for id, wantDetail := range map[string][]string{
		"GHSA-aaaa-0007-wwww": {"WEB reference " + c["docs"][:12] + " changes no source code", "WEB reference " + c["tests"][:12] + " changes no source code"},
		"GHSA-aaaa-0008-wwww": {"names no GIT range with a fixed commit and no FIX, WEB, PACKAGE or ADVISORY reference to a commit URL"},
	} {
		d := dropOf(res, id)
		for _, w := range wantDetail {
			if !strings.Contains(d.Detail, w) {
				t.Errorf("%s: %q does not say %q", id, d.Detail, w)
			}
		}
	}
	// Why the introducing commit of GHSA-aaaa-0006 was passed over is not lost: with it alone
	// the record is dropped naming the affected release.
	gittest.WriteFiles(t, advisories, map[string]string{"github-reviewed/2024/05/GHSA-aaaa-0006-wwww/GHSA-aaaa-0006-wwww.json": strings.Replace(
		readFile(t, filepath.Join(advisories, "github-reviewed/2024/05/GHSA-aaaa-0006-wwww/GHSA-aaaa-0006-wwww.json")), c["escape"], c["intro"], 1)})
	res = build(t, &fixture{repos: repos, advisories: advisories}, osv.Options{})
	if d := dropOf(res, "GHSA-aaaa-0006-wwww"); !strings.Contains(d.Detail, c["intro"][:12]+" is in release v1.1.0, and the record says pyweb 1.1.0 is affected: not the fix") {
		t.Errorf("introducing commit: %+v", d)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
