package osv_test

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
	"github.com/vulnbench/vulnbench/internal/suite/osv"
	"github.com/vulnbench/vulnbench/schema"
)

func build(t *testing.T, fx *fixture, opts osv.Options) *osv.Result {
	t.Helper()
	db, err := advisory.Open(fx.advisories)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := osv.NewBuilder(opts)
	defer b.Close()
	res, err := b.Build(context.Background(), db, fx.repos)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("problems: %v", res.Problems)
	}
	return res
}

// summary is one line per record: its pairs' functions and narrowing, or its drop reason.
func summary(res *osv.Result) map[string]string {
	out := map[string]string{}
	for _, o := range res.Outcomes {
		if o.Drop != nil {
			out[o.Record.ID] = "drop: " + string(o.Drop.Reason)
			continue
		}
		var fns []string
		for _, p := range o.Pairs {
			fns = append(fns, p.Vul.Target.Function+"->"+p.Ben.Target.Function)
		}
		out[o.Record.ID] = o.Select.Narrowing + ": " + strings.Join(fns, ", ")
	}
	return out
}

// The acceptance line: each record written for the test repositories gives the
// expected cases or the expected drop reason.
var wantSummary = map[string]string{
	"GO-2024-0001":        "symbols: Reader.Next->Reader.Next", // a method; helper changed too but is not named
	"GO-2024-0002":        "symbols: Parse->Parse",             // a function; its test changed too; the first FIX reference's repository is missing
	"GO-2024-0003":        "symbols: oldName->byteAt",          // a function the fix renamed
	"GO-2024-0004":        "drop: no changed function matches the symbols",
	"GHSA-aaaa-bbbb-cccc": "drop: fix changes more than --max-funcs functions", // five functions, no hint
	"GHSA-dddd-eeee-ffff": "max-funcs: f1->f1, f2->f2",                         // two functions, no hint; an abbreviated commit
	"OSV-2024-1":          "crash state: decode->decode",                       // parse_header changed too, not in the crash state
	"OSV-2024-10":         "crash state: f3->f3",                               // a fix of five functions, narrowed by the crash state
	"OSV-2024-11":         "crash state: f4->f4",
	"OSV-2024-12":         "crash state: f5->f5",
	"OSV-2024-2":          "drop: duplicate of another record's fix",
	"OSV-2024-3":          "drop: fix touches only tests",
	"OSV-2024-4":          "crash state: parse_header->parse_header", // the one commit of its fixed_range that changes parse_header
	"OSV-2024-5":          "drop: commit missing",
	"OSV-2024-6":          "drop: withdrawn",
	"OSV-2024-7":          "drop: repository missing",
	"OSV-2024-8":          "drop: no fix commit",
	"OSV-2024-9":          "drop: fix changes no function",
}

