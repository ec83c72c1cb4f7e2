package sca_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/sca"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Hand-written advisories, one per ecosystem, plus a withdrawn one.
var advisories = map[string]string{
	"go/GO-2020-0019.json": `{"id":"GO-2020-0019","modified":"2023-01-01T00:00:00Z","aliases":["CVE-2020-27813","GHSA-3xh2-74w9-5vxm"],
"summary":"Integer overflow in github.com/gorilla/websocket",
"affected":[{"package":{"name":"github.com/gorilla/websocket","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.4.1"}]}],
"ecosystem_specific":{"imports":[{"path":"github.com/gorilla/websocket","symbols":["Conn.advanceFrame"]}]}}]}`,
	"ghsa/GHSA-x84v-xcm2-53pg.json": `{"id":"GHSA-x84v-xcm2-53pg","modified":"2023-01-01T00:00:00Z","aliases":["CVE-2018-18074"],
"summary":"Insufficiently protected credentials in requests",
"affected":[{"package":{"ecosystem":"PyPI","name":"requests"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"2.20.0"}]}]}]}`,
	"ghsa/GHSA-57j2-w4cx-62h2.json": `{"id":"GHSA-57j2-w4cx-62h2","modified":"2023-01-01T00:00:00Z","aliases":["CVE-2020-36518"],
"summary":"Deeply nested json in jackson-databind",
"affected":[{"package":{"ecosystem":"Maven","name":"com.fasterxml.jackson.core:jackson-databind"},
 "ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"2.12.6.1"}]},{"type":"ECOSYSTEM","events":[{"introduced":"2.13.0"},{"fixed":"2.13.2.1"}]}]}]}`,
	"ghsa/GHSA-wwww-wwww-wwww.json": `{"id":"GHSA-wwww-wwww-wwww","modified":"2023-01-01T00:00:00Z","withdrawn":"2023-02-01T00:00:00Z","aliases":["CVE-2099-0001"],
"affected":[{"package":{"ecosystem":"PyPI","name":"requests"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"}]}]}]}`,
}

const goMain = "package main\n\nimport _ \"github.com/gorilla/websocket\"\n\nfunc main() {}\n"

