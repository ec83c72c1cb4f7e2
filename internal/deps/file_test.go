package deps_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/deps"
)

func TestManifestKind(t *testing.T) {
	for p, want := range map[string]string{
		"go.mod":                             "go.mod",
		"svc/go.mod":                         "go.mod",
		"go.sum":                             "",
		"requirements.txt":                   "requirements",
		"requirements-dev.txt":               "requirements",
		"requirements/tests.txt":             "requirements",
		"requirements/tests.in":              "requirements",
		"docs/constraints.txt":               "requirements",
		"notes.txt":                          "",
		"pyproject.toml":                     "pyproject.toml",
		"Pipfile.lock":                       "Pipfile.lock",
		"uv.lock":                            "uv.lock",
		"setup.cfg":                          "setup.cfg",
		"pom.xml":                            "pom.xml",
		"app/build.gradle.kts":               "build.gradle",
		"gradle/libs.versions.toml":          "libs.versions.toml",
		"gradle/deps.versions.toml":          "libs.versions.toml",
		"other/deps.versions.toml":           "",
		"web/package.json":                   "package.json",
		"yarn.lock":                          "yarn.lock",
		"pnpm-lock.yaml":                     "pnpm-lock.yaml",
		"node_modules/x/package.json":        "",
		"vendor/example.com/a/go.mod":        "",
		"lib/site-packages/x/pyproject.toml": "",
	} {
		if got := deps.ManifestKind(p); got != want {
			t.Errorf("ManifestKind(%q) = %q, want %q", p, got, want)
		}
	}
}

// dep is what the tests compare of a dependency.
type dep struct {
	Eco, Name, Version, Range string
	Line                      int
}

func TestExtractFile(t *testing.T) {
	for _, tt := range []struct {
		path, content string
		want          []dep
	}{
		{"go.mod", "module example.com/m\n\ngo 1.21\n\nrequire (\n\tgopkg.in/yaml.v3 v3.0.0-20200313102051-9f266ea9e77c\n\tgithub.com/a/b v1.2.3 // indirect\n)\n",
			[]dep{{"Go", "stdlib", "1.21", "", 3}, {"Go", "gopkg.in/yaml.v3", "3.0.0-20200313102051-9f266ea9e77c", "", 6}, {"Go", "github.com/a/b", "1.2.3", "", 7}}},
		{"requirements/tests.txt", "# pip-compile output\nwerkzeug==2.3.3\n    # via flask\npytest>=7.0\n",
			[]dep{{"PyPI", "werkzeug", "2.3.3", "", 2}, {"PyPI", "pytest", "", ">=7.0", 4}}},
		{"setup.cfg", "[metadata]\nname = app\n\n[options]\ninstall_requires =\n    requests>=2.20\n    urllib3==1.26.4\n\n[options.extras_require]\ntest =\n    pytest\n",
			[]dep{{"PyPI", "requests", "", ">=2.20", 6}, {"PyPI", "urllib3", "1.26.4", "", 7}, {"PyPI", "pytest", "", "", 11}}},
		{"package.json", "{\n  \"name\": \"app\",\n  \"dependencies\": {\n    \"lodash\": \"^4.17.11\",\n    \"express\": \"4.17.1\"\n  },\n  \"devDependencies\": {\"mocha\": \"~9.0.0\"}\n}\n",
			[]dep{{"npm", "lodash", "", "^4.17.11", 4}, {"npm", "express", "4.17.1", "", 5}, {"npm", "mocha", "", "~9.0.0", 7}}},
		{"build.gradle", "def jacksonVersion = '2.9.8'\ndependencies {\n    implementation 'org.apache.commons:commons-text:1.9'\n    implementation \"com.fasterxml.jackson.core:jackson-databind:$jacksonVersion\"\n    // implementation 'x:y:1.0'\n    compile group: 'log4j', name: 'log4j', version: '1.2.17'\n}\n",
			[]dep{{"Maven", "org.apache.commons:commons-text", "1.9", "", 3}, {"Maven", "com.fasterxml.jackson.core:jackson-databind", "2.9.8", "", 4}, {"Maven", "log4j:log4j", "1.2.17", "", 6}}},
		{"pom.xml", `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>app</artifactId>
  <version>1.0</version>
  <properties>
    <jackson.version>2.9.8</jackson.version>
  </properties>
  <dependencies>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>${jackson.version}</version>
    </dependency>
  </dependencies>
</project>
`, []dep{{"Maven", "com.fasterxml.jackson.core:jackson-databind", "2.9.8", "", 10}}},
		{"yarn.lock", "# yarn lockfile v1\n\n\nlodash@^4.17.11:\n  version \"4.17.11\"\n  resolved \"https://registry.yarnpkg.com/lodash/-/lodash-4.17.11.tgz\"\n",
			[]dep{{"npm", "lodash", "4.17.11", "", 4}}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			ds, err := deps.ExtractFile(context.Background(), tt.path, []byte(tt.content))
			if err != nil {
				t.Fatal(err)
			}
			var got []dep
			for _, d := range ds {
				got = append(got, dep{d.Ecosystem, d.Name, d.Version, d.Range, d.Line})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ExtractFile (-want +got):\n%s", diff)
			}
		})
	}
}

// A manifest its parser refuses is a Problem naming the file; a file that is no manifest is nothing.
func TestExtractFileBad(t *testing.T) {
	_, err := deps.ExtractFile(context.Background(), "web/package.json", []byte("{not json"))
	var p *deps.Problem
	if !errors.As(err, &p) || p.File != "web/package.json" {
		t.Errorf("bad package.json: %v, want a Problem of web/package.json", err)
	}
	ds, err := deps.ExtractFile(context.Background(), "README.md", []byte("requests==1.0"))
	if err != nil || ds != nil {
		t.Errorf("README.md: %v, %v; want nothing", ds, err)
	}
}

func TestFloor(t *testing.T) {
	for _, tt := range []struct {
		eco, version, rng string
		want              string
		ranged            bool
	}{
		{"PyPI", "2.3.3", "", "2.3.3", false},
		{"PyPI", "", ">=2.3.7", "2.3.7", true},
		{"PyPI", "", ">=2.0,<3", "2.0", true},
		{"PyPI", "", "<3,>=2.1", "2.1", true},
		{"PyPI", "", "~=1.4", "1.4", true},
		{"PyPI", "", "==1.4.*", "1.4", true},
		{"PyPI", "", "<3", "", false},
		{"npm", "", "^4.17.11", "4.17.11", true},
		{"npm", "", "~9.0.0", "9.0.0", true},
		{"npm", "", "1.2.3 - 2.0.0", "1.2.3", true},
		{"npm", "", "^1.0.0 || ^2.0.0", "", false},
		{"npm", "", "github:user/repo", "", false},
		{"Maven", "", "[1.2.0,2.0)", "1.2.0", true},
		{"Maven", "", "(,1.0]", "", false},
	} {
		got, ranged := deps.Floor(deps.Dependency{Ecosystem: tt.eco, Version: tt.version, Range: tt.rng})
		if got != tt.want || ranged != tt.ranged {
			t.Errorf("Floor(%s %q %q) = %q %v, want %q %v", tt.eco, tt.version, tt.rng, got, ranged, tt.want, tt.ranged)
		}
	}
}