func TestBuildFunction(t *testing.T) {
	fx := newFixture(t)
	res := build(t, fx, osv.Options{})
	if d := cmp.Diff(wantSummary, summary(res)); d != "" {
		t.Fatalf("outcomes (-want +got):\n%s", d)
	}
	cases := written(t, res)
	if len(cases) != 2*10 {
		t.Fatalf("%d cases written, want 20", len(cases))
	}
	for _, c := range cases {
		checkAgainstGit(t, fx, c)
	}
	byID := map[string]*suite.Case{}
	for _, c := range cases {
		byID[c.ID] = c
	}
	// Dates (--date earliest, the default): the fix commit's date or the record's published
	// date, whichever is first; the fix's alone for the Go database's 0001-01-01.
	for id, want := range map[string][2]string{
		"osv-GO-2024-0001-Reader.Next-vul": {"2024-01-03T12:00:00Z", "fix commit"},
		"osv-OSV-2024-1-decode-ben":        {"2024-01-04T12:00:00Z", "fix commit"},
		"osv-GHSA-dddd-eeee-ffff-f2-vul":   {"2024-01-06T12:00:00Z", "fix commit"},
		"osv-OSV-2024-4-parse_header-vul":  {"2024-01-09T12:00:00Z", "fix commit"}, // r2, the fix found in the range, not its end r3
		"osv-OSV-2024-11-f4-ben":           {"2023-12-31T00:00:00Z", "published"},  // published before its fix
	} {
		c := byID[id]
		if c == nil {
			t.Fatalf("no case %s among %v", id, keys(byID))
		}
		if c.Date != want[0] || c.Meta["date_source"] != want[1] {
			t.Errorf("%s: date %s from %v, want %s from %s", id, c.Date, c.Meta["date_source"], want[0], want[1])
		}
	}
	// The renamed function: f_vul under its old name at the parent, f_ben under its new one.
	vul, ben := byID["osv-GO-2024-0003-byteAt-vul"], byID["osv-GO-2024-0003-byteAt-ben"]
	if vul == nil || ben == nil || !strings.HasPrefix(vul.Code, "func oldName(") || !strings.HasPrefix(ben.Code, "func byteAt(") ||
		osvMeta(vul)["renamed_from"] != "oldName" {
		t.Errorf("renamed pair: %+v %+v", vul, ben)
	}
	// The fixed_range: the fix is r2, the one commit of r0..r3 that changes parse_header.
	pv, pb := byID["osv-OSV-2024-4-parse_header-vul"], byID["osv-OSV-2024-4-parse_header-ben"]
	if pb.Commit != fx.c["r2"] || osvMeta(pv)["fix_commit"] != fx.c["r2"] || osvMeta(pv)["fix_range"].(map[string]any)["commits"] != float64(3) {
		t.Errorf("range fix: ben commit %s (r2 %s), meta %v", pb.Commit, fx.c["r2"], osvMeta(pv))
	}
	// Each half names the repository and its own commit (issue 35 item 10): the fix's parent for
	// f_vul, the fix for f_ben, so a subject reading the repository sees the code of its label.
	for _, c := range cases {
		m := osvMeta(c)
		want := m["fix_commit"]
		if c.Label == suite.Vul {
			want = m["parent_commit"]
		}
		if c.Repo == nil || c.Repo.URL != m["repo"] || c.Repo.Commit != want || c.Commit != want {
			t.Errorf("%s: commit %s, repo %+v; want the repository %v at %v", c.ID, c.Commit, c.Repo, m["repo"], want)
		}
	}
	// CVE and CWE: aliases, database_specific, or the crash type.
	if d := byID["osv-OSV-2024-1-decode-vul"]; fmt.Sprint(d.CWE) != "[CWE-787]" || osvMeta(d)["cwe_source"] != "crash type" || d.Project != "acme/clib" || d.Language != "c" {
		t.Errorf("crash record case: %+v", d)
	}
	if g := byID["osv-GO-2024-0002-Parse-ben"]; g.CVE != "CVE-2024-0002" || g.Language != "go" || osvMeta(g)["fix_from"] != "FIX reference" {
		t.Errorf("Go case: %+v", g)
	}

	rep := res.Report()
	if rep.Records != 18 || rep.WithPairs != 9 || rep.Pairs != 10 || len(rep.Dropped) != 9 || rep.Narrowing["symbols"] != 3 || rep.Narrowing["crash state"] != 5 {
		t.Errorf("report %+v", rep)
	}
	// What was left out of records that gave pairs is listed too: nothing here (the functions
	// the narrowing left out are not "left out", they were never chosen).
	if len(rep.Functions) != 0 {
		t.Errorf("left out: %+v", rep.Functions)
	}
	for _, d := range rep.Dropped {
		if d.Detail == "" || d.Source == "" {
			t.Errorf("drop without detail or source: %+v", d)
		}
	}
	dup := dropOf(res, "OSV-2024-2")
	if !strings.Contains(dup.Detail, "OSV-2024-1") {
		t.Errorf("duplicate does not name the record that gave the fix: %s", dup.Detail)
	}
	if m := dropOf(res, "OSV-2024-9"); !strings.Contains(m.Detail, "(1 files changed: README)") {
		t.Errorf("no function: %s", m.Detail)
	}
	if m := dropOf(res, "GHSA-aaaa-bbbb-cccc"); !strings.Contains(m.Detail, "changes 5 functions") {
		t.Errorf("too many: %s", m.Detail)
	}
}

