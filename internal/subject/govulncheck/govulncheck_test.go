package govulncheck_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/subject/govulncheck"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// needGovulncheck skips when govulncheck is not installed, except under CI, where it fails.
func needGovulncheck(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(govulncheck.Binary); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("govulncheck is not installed (CI is set); install it with: %s", govulncheck.Install)
		}
		t.Skipf("govulncheck is not installed; install it with: %s (make test does)", govulncheck.Install)
	}
}

// Hand-written advisories: a Go record with symbols (and a GHSA aliasing it), a Go record
// without imports (every package of its module), a PyPI-only record and a withdrawn one.
var advisories = map[string]string{
	"GO-2099-0001.json": `{"id":"GO-2099-0001","modified":"2024-01-01T00:00:00Z","aliases":["CVE-2099-1000","GHSA-aaaa-bbbb-cccc"],
"summary":"Parse of example.com/lib panics on long input",
"affected":[{"package":{"name":"example.com/lib","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.1.0"}]}],
"ecosystem_specific":{"imports":[{"path":"example.com/lib/parse","symbols":["Parse","Decoder.Decode"]}]}}]}`,
	"GHSA-aaaa-bbbb-cccc.json": `{"id":"GHSA-aaaa-bbbb-cccc","modified":"2024-01-02T00:00:00Z","aliases":["CVE-2099-1000"],
"affected":[{"package":{"name":"example.com/lib","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"v1.1.0"}]}]}]}`,
	"GHSA-dddd-eeee-ffff.json": `{"id":"GHSA-dddd-eeee-ffff","modified":"2024-01-02T00:00:00Z","aliases":["CVE-2099-4000"],
"affected":[{"package":{"name":"example.com/lib","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"v1.1.0"}]}]}]}`,
	"PYSEC-2099-1.json": `{"id":"PYSEC-2099-1","modified":"2024-01-01T00:00:00Z","aliases":["CVE-2099-2000"],
"affected":[{"package":{"name":"requests","ecosystem":"PyPI"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"2.20.0"}]}]}]}`,
	"GO-2099-0003.json": `{"id":"GO-2099-0003","modified":"2024-01-01T00:00:00Z","withdrawn":"2024-02-01T00:00:00Z","aliases":["CVE-2099-3000"],
"affected":[{"package":{"name":"example.com/lib","ecosystem":"Go"}}]}`,
}

// project is a Go module that vendors example.com/lib at version (no network, no module cache),
// with main.go as given.
func project(version, mainGo string) map[string]string {
	return map[string]string{
		"go.mod":             "module example.com/app\n\ngo 1.21\n\nrequire example.com/lib " + version + "\n",
		"vendor/modules.txt": "# example.com/lib " + version + "\n## explicit; go 1.21\nexample.com/lib/parse\nexample.com/lib/other\n",
		"vendor/example.com/lib/parse/parse.go": "package parse\n\n// Parse is the vulnerable symbol.\nfunc Parse(s string) string { return s }\n\n" +
			"// Safe is not.\nfunc Safe(s string) string { return s }\n\ntype Decoder struct{}\n\nfunc (*Decoder) Decode() {}\n",
		"vendor/example.com/lib/other/other.go": "package other\n\nfunc Hello() string { return \"hi\" }\n",
		"main.go":                               mainGo,
	}
}

const (
	callsParse = "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/lib/parse\"\n)\n\nfunc main() {\n\tfmt.Println(handle(\"x\"))\n}\n\nfunc handle(s string) string {\n\treturn parse.Parse(s)\n}\n"
	callsSafe  = "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/lib/parse\"\n)\n\nfunc main() {\n\tfmt.Println(parse.Safe(\"x\"))\n}\n"
	otherOnly  = "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/lib/other\"\n)\n\nfunc main() {\n\tfmt.Println(other.Hello())\n}\n"
	stdlibOnly = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n"
)

