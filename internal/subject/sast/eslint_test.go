package sast_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestParseESLintSARIF(t *testing.T) {
	in := `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "ESLint", "version": "10.15.0", "rules": [
	{"id": "security/detect-eval-with-expression"}, {"id": "no-unused-vars"}]}},
	"results": [{"level": "warning", "message": {"text": "eval with argument of type MemberExpression"}, "ruleId": "security/detect-eval-with-expression",
	"locations": [{"physicalLocation": {"artifactLocation": {"uri": "file:///tmp/x/case.js", "index": 0}, "region": {"startLine": 3, "endLine": 3}}}]},
	{"level": "error", "message": {"text": "'a' is defined but never used."}, "ruleId": "no-unused-vars",
	"locations": [{"physicalLocation": {"artifactLocation": {"uri": "file:///tmp/x/case.js"}, "region": {"startLine": 1}}}]}]}]}`
	got, err := sast.ParseESLintSARIF([]byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []verdict.Finding{
		{File: "/tmp/x/case.js", StartLine: 3, EndLine: 3, Rule: "security/detect-eval-with-expression", CWE: []string{"CWE-95"}, Severity: "warning", Message: "eval with argument of type MemberExpression"},
		{File: "/tmp/x/case.js", StartLine: 1, EndLine: 1, Rule: "no-unused-vars", Severity: "error", Message: "'a' is defined but never used."},
	}
	if d := cmp.Diff(want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Tool" || p.Last().String() == ".Version" }, cmp.Ignore())); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	// What the formatter writes for a file eslint cannot parse: no result, an error notification.
	parseError := `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "ESLint"}}, "results": [],
	"invocations": [{"toolConfigurationNotifications": [{"level": "error", "message": {"text": "Parsing error: Unexpected token :"},
	"locations": [{"physicalLocation": {"artifactLocation": {"uri": "file:///tmp/x/case.ts"}, "region": {"startLine": 1}}}], "descriptor": {"id": "ESL0999"}}],
	"executionSuccessful": false}]}]}`
	for _, bad := range []string{parseError, "", "Oops! Something went wrong! :("} {
		if fs, err := sast.ParseESLintSARIF([]byte(bad), nil); err == nil {
			t.Errorf("%.40q read as %d findings, want an error", bad, len(fs))
		}
	}
	if _, err := sast.ParseESLintSARIF([]byte(parseError), nil); err == nil || !strings.Contains(err.Error(), "case.ts:1: Parsing error") {
		t.Errorf("parse error reported as %v, want the file, line and eslint's message", err)
	}
}

// TestESLintIgnoresTheCodesOwnConfig: neither a comment in the case turning a rule off nor an
// eslint config in the scanned tree turns the plugin's rules off; code eslint cannot parse is an
// error verdict.
func TestESLintIgnoresTheCodesOwnConfig(t *testing.T) {
	s, _ := sast.LookupScanner("eslint")
	needTool(t, s.Binary, s.Install)
	tool, err := sast.NewTool(sast.ToolConfig{Tool: "eslint"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env := subject.NewEnv(subject.EnvOptions{})
	code := "/* eslint security/detect-eval-with-expression: \"off\" */ /* eslint-disable */\nfunction run(req) {\n  return eval(req.body.expr); // eslint-disable-line\n}\nmodule.exports = { run };\n"
	v, err := tool.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "d", Kind: suite.KindFunction, Language: "javascript", Code: code}}, env)
	if err != nil {
		t.Fatal(err)
	}
	if v.Label != suite.Vul || !hasFinding(v.Findings, 3, "CWE-95") {
		t.Errorf("eval with the rule turned off in a comment: label %s, findings %+v; want vul with CWE-95 at line 3", v.Label, v.Findings)
	}
	// A tree whose own config turns everything off, and would fail to load if eslint read it.
	off := "throw new Error('the scanned tree\\'s config was loaded');\n"
	snap := snapshotOf(t, map[string]string{"eslint.config.js": off, "eslint.config.mjs": off, "src/run.js": code})
	open := func(context.Context) (*snapshot.Snapshot, error) { return snap, nil }
	c := &suite.Case{ID: "in", Kind: suite.KindJIT, Language: "javascript", Target: &suite.Target{File: "src/run.js", Line: 2, EndLine: 4}}
	v, err = tool.Assess(ctx, subject.Unit{Case: c}, subject.NewEnv(subject.EnvOptions{Snapshot: open}))
	if err != nil {
		t.Fatal(err)
	}
	if v.Label != suite.Vul || len(v.Findings) == 0 || v.Findings[0].File != "src/run.js" {
		t.Errorf("tree with its own config: label %s, findings %+v; want vul, found in src/run.js (%s)", v.Label, v.Findings, v.Explanation)
	}
	if _, err := os.Stat(filepath.Join(snap.Root(), "eslint.config.cjs")); err == nil {
		t.Error("our config was written into the snapshot")
	}
	ts := "function f(s: string): number {\n  return eval(s);\n}\n"
	if v, err := tool.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "ts", Kind: suite.KindFunction, Language: "typescript", Code: ts}}, env); err == nil {
		t.Errorf("typed TypeScript (espree cannot parse it): verdict %s %+v, want an error", v.Label, v.Findings)
	}
}