// With --kind jit the same records give JitVul pairs: vul at the introducing commit.
func TestBuildJit(t *testing.T) {
	fx := newFixture(t)
	res := build(t, fx, osv.Options{Kind: suite.KindJIT})
	if d := cmp.Diff(wantSummary, summary(res)); d != "" {
		t.Fatalf("outcomes (-want +got):\n%s", d)
	}
	cases := written(t, res)
	byID := map[string]*suite.Case{}
	for _, c := range cases {
		byID[c.ID] = c
		if c.Kind != suite.KindJIT || c.Repo == nil || c.Repo.URL == "" || c.Target.EndLine < c.Target.Line {
			t.Errorf("case %+v", c)
		}
		checkAgainstGit(t, fx, c)
	}
	d := byID["osv-OSV-2024-1-decode-vul"]
	if d.Repo.Commit != fx.c["cIntro"] || d.Meta["jit"].(map[string]any)["stop_reason"] != string(jitvul.StopChanged) || d.Date != "2024-01-04T12:00:00Z" || d.Meta["date_source"] != "fix commit" {
		t.Errorf("decode's vul case at %s (intro %s), meta %v, date %s", d.Repo.Commit, fx.c["cIntro"], d.Meta["jit"], d.Date)
	}
	r := byID["osv-GO-2024-0003-byteAt-ben"]
	if r.Target.Function != "byteAt" || byID["osv-GO-2024-0003-byteAt-vul"].Target.Function != "oldName" || r.Repo.Commit != fx.c["goRename"] {
		t.Errorf("renamed jit pair: %+v", r)
	}
	if rep := res.Report(); rep.Stops[jitvul.StopChanged]+rep.Stops[jitvul.StopFileAdded] != 10 {
		t.Errorf("stops %v", rep.Stops)
	}
}

// --after keeps only cases dated after it (a model's cutoff), by the date --date says: each
// rule dates the same records from its own source (issue 35 item 2).
func TestBuildAfter(t *testing.T) {
	fx := newFixture(t)
	before := "drop: " + string(osv.ReasonBefore)
	for _, tc := range []struct {
		rule  osv.DateRule
		after time.Time
		want  map[string]string // records and their outcomes
	}{
		// published 2024-02-01..03-01, fixed 2024-01-03..09: by publication, only March's record is after mid-February
		{osv.DatePublished, time.Date(2024, 2, 15, 0, 0, 0, 0, time.UTC), map[string]string{
			"GHSA-dddd-eeee-ffff": wantSummary["GHSA-dddd-eeee-ffff"], "OSV-2024-1": before, "OSV-2024-4": before,
			"GO-2024-0001": before, "OSV-2024-11": before, "OSV-2024-6": "drop: withdrawn"}},
		// the same cutoff by the earliest date: the fixes of January put every record before it
		{osv.DateEarliest, time.Date(2024, 2, 15, 0, 0, 0, 0, time.UTC), map[string]string{
			"GHSA-dddd-eeee-ffff": before, "OSV-2024-1": before, "OSV-2024-4": before, "GO-2024-0001": before, "OSV-2024-11": before}},
		// by the earliest date after 2024-01-05: fixes of the 6th on are kept, unless published before
		{osv.DateEarliest, time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC), map[string]string{
			"GHSA-dddd-eeee-ffff": wantSummary["GHSA-dddd-eeee-ffff"], "OSV-2024-1": before, "OSV-2024-4": wantSummary["OSV-2024-4"],
			"GO-2024-0001": before, "GO-2024-0003": wantSummary["GO-2024-0003"], "OSV-2024-11": before, "OSV-2024-10": wantSummary["OSV-2024-10"]}},
		// by the fix alone, the record published in December is kept: its fix is of 2024-01-05
		{osv.DateFix, time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC), map[string]string{
			"OSV-2024-11": wantSummary["OSV-2024-11"], "OSV-2024-1": before, "GO-2024-0003": wantSummary["GO-2024-0003"]}},
	} {
		got := summary(build(t, fx, osv.Options{After: tc.after, Date: tc.rule}))
		for id, want := range tc.want {
			if got[id] != want {
				t.Errorf("--date %s --after %s: %s: %s, want %s", tc.rule, tc.after.Format("2006-01-02"), id, got[id], want)
			}
		}
	}
}

