package deps_test

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vulnbench/vulnbench/internal/deps"
	"github.com/vulnbench/vulnbench/internal/gittest"
)

// monorepo is a tree with one module per ecosystem and manifest kind.
func monorepo() map[string]string {
	return map[string]string{
		"svc/go.mod": `module example.com/svc

go 1.22

require (
	github.com/gorilla/websocket v1.4.0
	golang.org/x/net v0.17.0 // indirect
)

require github.com/old/thing v1.0.0

replace github.com/old/thing => github.com/new/thing v1.2.0
`,
		"svc/vendor/modules.txt": `# github.com/gorilla/websocket v1.4.0
## explicit
github.com/gorilla/websocket
`,
		"svc/vendor/github.com/gorilla/websocket/go.mod": "module github.com/gorilla/websocket\n\nrequire github.com/should/not v9.9.9\n",
		"py/requirements.txt":                            "# pinned\nrequests==2.19.0\nflask>=1.0,<2\n\nDjango_Rest~=3.1\n",
		"poetry/pyproject.toml": `[project]
name = "app"
version = "0.1.0"
dependencies = ["PyYAML>=5.1", "jinja2==3.1.2; python_version > '3.8'"]

[project.optional-dependencies]
test = ["pytest"]
`,
		"poetry/poetry.lock": `[[package]]
name = "pyyaml"
version = "5.3.1"
description = ""
optional = false
python-versions = "*"

[[package]]
name = "markupsafe"
version = "2.1.3"
description = ""
optional = false
python-versions = "*"
`,
		"java/pom.xml": `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>app</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>2.9.8</version>
    </dependency>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.12</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
`,
		"gradle/gradle.lockfile": "# This is a Gradle generated file\norg.apache.commons:commons-text:1.9=compileClasspath,runtimeClasspath\nempty=\n",
		"web/package.json":       `{"name": "web", "dependencies": {"lodash": "^4.17.0"}}`,
		"web/package-lock.json": `{"name": "web", "lockfileVersion": 3, "requires": true, "packages": {
  "": {"name": "web", "dependencies": {"lodash": "^4.17.0"}},
  "node_modules/lodash": {"version": "4.17.20"},
  "node_modules/minimist": {"version": "1.2.5"}
}}`,
		"web/node_modules/lodash/package.json": `{"name": "lodash", "version": "4.17.20"}`,
	}
}

func writeTree(t *testing.T, files map[string]string) string { return writeTreeB(t, files) }

func writeTreeB(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gittest.WriteFiles(t, dir, files)
	return dir
}

func dirFS(dir string) deps.FS { return os.DirFS(dir).(deps.FS) }