func TestSCA(t *testing.T) {
	dir := t.TempDir()
	advDir := filepath.Join(dir, "advisories")
	for name, body := range advisories {
		p := filepath.Join(advDir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	db, err := advisory.Open(advDir)
	if err != nil || len(db.Problems()) > 0 {
		t.Fatal(err, db.Problems())
	}
	db.Close()
	// One project per ground-truth category VEX-Bench evaluates; sca sees only versions, so
	// every project with an affected version present is "vulnerable" to it, whatever the truth.
	for _, tc := range []struct {
		name, truth, eco, cve string
		files                 map[string]string
		want                  string // category, then the findings
	}{
		{"go vulnerable", "vulnerable", "Go", "CVE-2020-27813", map[string]string{
			"go.mod":  "module example.com/app\n\ngo 1.21\n\nrequire github.com/gorilla/websocket v1.4.0\n",
			"main.go": goMain,
		}, "vulnerable go.mod:5 GO-2020-0019"},
		{"go code_not_present (fixed version)", "code_not_present", "Go", "CVE-2020-27813", map[string]string{
			"go.mod":  "module example.com/app\n\ngo 1.21\n\nrequire github.com/gorilla/websocket v1.4.1\n",
			"main.go": goMain,
		}, "code_not_present"},
		{"go code_not_reachable in a monorepo module (sca over-alerts)", "code_not_reachable", "Go", "GHSA-3xh2-74w9-5vxm", map[string]string{
			"go.mod":                   "module example.com/app\n\ngo 1.21\n",
			"tools/go.mod":             "module example.com/tools\n\ngo 1.21\n\nrequire (\n\tgithub.com/gorilla/websocket v1.2.0 // indirect\n)\n",
			"tools/vendor/modules.txt": "# github.com/gorilla/websocket v1.2.0\n## explicit\ngithub.com/gorilla/websocket\n",
		}, "vulnerable tools/go.mod:6 GO-2020-0019; tools/vendor/modules.txt:1 GO-2020-0019"},
		{"python requires_configuration (sca over-alerts)", "requires_configuration", "PyPI", "CVE-2018-18074", map[string]string{
			"requirements.txt": "flask==2.0.0\nrequests==2.19.1\n",
			"app.py":           "import requests\n",
		}, "vulnerable requirements.txt:2 GHSA-x84v-xcm2-53pg"},
		{"python range: its lowest version counts", "requires_environment", "PyPI", "CVE-2018-18074", map[string]string{
			"requirements-dev.txt": "Requests>=2.18,<3\n",
		}, "vulnerable requirements-dev.txt:1 GHSA-x84v-xcm2-53pg"},
		{"python code_not_present", "code_not_present", "PyPI", "CVE-2018-18074", map[string]string{
			"pyproject.toml": "[project]\nname = \"app\"\nversion = \"1\"\ndependencies = [\"httpx==0.27.0\"]\n",
		}, "code_not_present"},
		{"python withdrawn", "false_positive", "PyPI", "CVE-2099-0001", map[string]string{
			"requirements.txt": "requests==2.19.1\n",
		}, "false_positive"},
		{"java vulnerable", "vulnerable", "Maven", "CVE-2020-36518", map[string]string{
			"pom.xml": `<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version>
<dependencies>
  <dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>2.13.1</version></dependency>
</dependencies></project>
`,
		}, "vulnerable pom.xml:3 GHSA-57j2-w4cx-62h2"},
		{"java code_not_present (between the two ranges)", "code_not_present", "Maven", "CVE-2020-36518", map[string]string{
			"pom.xml": `<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version>
<dependencies>
  <dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>2.12.7</version></dependency>
</dependencies></project>
`,
		}, "code_not_present"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.NewReplacer(" ", "_", "(", "", ")", "").Replace(tc.name)
			commit := gittest.Repo(t, filepath.Join(dir, "repos", "o", name), tc.files)
			c := &suite.Case{ID: "c", Kind: suite.KindVEX, CVE: tc.cve, Repo: &suite.Repo{URL: "https://example.com/o/" + name, Commit: commit},
				VEX: &suite.VEX{Category: tc.truth, Ecosystem: tc.eco}}
			v, _ := subjecttest.RunUnit(t, sca.Kind(), map[string]string{"advisories": advDir}, c, nil, subjecttest.Repos(filepath.Join(dir, "repos")))
			if v.VEX == nil {
				t.Fatalf("no vex answer: %s %s", v.Status, v.Reason)
			}
			got := v.VEX.Category
			var fs []string
			for _, f := range v.Findings {
				fs = append(fs, f.File+":"+strconv.Itoa(f.StartLine)+" "+f.Rule)
			}
			if len(fs) > 0 {
				got += " " + strings.Join(fs, "; ")
			}
			if got != tc.want {
				t.Errorf("answer = %q\nwant %q\nexplanation: %s", got, tc.want, v.Explanation)
			}
			wantLabel := suite.Ben
			if v.VEX.Category == "vulnerable" {
				wantLabel = suite.Vul
			}
			if v.Status != verdict.OK || v.Label != wantLabel || *v.VEX != *verdict.VEXAnswer(v.VEX.Category, v.VEX.Impact) || v.VEX.Impact == "" {
				t.Errorf("verdict %+v, vex %+v", v, v.VEX)
			}
		})
	}
}

func TestSCAErrors(t *testing.T) {
	dir := t.TempDir()
	db, err := advisory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := sca.NewWith(db)
	c := &suite.Case{ID: "c", Kind: suite.KindVEX, CVE: "CVE-2020-0001"}
	_, err = s.Assess(context.Background(), subject.Unit{Case: c}, subject.NewEnv(subject.EnvOptions{}))
	want := "no OSV record for CVE-2020-0001 in " + dir + " (give --advisories a database that has it)"
	if d := cmp.Diff(want, err.Error()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// A vex case whose CVE is known but that has no repository: the error says what sca needs.
	if err := os.WriteFile(filepath.Join(dir, "GO-2020-0019.json"), []byte(advisories["go/GO-2020-0019.json"]), 0o644); err != nil {
		t.Fatal(err)
	}
	db2, err := advisory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.CVE = "CVE-2020-27813"
	_, err = sca.NewWith(db2).Assess(context.Background(), subject.Unit{Case: c}, subject.NewEnv(subject.EnvOptions{}))
	want = "subject sca needs the case's repository: case c has no repo.url and repo.commit (the case has no repository snapshot)"
	if err == nil || !errors.Is(err, subject.ErrNoSnapshot) {
		t.Fatalf("no repository: %v, want ErrNoSnapshot", err)
	}
	if d := cmp.Diff(want, err.Error()); d != "" {
		t.Errorf("no repository (-want +got):\n%s", d)
	}
	if err := (sca.Config{}).Validate(); err == nil {
		t.Error("an empty --advisories is accepted")
	}
}

// lockfile is a lockfileVersion 3 package-lock.json of n packages of npm's shape, lodash at the
// version given among the last ones.
func lockfile(n int, lodash string) string {
	var b strings.Builder
	b.WriteString("{\n  \"name\": \"app\",\n  \"lockfileVersion\": 3,\n  \"packages\": {\n    \"\": {\n      \"name\": \"app\",\n      \"dependencies\": {\n        \"lodash\": \"" + lodash + "\"\n      }\n    }")
	for i := 0; i < n; i++ {
		if i == n-3 {
			b.WriteString(",\n    \"node_modules/lodash\": {\n      \"version\": \"" + lodash + "\",\n      \"resolved\": \"https://registry.npmjs.org/lodash/-/lodash-" + lodash + ".tgz\"\n    }")
		}
		b.WriteString(",\n    \"node_modules/pkg-" + strconv.Itoa(i) + "\": {\n      \"version\": \"1." + strconv.Itoa(i%50) + ".0\",\n      \"resolved\": \"https://registry.npmjs.org/pkg-" +
			strconv.Itoa(i) + "/-/pkg-" + strconv.Itoa(i) + "-1.0.0.tgz\",\n      \"integrity\": \"sha512-" + strings.Repeat("QUJDREVGR0hJSktMTU5PUFFS", 4) + "==\",\n      \"dev\": true\n    }")
	}
	b.WriteString("\n  }\n}\n")
	return b.String()
}

// A normal npm lockfile of a few megabytes, past the snapshot's 1 MiB per-file read limit, is
// read whole (issue 35 item 8): sca answered ben ("1 manifests read") for a repository whose
// 2.6 MB package-lock.json pins an affected lodash.
func TestSCABigLockfile(t *testing.T) {
	dir := t.TempDir()
	adv := filepath.Join(dir, "advisories")
	// lodash's record as the GitHub Advisory Database writes it (real, ../shared/data/ghsa)
	b, err := os.ReadFile("../../../../shared/data/ghsa/advisories/github-reviewed/2021/05/GHSA-35jh-r3h4-6jhm/GHSA-35jh-r3h4-6jhm.json")
	if err != nil {
		t.Fatal("the shared GitHub advisories (../shared/data/ghsa):", err)
	}
	gittest.WriteFiles(t, adv, map[string]string{"GHSA-35jh-r3h4-6jhm.json": string(b)})
	for _, tc := range []struct{ lodash, want string }{{"4.17.20", "vulnerable"}, {"4.17.21", "code_not_present"}} {
		lock := lockfile(8000, tc.lodash)
		if len(lock) < 2<<20 {
			t.Fatalf("lockfile of %d bytes: want over 2 MiB", len(lock))
		}
		name := "app-" + tc.lodash
		commit := gittest.Repo(t, filepath.Join(dir, "repos", "o", name), map[string]string{
			"package.json": `{"name": "app", "dependencies": {"lodash": "` + tc.lodash + `"}}`, "package-lock.json": lock})
		c := &suite.Case{ID: "c", Kind: suite.KindVEX, CVE: "CVE-2021-23337", Repo: &suite.Repo{URL: "https://example.com/o/" + name, Commit: commit},
			VEX: &suite.VEX{Ecosystem: "npm"}}
		v, _ := subjecttest.RunUnit(t, sca.Kind(), map[string]string{"advisories": adv}, c, nil, subjecttest.Repos(filepath.Join(dir, "repos")))
		if v.VEX == nil || v.VEX.Category != tc.want {
			t.Fatalf("lodash %s in a %.1f MiB lockfile: %s %s %+v", tc.lodash, float64(len(lock))/(1<<20), v.Status, v.Reason, v.VEX)
		}
		if strings.Contains(v.Explanation, "unreadable") || strings.Contains(v.Explanation, "read limit") {
			t.Errorf("explanation: %s", v.Explanation)
		}
		// lodash's entry: after the header's 10 lines and the 6 of each package before it
		if tc.want == "vulnerable" && (len(v.Findings) != 1 || v.Findings[0].File != "package-lock.json" || v.Findings[0].StartLine != 11+6*(8000-3)) {
			t.Errorf("findings %+v", v.Findings)
		}
	}
}