func written(t *testing.T, res *osv.Result) []*suite.Case {
	t.Helper()
	var buf bytes.Buffer
	w := suite.NewWriter(&buf)
	if err := res.Write(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	sch, err := schema.CompileCase()
	if err != nil {
		t.Fatal(err)
	}
	if _, problems, err := suite.Validate(bytes.NewReader(buf.Bytes()), "s.jsonl", nil, sch); err != nil || len(problems) > 0 {
		t.Fatalf("validate: %v %v", problems, err)
	}
	chk := suite.NewChecker("s.jsonl")
	var cases []*suite.Case
	for i, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		c, err := suite.DecodeCase([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if errs := chk.Add(c, i+1); len(errs) > 0 {
			t.Fatal(errs)
		}
		cases = append(cases, c)
	}
	if errs := chk.Finish(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return cases
}

// checkAgainstGit compares a case's code with git show REV:FILE at its lines: f_vul at the
// fix's parent (function pairs) or the introducing commit (jit pairs), f_ben at the fix.
func checkAgainstGit(t *testing.T, fx *fixture, c *suite.Case) {
	t.Helper()
	r := fx.cRepo
	if c.Language == "go" {
		r = fx.goRepo
	}
	rev := c.Repo.Commit // every case names its repository and its own commit
	lines := strings.Split(r.show(rev, c.Target.File), "\n")
	if c.Target.Line < 1 || c.Target.EndLine > len(lines) {
		t.Fatalf("%s: lines %d-%d of a %d-line file", c.ID, c.Target.Line, c.Target.EndLine, len(lines))
	}
	if got := strings.Join(lines[c.Target.Line-1:c.Target.EndLine], "\n"); got != c.Code {
		t.Errorf("%s: code differs from git show %s:%s lines %d-%d:\n%s\n---\n%s", c.ID, rev[:8], c.Target.File, c.Target.Line, c.Target.EndLine, c.Code, got)
	}
}

func osvMeta(c *suite.Case) map[string]any { return c.Meta["osv"].(map[string]any) }

func dropOf(res *osv.Result, id string) osv.Dropped {
	for _, o := range res.Outcomes {
		if o.Record.ID == id && o.Drop != nil {
			return *o.Drop
		}
	}
	return osv.Dropped{}
}

func keys(m map[string]*suite.Case) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// --unmatched max-funcs: a record whose hint matches nothing falls back to the count rule; a
// function an earlier record gave is left out of it and listed.
func TestBuildFallback(t *testing.T) {
	fx := newFixture(t)
	res := build(t, fx, osv.Options{Fallback: true})
	got := summary(res)
	want := map[string]string{}
	for k, v := range wantSummary {
		want[k] = v
	}
	want["GO-2024-0004"] = "max-funcs (symbols unmatched): helper->helper" // goMethod changes Reader.Next (GO-2024-0001's) and helper
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("outcomes (-want +got):\n%s", d)
	}
	rep := res.Report()
	if len(rep.Functions) != 1 || rep.Functions[0].ID != "GO-2024-0004" || rep.Functions[0].Function != "Reader.Next" ||
		rep.Functions[0].Reason != osv.ReasonDuplicate || !strings.Contains(rep.Functions[0].Detail, "GO-2024-0001") {
		t.Errorf("left out: %+v", rep.Functions)
	}
	for _, c := range written(t, res) {
		checkAgainstGit(t, fx, c)
	}
}