func TestExtractMonorepo(t *testing.T) {
	dir := writeTree(t, monorepo())
	facts, err := deps.Extract(context.Background(), dirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(facts.Problems) > 0 {
		t.Fatalf("problems: %v", facts.Problems)
	}
	type fact struct {
		Eco, Name, Version, Range, Manifest string
		Line                                int
		Direct                              string
		Scopes                              []string
	}
	var got []fact
	for _, d := range facts.Deps {
		got = append(got, fact{d.Ecosystem, d.Name, d.Version, d.Range, d.Manifest, d.Line, d.Direct, d.Scopes})
	}
	want := []fact{
		{"Maven", "org.apache.commons:commons-text", "1.9", "", "gradle/gradle.lockfile", 2, deps.Unknown, nil}, // scalibr keeps no configurations
		{"Maven", "com.fasterxml.jackson.core:jackson-databind", "2.9.8", "", "java/pom.xml", 8, deps.Direct, nil},
		{"Maven", "junit:junit", "4.12", "", "java/pom.xml", 13, deps.Direct, []string{"test"}},
		{"PyPI", "pyyaml", "5.3.1", "", "poetry/poetry.lock", 2, deps.Direct, nil},
		{"PyPI", "markupsafe", "2.1.3", "", "poetry/poetry.lock", 9, deps.Indirect, nil},
		{"PyPI", "PyYAML", "", ">=5.1", "poetry/pyproject.toml", 4, deps.Direct, nil},
		{"PyPI", "jinja2", "3.1.2", "", "poetry/pyproject.toml", 4, deps.Direct, nil},
		{"PyPI", "pytest", "", "", "poetry/pyproject.toml", 7, deps.Direct, []string{"test"}},
		{"PyPI", "requests", "2.19.0", "", "py/requirements.txt", 2, deps.Direct, nil},
		{"PyPI", "flask", "", ">=1.0,<2", "py/requirements.txt", 3, deps.Direct, nil},
		{"PyPI", "Django_Rest", "", "~=3.1", "py/requirements.txt", 5, deps.Direct, nil},
		{"Go", "stdlib", "1.22", "", "svc/go.mod", 3, deps.Unknown, nil},
		{"Go", "github.com/gorilla/websocket", "1.4.0", "", "svc/go.mod", 6, deps.Direct, nil},
		{"Go", "golang.org/x/net", "0.17.0", "", "svc/go.mod", 7, deps.Indirect, nil},
		{"Go", "github.com/new/thing", "1.2.0", "", "svc/go.mod", 12, deps.Direct, nil},
		{"Go", "github.com/gorilla/websocket", "1.4.0", "", "svc/vendor/modules.txt", 1, deps.Unknown, nil},
		{"npm", "lodash", "4.17.20", "", "web/package-lock.json", 3, deps.Direct, nil},
		{"npm", "minimist", "1.2.5", "", "web/package-lock.json", 4, deps.Indirect, nil},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("facts (-want +got):\n%s", d)
	}
	wantManifests := []string{"gradle/gradle.lockfile", "java/pom.xml", "poetry/poetry.lock", "poetry/pyproject.toml",
		"py/requirements.txt", "svc/go.mod", "svc/vendor/modules.txt", "web/package-lock.json"}
	if d := cmp.Diff(wantManifests, facts.Manifests); d != "" {
		t.Errorf("manifests (-want +got):\n%s", d)
	}
	if got := facts.Find("PyYaml"); len(got) != 2 {
		t.Errorf("Find(PyYaml) = %v", got)
	}
	if got := facts.Find("jackson-databind"); len(got) != 1 || got[0].Module != "java" {
		t.Errorf("Find(jackson-databind) = %v", got)
	}
}

func TestExtractProblems(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a/go.mod":           "module x\n\nrequire (\n\tgithub.com/a/b\n)\n",
		"b/pom.xml":          "<project><dependencies><dependency>",
		"c/requirements.txt": "requests==2.0\n",
	})
	facts, err := deps.Extract(context.Background(), dirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, p := range facts.Problems {
		msgs = append(msgs, p.Error())
	}
	if len(msgs) != 2 || len(facts.Deps) != 1 || facts.Deps[0].Name != "requests" {
		t.Errorf("problems %q, deps %v", msgs, facts.Deps)
	}
	want := "a/go.mod:4:2: usage: require module/path v1.2.3 (go/gomod)"
	if len(msgs) > 0 && msgs[0] != want {
		t.Errorf("first problem = %q\nwant %q", msgs[0], want)
	}
}

// Where a fact is found, on the two manifests real projects showed wrong (fastapi's pyproject.toml
// names starlette quoted in a linter setting far below its requirement; go-zero's go.mod predates
// go 1.17, so scalibr completes it with go.sum's modules, which go.mod does not name).
func TestLinesOnRealManifestShapes(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"py/pyproject.toml": `[project]
name = "app"
dependencies = [
    "starlette>=0.37.2,<0.41.0",
    "pydantic[email] >=1.7.4",
]

[tool.ruff.lint.isort]
known-third-party = ["starlette", "pydantic"]
`,
		"go/go.mod": "module example.com/old\n\ngo 1.16\n\nrequire github.com/a/b v1.0.0\n",
		"go/go.sum": "github.com/a/b v1.0.0 h1:x=\ngithub.com/a/b v1.0.0/go.mod h1:y=\ngolang.org/x/text v0.4.0 h1:z=\ngolang.org/x/text v0.4.0/go.mod h1:w=\n",
	})
	facts, err := deps.Extract(context.Background(), dirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	type fact struct {
		Name, Manifest string
		Line           int
		Direct         string
	}
	var got []fact
	for _, d := range facts.Deps {
		if d.Name != "stdlib" {
			got = append(got, fact{d.Name, d.Manifest, d.Line, d.Direct})
		}
	}
	want := []fact{
		{"github.com/a/b", "go/go.mod", 5, deps.Direct},
		{"golang.org/x/text", "go/go.sum", 3, deps.Indirect},
		{"starlette", "py/pyproject.toml", 4, deps.Direct},
		{"pydantic", "py/pyproject.toml", 5, deps.Direct},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("facts (-want +got):\n%s", d)
	}
}
