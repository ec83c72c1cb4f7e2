package openvex_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	govex "github.com/openvex/go-vex/pkg/vex"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/openvex"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func vexCase(id, cat string) suite.Case {
	l := suite.Ben
	if cat == "vulnerable" {
		l = suite.Vul
	}
	return suite.Case{ID: id, Kind: suite.KindVEX, Label: l, CVE: "CVE-2020-27813",
		Repo: &suite.Repo{URL: "https://github.com/Acme/App", Commit: "abc123"}, VEX: &suite.VEX{Category: cat, Ecosystem: "Go"}}
}

func answer(id string, repeat int, cat string) verdict.Verdict {
	return verdict.Verdict{CaseID: id, Repeat: repeat, Status: verdict.OK, VEX: verdict.VEXAnswer(cat, "")}
}

func build(t *testing.T) *govex.VEX {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "GO-2020-0019.json"), []byte(`{"id":"GO-2020-0019","aliases":["CVE-2020-27813","GHSA-3xh2-74w9-5vxm"],
"summary":"Integer overflow in github.com/gorilla/websocket","affected":[{"package":{"name":"github.com/gorilla/websocket","ecosystem":"Go"}},
{"package":{"name":"websocket","ecosystem":"PyPI"}}]}`), 0o644)
	db, err := advisory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cases := []suite.Case{vexCase("a", "vulnerable"), vexCase("b", "code_not_present"), vexCase("c", "requires_configuration"),
		vexCase("d", "uncertain"), vexCase("e", "code_not_reachable"),
		{ID: "j", Kind: suite.KindJIT, Label: suite.Vul, Target: &suite.Target{Function: "f"}}}
	cases[1].VEX.Package = "golang.org/x/net"
	vs := []verdict.Verdict{
		answer("a", 1, "code_not_present"), answer("a", 0, "vulnerable"),
		answer("b", 0, "code_not_present"),
		{CaseID: "c", Status: verdict.OK, VEX: &verdict.VEX{Category: "requires_configuration", Impact: "needs EnableCompression"}},
		answer("d", 0, "uncertain"),
		{CaseID: "e", Status: verdict.Failed, Reason: "no JSON object"},
		{CaseID: "j", Status: verdict.OK, Label: suite.Vul},
	}
	doc, err := openvex.Build(cases, vs, openvex.Options{RunID: "run 1", Now: now, Tooling: "vulnbench sca", Advisories: db})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestBuild(t *testing.T) {
	doc := build(t)
	type stmt struct {
		Status, Justification, Impact, Action, Notes, Product string
		Subs                                                  []string
		Aliases                                               []govex.VulnerabilityID
	}
	var got []stmt
	for _, s := range doc.Statements {
		x := stmt{Status: string(s.Status), Justification: string(s.Justification), Impact: s.ImpactStatement, Action: s.ActionStatement,
			Notes: s.StatusNotes, Product: s.Products[0].ID, Aliases: s.Vulnerability.Aliases}
		for _, sc := range s.Products[0].Subcomponents {
			x.Subs = append(x.Subs, sc.ID)
		}
		got = append(got, x)
	}
	prod := "pkg:github/acme/app@abc123"
	ws := []string{"pkg:golang/github.com/gorilla/websocket"}
	al := []govex.VulnerabilityID{"GO-2020-0019", "GHSA-3xh2-74w9-5vxm"}
	want := []stmt{
		{"affected", "", "", "Update pkg:golang/github.com/gorilla/websocket to a version outside the affected ranges of CVE-2020-27813, or remove it.",
			"VEX-Bench category: vulnerable", prod, ws, al},
		{"not_affected", "component_not_present", "", "", "VEX-Bench category: code_not_present", prod, []string{"pkg:golang/golang.org/x/net"}, al},
		{"not_affected", "", "needs EnableCompression", "", "VEX-Bench category: requires_configuration", prod, ws, al},
		{"under_investigation", "", "", "", "VEX-Bench category: uncertain", prod, ws, al},
		{"under_investigation", "", "", "", "vulnbench: the subject's answer failed: no JSON object", prod, ws, al},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("statements (-want +got):\n%s", d)
	}
	if doc.ID != "https://vulnbench.dev/openvex/run%201" || doc.Author != "vulnbench" || doc.AuthorRole == "" || doc.Version != 1 ||
		!doc.Timestamp.Equal(now) || doc.Statements[0].Vulnerability.Description != "Integer overflow in github.com/gorilla/websocket" {
		t.Errorf("metadata %+v", doc.Metadata)
	}
	// The JSON go-vex writes reads back and still validates.
	var b bytes.Buffer
	if err := doc.ToJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := govex.Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := openvex.Validate(back); err != nil {
		t.Errorf("the written document does not validate: %v\n%s", err, b.String())
	}
	if !strings.Contains(b.String(), `"@context": "https://openvex.dev/ns/v0.2.0"`) {
		t.Errorf("not OpenVEX v0.2.0:\n%.300s", b.String())
	}
}