func TestGovulncheck(t *testing.T) {
	needGovulncheck(t)
	dir := t.TempDir()
	advDir := filepath.Join(dir, "advisories")
	if err := os.MkdirAll(advDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range advisories {
		if err := os.WriteFile(filepath.Join(advDir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err := advisory.Open(advDir)
	if err != nil || len(db.Problems()) > 0 {
		t.Fatal(err, db.Problems())
	}
	db.Close()
	// A dependency that is neither vendored nor in any module cache: the project cannot build.
	broken := map[string]string{
		"go.mod":  "module example.com/app\n\ngo 1.21\n\nrequire example.invalid/nowhere v1.2.3\n",
		"main.go": "package main\n\nimport \"example.invalid/nowhere\"\n\nfunc main() { nowhere.Do() }\n",
	}
	for _, tc := range []struct {
		name, cve string
		files     map[string]string
		path      string // repo.path
		want      string // category and findings, or the error's start
		wantErr   string // a part of the error
	}{
		{name: "vulnerable: the symbol is called", cve: "CVE-2099-1000", files: project("v1.0.0", callsParse),
			want: "vulnerable main.go:14 GO-2099-0001 example.com/lib v1.0.0: example.com/lib/parse.Parse reached from example.com/app.handle"},
		{name: "found by its GHSA alias", cve: "GHSA-aaaa-bbbb-cccc", files: project("v1.0.0", callsParse),
			want: "vulnerable main.go:14 GO-2099-0001 example.com/lib v1.0.0: example.com/lib/parse.Parse reached from example.com/app.handle"},
		// A GHSA with no GO- record beside it names no symbols: govulncheck takes every symbol of
		// the module as vulnerable, so even a call of Safe is "reached".
		{name: "a record without symbols: any call is reached", cve: "CVE-2099-4000", files: project("v1.0.0", callsSafe),
			want: "vulnerable main.go:6 GHSA-dddd-eeee-ffff example.com/lib v1.0.0: example.com/lib/parse.init reached from example.com/app.init; " +
				"main.go:10 GHSA-dddd-eeee-ffff example.com/lib v1.0.0: example.com/lib/parse.Safe reached from example.com/app.main"},
		{name: "code_not_reachable: the package is imported, the symbol never called", cve: "CVE-2099-1000", files: project("v1.0.0", callsSafe),
			want: "code_not_reachable go.mod:0 GO-2099-0001 example.com/lib v1.0.0: example.com/lib/parse"},
		{name: "code_not_reachable: the module is required, the package not imported", cve: "GO-2099-0001", files: project("v1.0.0", otherOnly),
			want: "code_not_reachable go.mod:0 GO-2099-0001 example.com/lib v1.0.0: example.com/lib"},
		{name: "code_not_present: the fixed version", cve: "CVE-2099-1000", files: project("v1.1.0", callsParse), want: "code_not_present"},
		{name: "code_not_present: stdlib only", cve: "CVE-2099-1000", files: map[string]string{
			"go.mod": "module example.com/app\n\ngo 1.21\n", "main.go": stdlibOnly}, want: "code_not_present"},
		{name: "a module in a subdirectory (repo.path)", cve: "CVE-2099-1000", path: "svc", files: prefixed("svc/", project("v1.0.0", callsParse)),
			want: "vulnerable svc/main.go:14 GO-2099-0001 example.com/lib v1.0.0: example.com/lib/parse.Parse reached from example.com/app.handle"},
		{name: "every module of a tree without a root go.mod", cve: "CVE-2099-1000",
			files: merge(prefixed("a/", project("v1.1.0", callsParse)), prefixed("b/", project("v1.0.0", callsSafe))),
			want:  "code_not_reachable b/go.mod:0 GO-2099-0001 example.com/lib v1.0.0: example.com/lib/parse"},
		{name: "a nested module's use counts beside the root's", cve: "CVE-2099-1000",
			files: merge(project("v1.1.0", callsParse), prefixed("tools/", project("v1.0.0", callsParse))),
			want:  "vulnerable tools/main.go:14 GO-2099-0001 example.com/lib v1.0.0: example.com/lib/parse.Parse reached from example.com/app.handle"},
		{name: "no Go record", cve: "CVE-2099-2000", files: project("v1.0.0", callsParse), want: "code_not_present"},
		{name: "withdrawn", cve: "CVE-2099-3000", files: project("v1.0.0", callsParse), want: "false_positive"},
		{name: "a repo.path out of the snapshot", cve: "CVE-2099-1000", path: "../../..", files: project("v1.0.0", callsParse),
			wantErr: `repo.path "../../.." leaves the snapshot`},
		{name: "does not build", cve: "CVE-2099-1000", files: broken, wantErr: "govulncheck failed (exit status 1): govulncheck: loading packages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.NewReplacer(" ", "_", ":", "", "(", "", ")", "", ",", "").Replace(tc.name)
			commit := gittest.Repo(t, filepath.Join(dir, "repos", "o", name), tc.files)
			c := &suite.Case{ID: "c", Kind: suite.KindVEX, Language: "go", CVE: tc.cve,
				Repo: &suite.Repo{URL: "https://example.com/o/" + name, Commit: commit, Path: tc.path}, VEX: &suite.VEX{Category: "vulnerable"}}
			v, events := subjecttest.RunUnit(t, govulncheck.Kind(), map[string]string{"advisories": advDir}, c, nil, subjecttest.Repos(filepath.Join(dir, "repos")))
			if tc.wantErr != "" {
				if v.Status != verdict.Error || !strings.Contains(v.Reason, tc.wantErr) {
					t.Fatalf("verdict %s %q, want an error naming %q", v.Status, v.Reason, tc.wantErr)
				}
				t.Log(v.Reason)
				return
			}
			if v.VEX == nil {
				t.Fatalf("no vex answer: %s %s", v.Status, v.Reason)
			}
			got := v.VEX.Category
			var fs []string
			for _, f := range v.Findings {
				fs = append(fs, f.File+":"+strconv.Itoa(f.StartLine)+" "+f.Rule+" "+f.Message)
			}
			if len(fs) > 0 {
				got += " " + strings.Join(fs, "; ")
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("answer (-want +got):\n%s\nexplanation: %s", d, v.Explanation)
			}
			wantLabel := suite.Ben
			if v.VEX.Category == suite.VEXVulnerable {
				wantLabel = suite.Vul
			}
			if v.Status != verdict.OK || v.Label != wantLabel || v.VEX.Impact == "" || *v.VEX != *verdict.VEXAnswer(v.VEX.Category, v.VEX.Impact) {
				t.Errorf("verdict %+v, vex %+v", v, v.VEX)
			}
			if strings.HasPrefix(tc.want, "vulnerable") || strings.HasPrefix(tc.want, "code_not_reachable") {
				var ran bool
				for _, e := range events {
					ran = ran || (e.Kind == trace.ToolCall && strings.Contains(e.Content, "-db file://") && strings.Contains(e.Content, "-format json ./..."))
				}
				if !ran {
					t.Errorf("no govulncheck call in the trace: %+v", events)
				}
			}
		})
	}
}

func prefixed(p string, files map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[p+k] = v
	}
	return out
}

func merge(a, b map[string]string) map[string]string {
	for k, v := range b {
		a[k] = v
	}
	return a
}

func TestMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("VULNBENCH_NODE", "/nonexistent/node")
	t.Setenv("GOBIN", "/nonexistent/gobin")
	db, err := advisory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = govulncheck.NewWith(db)
	want := "subject govulncheck: govulncheck is not installed (looked in /nonexistent/node/node_modules/.bin, on PATH, in /nonexistent/gobin); install it with: go install golang.org/x/vuln/cmd/govulncheck@v1.9.0"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if err := (govulncheck.Config{}).Validate(); err == nil || !strings.Contains(err.Error(), "--advisories") {
		t.Errorf("an empty --advisories: %v", err)
	}
}
