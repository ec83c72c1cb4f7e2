package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/agent/tools"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

const goVuln = `{"id":"GO-2020-0019","modified":"2023-01-01T00:00:00Z","aliases":["CVE-2020-27813","GHSA-3xh2-74w9-5vxm"],
"summary":"Integer overflow in github.com/gorilla/websocket","details":"An attacker can cause a denial of service.",
"affected":[{"package":{"name":"github.com/gorilla/websocket","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.4.1"}]}],
"ecosystem_specific":{"imports":[{"path":"github.com/gorilla/websocket","symbols":["Conn.advanceFrame"]}]}}],
"references":[{"type":"FIX","url":"https://github.com/gorilla/websocket/pull/537"}]}`

func setup(t *testing.T) map[string]agent.Tool {
	t.Helper()
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	files := map[string]string{
		"go.mod":         "module example.com/app\n\ngo 1.21\n\nrequire (\n\tgithub.com/gorilla/websocket v1.4.0\n\tgolang.org/x/net v0.17.0 // indirect\n)\n",
		"main.go":        "package main\n\nimport \"github.com/gorilla/websocket\"\n\nvar u = websocket.Upgrader{}\n\nfunc main() {}\n",
		"internal/a.go":  "package internal\n\n// EnableCompression turns permessage-deflate on.\nconst EnableCompression = false\n",
		"docs/README.md": strings.Repeat("websocket line\n", 150),
		"many/.keep":     "",
		"tools/go.mod":   "module example.com/tools\n\ngo 1.21\n",
	}
	for i := 0; i < tools.MaxDirEntries+5; i++ {
		files[fmt.Sprintf("many/f%03d.txt", i)] = "x"
	}
	commit := gittest.Repo(t, repo, files)
	cache, err := snapshot.NewCache(filepath.Join(dir, "cache"), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := cache.Get(context.Background(), repo, commit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	adv := filepath.Join(dir, "adv")
	os.MkdirAll(adv, 0o755)
	os.WriteFile(filepath.Join(adv, "GO-2020-0019.json"), []byte(goVuln), 0o644)
	db, err := advisory.Open(adv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	m := map[string]agent.Tool{}
	for _, tl := range []agent.Tool{tools.ListDir(snap), tools.ReadFile(snap), tools.Search(snap), tools.FindDependency(snap), tools.GetAdvisory(db)} {
		m[tl.Name] = tl
	}
	return m
}

func run(t *testing.T, tl agent.Tool, args string) string {
	t.Helper()
	out, err := tl.Run(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", tl.Name, args, err)
	}
	return out
}

func TestObservations(t *testing.T) {
	ts := setup(t)
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"list_dir", `{"path": ""}`, "" +
			".: 6 entries\ndocs/\ngo.mod (120 bytes)\ninternal/\nmain.go (98 bytes)\nmany/\ntools/"},
		{"list_dir", `{"path": "./internal"}`, "internal: 1 entries\na.go (100 bytes)"},
		{"list_dir", `{"path": "../.."}`, "Cannot list ../..: "},
		{"list_dir", `{"path": 3}`, "The arguments could not be read: "},
		{"read_file", `{"path": "main.go", "start_line": 3, "end_line": "5"}`,
			"main.go lines 3-5 of 7:\n3\timport \"github.com/gorilla/websocket\"\n4\t\n5\tvar u = websocket.Upgrader{}"},
		{"read_file", `{"path": "nope.go"}`, "Cannot read nope.go: "},
		{"search", `{"pattern": "EnableCompression\\s*="}`, "internal/a.go:4: const EnableCompression = false"},
		{"search", `{"pattern": "("}`, "The pattern is not a valid regular expression: "},
		{"find_dependency", `{"package": "github.com/gorilla/websocket"}`,
			"github.com/gorilla/websocket: 1 entries\nGo github.com/gorilla/websocket 1.4.0 at go.mod:6 (direct)"},
		{"find_dependency", `{"package": "golang.org/x/net"}`,
			"golang.org/x/net: 1 entries\nGo golang.org/x/net 0.17.0 at go.mod:7 (indirect)"},
		{"find_dependency", `{"package": "gorilla/mux"}`,
			"No manifest, lockfile or vendored module of the repository names gorilla/mux.\nManifests read (2): go.mod tools/go.mod"},
		{"find_dependency", `{"package": "websocket"}`,
			"No manifest, lockfile or vendored module of the repository names websocket.\nSimilar names: Go github.com/gorilla/websocket\nManifests read (2): go.mod tools/go.mod"},
		{"find_dependency", `{}`, `The argument "package" is required: a package name.`},
		{"get_advisory", `{"id": "cve-2020-27813"}`, "" +
			"GO-2020-0019 (aliases: CVE-2020-27813, GHSA-3xh2-74w9-5vxm)\n" +
			"Summary: Integer overflow in github.com/gorilla/websocket\n" +
			"Details: An attacker can cause a denial of service.\n" +
			"Affected: Go github.com/gorilla/websocket\n" +
			"  SEMVER range: introduced 0, fixed 1.4.1\n" +
			"  vulnerable symbols: github.com/gorilla/websocket.Conn.advanceFrame\n" +
			"Reference: https://github.com/gorilla/websocket/pull/537"},
		{"get_advisory", `{"id": "CVE-1999-0001"}`, "No advisory is known for CVE-1999-0001."},
		{"get_advisory", `{"id": ""}`, `The argument "id" is required: a CVE, GHSA or GO- id.`},
	} {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			got := run(t, ts[tc.tool], tc.args)
			if strings.HasSuffix(tc.want, ": ") { // an error whose text is the snapshot's or JSON's
				if !strings.HasPrefix(got, tc.want) {
					t.Errorf("got %q\nwant a prefix %q", got, tc.want)
				}
				return
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// Every observation is bounded and says when it was cut.
func TestObservationBounds(t *testing.T) {
	ts := setup(t)
	ls := run(t, ts["list_dir"], `{"path": "many"}`)
	if n := strings.Count(ls, "\n"); n != tools.MaxDirEntries+1 || !strings.HasSuffix(ls, "[cut: 6 more entries not shown]") {
		t.Errorf("list_dir of %d entries: %d lines, ends %q", tools.MaxDirEntries+6, n, ls[len(ls)-40:])
	}
	s := run(t, ts["search"], `{"pattern": "websocket", "path": "docs"}`)
	if n := strings.Count(s, "\n"); n != 100 || !strings.HasSuffix(s, "[cut: 50 more matching lines not shown]") {
		t.Errorf("search of 150 matches: %d lines, ends %q", n, s[len(s)-50:])
	}
}

func TestNoAdvisories(t *testing.T) {
	if got := run(t, tools.GetAdvisory(nil), `{"id":"CVE-1"}`); got != "No advisories are available to this run." {
		t.Errorf("got %q", got)
	}
}