// CheckCISA fails on a document missing any one required field.
func TestCISAMinimum(t *testing.T) {
	for _, tc := range []struct {
		name string
		drop func(d *govex.VEX)
		want string
	}{
		{"id", func(d *govex.VEX) { d.ID = "" }, "document @id"},
		{"version", func(d *govex.VEX) { d.Version = 0 }, "document version"},
		{"author", func(d *govex.VEX) { d.Author = "" }, "document author"},
		{"role", func(d *govex.VEX) { d.AuthorRole = "" }, "document role"},
		{"timestamp", func(d *govex.VEX) { d.Timestamp = nil }, "document timestamp"},
		{"statements", func(d *govex.VEX) { d.Statements = nil }, "statements"},
		{"product", func(d *govex.VEX) { d.Statements[1].Products = nil }, "statement 2 product"},
		{"vulnerability", func(d *govex.VEX) { d.Statements[1].Vulnerability = govex.Vulnerability{} }, "statement 2 vulnerability"},
		{"status", func(d *govex.VEX) { d.Statements[2].Status = "" }, "statement 3 status"},
		{"justification", func(d *govex.VEX) { d.Statements[1].Justification = "" }, "statement 2 justification or impact statement (not_affected)"},
		{"impact", func(d *govex.VEX) { d.Statements[2].ImpactStatement = "" }, "statement 3 justification or impact statement (not_affected)"},
		{"action", func(d *govex.VEX) { d.Statements[0].ActionStatement = "" }, "statement 1 action statement (affected)"},
		{"statement timestamp", func(d *govex.VEX) { d.Timestamp, d.Statements[3].Timestamp = nil, nil }, "statement 4 timestamp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := build(t)
			if err := openvex.CheckCISA(doc); err != nil {
				t.Fatalf("the whole document fails: %v", err)
			}
			tc.drop(doc)
			err := openvex.CheckCISA(doc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckCISA = %v; want it to name %q", err, tc.want)
			}
			if openvex.Validate(doc) == nil {
				t.Error("Validate accepts it")
			}
		})
	}
}

func TestPURLs(t *testing.T) {
	for _, tc := range []struct{ eco, name, want string }{
		{"Go", "github.com/gorilla/websocket", "pkg:golang/github.com/gorilla/websocket"},
		{"Maven", "com.fasterxml.jackson.core:jackson-databind", "pkg:maven/com.fasterxml.jackson.core/jackson-databind"},
		{"PyPI", "Django_Rest", "pkg:pypi/django-rest"},
		{"npm", "@babel/core", "pkg:npm/%40babel/core"},
		{"", "thing", "pkg:generic/thing"},
	} {
		if got := openvex.PackagePURL(tc.eco, tc.name, ""); got != tc.want {
			t.Errorf("PackagePURL(%s, %s) = %s; want %s", tc.eco, tc.name, got, tc.want)
		}
	}
	c := &suite.Case{Repo: &suite.Repo{URL: "https://gitlab.com/g/sub/proj.git", Commit: "c0ffee"}}
	if got, _ := openvex.ProjectPURL(c); got != "pkg:generic/proj@c0ffee?vcs_url=git%2Bhttps%3A%2F%2Fgitlab.com%2Fg%2Fsub%2Fproj.git" {
		t.Errorf("ProjectPURL = %s", got)
	}
	if _, err := openvex.Build(nil, nil, openvex.Options{RunID: "r"}); err == nil {
		t.Error("Build without Now")
	}
}

// Each document of a run has its own @id: a run of one repeat, each repeat of a repeated run,
// and its majority.
func TestDocumentIDs(t *testing.T) {
	cases := []suite.Case{vexCase("a", "vulnerable")}
	vs := []verdict.Verdict{answer("a", 0, "vulnerable"), answer("a", 1, "code_not_present"), answer("a", 2, "vulnerable")}
	seen := map[string]string{}
	for _, o := range []openvex.Options{{}, {Repeats: 3}, {Repeats: 3, Repeat: 1}, {Repeats: 3, Repeat: 2}, {Repeats: 3, Majority: true}} {
		o.RunID, o.Now = "r1", now
		doc, err := openvex.Build(cases, vs, o)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%+v", o)
		if prev, ok := seen[doc.ID]; ok {
			t.Errorf("%s and %s share @id %s", prev, what, doc.ID)
		}
		seen[doc.ID] = what
	}
	if _, ok := seen["https://vulnbench.dev/openvex/r1/repeat-1"]; !ok {
		t.Errorf("ids %v", seen)
	}
}
