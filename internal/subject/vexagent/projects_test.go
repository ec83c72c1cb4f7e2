package vexagent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/subject/sca"
	"github.com/vulnbench/vulnbench/internal/subject/vexagent"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Hand-written advisories for the Python and Java projects (ids of the 2099 series: none is
// real, so nothing is mistaken for a real record's facts).
var projectAdvisories = map[string]string{
	"GHSA-py01-yaml-load1.json": `{"id":"GHSA-py01-yaml-load1","modified":"2024-01-01T00:00:00Z","aliases":["CVE-2099-0101"],
"summary":"Arbitrary code execution in PyYAML's full_load","details":"yaml.load with FullLoader constructs arbitrary Python objects from untrusted input.",
"affected":[{"package":{"ecosystem":"PyPI","name":"pyyaml"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"5.4"}]}]}]}`,
	"GHSA-py02-werk-debug.json": `{"id":"GHSA-py02-werk-debug","modified":"2024-01-01T00:00:00Z","aliases":["CVE-2099-0102"],
"summary":"Werkzeug debugger console reachable","details":"When the interactive debugger is enabled (debug=True), a remote user can run code in the debugger console.",
"affected":[{"package":{"ecosystem":"PyPI","name":"werkzeug"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"2.2.3"}]}]}]}`,
	"GHSA-py03-wait-win32.json": `{"id":"GHSA-py03-wait-win32","modified":"2024-01-01T00:00:00Z","aliases":["CVE-2099-0103"],
"summary":"Path traversal in waitress on Windows","details":"On Windows, a backslash in the request path escapes the served directory. Other platforms are not affected.",
"affected":[{"package":{"ecosystem":"PyPI","name":"waitress"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"3.0.1"}]}]}]}`,
	"GHSA-jv01-jack-nest.json": `{"id":"GHSA-jv01-jack-nest","modified":"2024-01-01T00:00:00Z","aliases":["CVE-2099-0201"],
"summary":"Deeply nested JSON exhausts the stack in jackson-databind","details":"ObjectMapper.readValue of untrusted, deeply nested input throws StackOverflowError.",
"affected":[{"package":{"ecosystem":"Maven","name":"com.fasterxml.jackson.core:jackson-databind"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"2.13.2.1"}]}]}]}`,
	"GHSA-jv02-jack-type.json": `{"id":"GHSA-jv02-jack-type","modified":"2024-01-01T00:00:00Z","aliases":["CVE-2099-0202"],
"summary":"Polymorphic deserialization gadget in jackson-databind","details":"Exploitable only when default typing is enabled (ObjectMapper.enableDefaultTyping or activateDefaultTyping), which is off by default.",
"affected":[{"package":{"ecosystem":"Maven","name":"com.fasterxml.jackson.core:jackson-databind"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"2.13.2.1"}]}]}]}`,
	"GHSA-jv03-nett-win32.json": `{"id":"GHSA-jv03-nett-win32","modified":"2024-01-01T00:00:00Z","aliases":["CVE-2099-0203"],
"summary":"netty-common reads an attacker-placed file on Windows","details":"On Windows, Netty loads a file from the current working directory at startup. Unix-like systems are not affected.",
"affected":[{"package":{"ecosystem":"Maven","name":"io.netty:netty-common"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"4.1.115.Final"}]}]}]}`,
}

func pom(deps ...string) string {
	var b strings.Builder
	b.WriteString("<project>\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.acme</groupId>\n  <artifactId>svc</artifactId>\n  <version>1.0</version>\n  <dependencies>\n")
	for _, d := range deps {
		p := strings.Split(d, ":") // group:artifact:version[:scope]
		b.WriteString("    <dependency><groupId>" + p[0] + "</groupId><artifactId>" + p[1] + "</artifactId><version>" + p[2] + "</version>")
		if len(p) == 4 {
			b.WriteString("<scope>" + p[3] + "</scope>")
		}
		b.WriteString("</dependency>\n")
	}
	b.WriteString("  </dependencies>\n</project>\n")
	return b.String()
}

const (
	pyLoad = "import yaml\n\n\ndef load_config(text):\n    return yaml.load(text, Loader=yaml.FullLoader)\n\n\ndef handle(request):\n    return load_config(request.body)\n"
	pyTest = "import yaml\n\n\ndef test_fixture():\n    assert yaml.load(\"a: 1\", Loader=yaml.FullLoader) == {\"a\": 1}\n"
	jvRead = "package com.acme;\n\nimport com.fasterxml.jackson.databind.ObjectMapper;\n\npublic class Api {\n" +
		"  private final ObjectMapper mapper = new ObjectMapper();\n\n  Object parse(String body) throws Exception {\n    return mapper.readValue(body, Object.class);\n  }\n\n" +
		"  public Object handle(String body) throws Exception {\n    return parse(body);\n  }\n}\n"
	jvTest = "package com.acme;\n\nimport com.fasterxml.jackson.databind.ObjectMapper;\n\nclass ApiTest {\n" +
		"  void roundTrip() throws Exception {\n    new ObjectMapper().readValue(\"{}\", Object.class);\n  }\n}\n"
	jvMain = "package com.acme;\n\npublic class Api {\n  public String handle(String body) {\n    return body.trim();\n  }\n}\n"
)

type step struct{ tool, args, want string }

// One project per VEX-Bench category that has a ground-truth meaning, in Python and in Java:
// the scripted agent asks what an analyst would, each observation is compared with what the tool
// must return on that tree, and it answers the truth. sca runs on the same projects: version
// matching calls every present affected version vulnerable.
var projects = []struct {
	id, lang, cve, truth, sca string
	files                     map[string]string
	steps                     []step
}{
	{id: "py-vulnerable", lang: "python", cve: "CVE-2099-0101", truth: "vulnerable", sca: "vulnerable",
		files: map[string]string{"requirements.txt": "flask==2.3.2\nPyYAML==5.3\n", "app/config.py": pyLoad},
		steps: []step{
			{"get_advisory", `{"id": "CVE-2099-0101"}`, "GHSA-py01-yaml-load1 (aliases: CVE-2099-0101)\nSummary: Arbitrary code execution in PyYAML's full_load\n" +
				"Details: yaml.load with FullLoader constructs arbitrary Python objects from untrusted input.\nAffected: PyPI pyyaml\n  ECOSYSTEM range: introduced 0, fixed 5.4"},
			{"find_dependency", `{"package": "pyyaml"}`, "pyyaml: 1 entries\nPyPI PyYAML 5.3 at requirements.txt:2 (direct)"},
			{"search", `{"pattern": "yaml\\.load\\("}`, "app/config.py:5: return yaml.load(text, Loader=yaml.FullLoader)"},
			{"get_callers", `{"function": "load_config"}`, "1 call sites of load_config:\napp/config.py:9 in handle"},
		}},
	{id: "py-code_not_present", lang: "python", cve: "CVE-2099-0101", truth: "code_not_present", sca: "code_not_present",
		files: map[string]string{"requirements.txt": "flask==2.3.2\n", "app/config.py": "import json\n\n\ndef load_config(text):\n    return json.loads(text)\n"},
		steps: []step{
			{"find_dependency", `{"package": "pyyaml"}`, "No manifest, lockfile or vendored module of the repository names pyyaml.\nManifests read (1): requirements.txt"},
			{"search", `{"pattern": "import yaml"}`, "No line matches import yaml."},
		}},
	{id: "py-code_not_reachable", lang: "python", cve: "CVE-2099-0101", truth: "code_not_reachable", sca: "vulnerable",
		files: map[string]string{"requirements.txt": "PyYAML==5.3\n", "app/main.py": "def main():\n    print(\"hi\")\n", "tests/test_fixture.py": pyTest},
		steps: []step{
			{"find_dependency", `{"package": "PyYAML"}`, "PyYAML: 1 entries\nPyPI PyYAML 5.3 at requirements.txt:1 (direct)"},
			{"search", `{"pattern": "yaml\\."}`, "tests/test_fixture.py:5: assert yaml.load(\"a: 1\", Loader=yaml.FullLoader) == {\"a\": 1}"},
			{"get_callers", `{"function": "test_fixture"}`, "Nothing in the repository calls test_fixture."},
		}},
	{id: "py-requires_configuration", lang: "python", cve: "CVE-2099-0102", truth: "requires_configuration", sca: "vulnerable",
		files: map[string]string{"requirements.txt": "werkzeug==2.2.2\n", "app/settings.py": "DEBUG = False\n",
			"app/serve.py": "from werkzeug.serving import run_simple\n\nfrom app import settings\n\n\ndef serve(app):\n    run_simple(\"0.0.0.0\", 8080, app, use_debugger=settings.DEBUG)\n"},
		steps: []step{
			{"find_dependency", `{"package": "werkzeug"}`, "werkzeug: 1 entries\nPyPI werkzeug 2.2.2 at requirements.txt:1 (direct)"},
			{"search", `{"pattern": "use_debugger|debug="}`, "app/serve.py:7: run_simple(\"0.0.0.0\", 8080, app, use_debugger=settings.DEBUG)"},
			{"read_file", `{"path": "app/settings.py"}`, "app/settings.py lines 1-1 of 1:\n1\tDEBUG = False"},
		}},
	{id: "py-requires_environment", lang: "python", cve: "CVE-2099-0103", truth: "requires_environment", sca: "vulnerable",
		files: map[string]string{"requirements.txt": "waitress==2.1.2\n", "Dockerfile": "FROM python:3.12-slim\nCOPY . /app\nCMD [\"waitress-serve\", \"app:app\"]\n",
			"app/__init__.py": "def app(environ, start_response):\n    start_response(\"200 OK\", [])\n    return [b\"ok\"]\n"},
		steps: []step{
			{"get_advisory", `{"id": "CVE-2099-0103"}`, "GHSA-py03-wait-win32 (aliases: CVE-2099-0103)\nSummary: Path traversal in waitress on Windows\n" +
				"Details: On Windows, a backslash in the request path escapes the served directory. Other platforms are not affected.\nAffected: PyPI waitress\n  ECOSYSTEM range: introduced 0, fixed 3.0.1"},
			{"find_dependency", `{"package": "waitress"}`, "waitress: 1 entries\nPyPI waitress 2.1.2 at requirements.txt:1 (direct)"},
			{"list_dir", `{"path": "."}`, ".: 3 entries\nDockerfile (68 bytes)\napp/\nrequirements.txt (16 bytes)"},
			{"read_file", `{"path": "Dockerfile", "start_line": 1, "end_line": 1}`, "Dockerfile lines 1-1 of 3:\n1\tFROM python:3.12-slim"},
		}},
	{id: "java-vulnerable", lang: "java", cve: "CVE-2099-0201", truth: "vulnerable", sca: "vulnerable",
		files: map[string]string{"pom.xml": pom("com.fasterxml.jackson.core:jackson-databind:2.13.1"), "src/main/java/com/acme/Api.java": jvRead},
		steps: []step{
			{"find_dependency", `{"package": "com.fasterxml.jackson.core:jackson-databind"}`, "com.fasterxml.jackson.core:jackson-databind: 1 entries\nMaven com.fasterxml.jackson.core:jackson-databind 2.13.1 at pom.xml:7 (direct)"},
			{"search", `{"pattern": "readValue\\("}`, "src/main/java/com/acme/Api.java:9: return mapper.readValue(body, Object.class);"},
			{"get_callers", `{"function": "parse"}`, "1 call sites of parse:\nsrc/main/java/com/acme/Api.java:13 in Api.handle"},
		}},
	{id: "java-code_not_present", lang: "java", cve: "CVE-2099-0201", truth: "code_not_present", sca: "code_not_present",
		files: map[string]string{"pom.xml": pom("com.google.code.gson:gson:2.10.1"), "src/main/java/com/acme/Api.java": jvMain},
		steps: []step{
			{"find_dependency", `{"package": "jackson-databind"}`, "No manifest, lockfile or vendored module of the repository names jackson-databind.\nManifests read (1): pom.xml"},
		}},
	{id: "java-code_not_reachable", lang: "java", cve: "CVE-2099-0201", truth: "code_not_reachable", sca: "vulnerable",
		files: map[string]string{"pom.xml": pom("com.fasterxml.jackson.core:jackson-databind:2.13.1:test"),
			"src/main/java/com/acme/Api.java": jvMain, "src/test/java/com/acme/ApiTest.java": jvTest},
		steps: []step{
			{"find_dependency", `{"package": "jackson-databind"}`, "jackson-databind: 1 entries\nMaven com.fasterxml.jackson.core:jackson-databind 2.13.1 at pom.xml:7 (direct; scopes test)"},
			{"search", `{"pattern": "ObjectMapper", "path": "src/main"}`, "No line matches ObjectMapper."},
		}},
	{id: "java-requires_configuration", lang: "java", cve: "CVE-2099-0202", truth: "requires_configuration", sca: "vulnerable",
		files: map[string]string{"pom.xml": pom("com.fasterxml.jackson.core:jackson-databind:2.13.1"), "src/main/java/com/acme/Api.java": jvRead},
		steps: []step{
			{"get_advisory", `{"id": "GHSA-jv02-jack-type"}`, "GHSA-jv02-jack-type (aliases: CVE-2099-0202)\nSummary: Polymorphic deserialization gadget in jackson-databind\n" +
				"Details: Exploitable only when default typing is enabled (ObjectMapper.enableDefaultTyping or activateDefaultTyping), which is off by default.\n" +
				"Affected: Maven com.fasterxml.jackson.core:jackson-databind\n  ECOSYSTEM range: introduced 0, fixed 2.13.2.1"},
			{"search", `{"pattern": "enableDefaultTyping|activateDefaultTyping"}`, "No line matches enableDefaultTyping|activateDefaultTyping."},
		}},
	{id: "java-requires_environment", lang: "java", cve: "CVE-2099-0203", truth: "requires_environment", sca: "vulnerable",
		files: map[string]string{"pom.xml": pom("io.netty:netty-common:4.1.100.Final"), "Dockerfile": "FROM eclipse-temurin:21-jre\nCOPY target/svc.jar /svc.jar\n",
			"src/main/java/com/acme/Api.java": jvMain},
		steps: []step{
			{"find_dependency", `{"package": "io.netty:netty-common"}`, "io.netty:netty-common: 1 entries\nMaven io.netty:netty-common 4.1.100.Final at pom.xml:7 (direct)"},
			{"read_file", `{"path": "Dockerfile"}`, "Dockerfile lines 1-2 of 2:\n1\tFROM eclipse-temurin:21-jre\n2\tCOPY target/svc.jar /svc.jar"},
		}},
}

func TestScriptedAgentOnPythonAndJavaProjects(t *testing.T) {
	dir := t.TempDir()
	adv := filepath.Join(dir, "adv")
	if err := os.MkdirAll(adv, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range projectAdvisories {
		if err := os.WriteFile(filepath.Join(adv, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var cases []*suite.Case
	replies := map[string][]llmtest.Reply{} // by project URL
	for _, p := range projects {
		commit := gittest.Repo(t, filepath.Join(dir, "repos", "acme", p.id), p.files)
		url := "https://github.com/acme/" + p.id
		label := "ben"
		if p.truth == "vulnerable" {
			label = "vul"
		}
		b, _ := json.Marshal(map[string]any{"id": p.id, "kind": "vex", "label": label, "cve": p.cve, "language": p.lang,
			"repo": map[string]string{"url": url, "commit": commit}, "vex": map[string]string{"category": p.truth}})
		cases = append(cases, subjecttest.Case(t, string(b)))
		var rs []llmtest.Reply
		for i, s := range p.steps {
			rs = append(rs, llmtest.Call(llmtest.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: s.tool, Arguments: s.args}))
		}
		answer, _ := json.Marshal(map[string]string{"category": p.truth, "reasoning": "scripted: " + p.id})
		replies[url] = append(rs, llmtest.Reply{Text: string(answer)})
	}
	// One server for every case: a request's project is read from its user prompt, its turn from
	// the conversation, and the tool results it carries are kept per project in order.
	projectOf := regexp.MustCompile(`Project: (\S+)`)
	var mu sync.Mutex
	seen := map[string][]string{}
	script := func(r llmtest.Request) llmtest.Reply {
		var url string
		for _, m := range r.Messages {
			if m.Role == "user" {
				if x := projectOf.FindStringSubmatch(m.Content); x != nil {
					url = x[1]
					break
				}
			}
		}
		rs, ok := replies[url]
		if !ok {
			return llmtest.Reply{Status: 400, ErrorMessage: "llmtest: no script for project " + url}
		}
		mu.Lock()
		for _, tr := range r.ToolResults() {
			seen[url] = append(seen[url], tr.Content)
		}
		mu.Unlock()
		return rs[min(r.Turn(), len(rs)-1)]
	}
	repos := subjecttest.Repos(filepath.Join(dir, "repos"))
	agentV, scaV := map[string]verdict.Verdict{}, map[string]verdict.Verdict{}
	for _, c := range cases {
		agentV[c.ID], _ = subjecttest.RunUnit(t, vexagent.Kind(), map[string]string{"max-retries": "0", "advisories": adv}, c, script, repos)
		scaV[c.ID], _ = subjecttest.RunUnit(t, sca.Kind(), map[string]string{"advisories": adv}, c, nil, repos)
	}

	var ids []string
	for _, p := range projects {
		ids = append(ids, p.id)
		t.Run(p.id, func(t *testing.T) {
			var want []string
			for _, s := range p.steps {
				want = append(want, s.want)
			}
			if d := cmp.Diff(want, seen["https://github.com/acme/"+p.id]); d != "" {
				t.Errorf("observations (-want +shown):\n%s", d)
			}
			v := agentV[p.id]
			got := fmt.Sprintf("%s %s tools=%d", v.Status, category(v), v.Usage.ToolCalls)
			if d := cmp.Diff(fmt.Sprintf("ok %s tools=%d", p.truth, len(p.steps)), got); d != "" {
				t.Errorf("vex-agent verdict (-want +got):\n%s\n%+v", d, v)
			}
			if got := string(scaV[p.id].Status) + " " + category(scaV[p.id]); got != "ok "+p.sca {
				t.Errorf("sca: %s, want ok %s (%s)", got, p.sca, scaV[p.id].Explanation)
			}
		})
	}
	if len(agentV) != len(projects) || len(scaV) != len(projects) {
		t.Errorf("verdicts: agent %d, sca %d, want %d each (%v)", len(agentV), len(scaV), len(projects), ids)
	}
}

func category(v verdict.Verdict) string {
	if v.VEX == nil {
		return "<no vex answer: " + v.Reason + ">"
	}
	return v.VEX.Category
}
