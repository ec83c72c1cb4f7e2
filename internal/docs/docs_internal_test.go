package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSimple(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][]string
	}{
		{"vulnbench run --suite s.jsonl   # a comment", [][]string{{"vulnbench", "run", "--suite", "s.jsonl"}}},
		{`vulnbench score --select 'cwe=CWE-787|CWE-125,year=2023'`, [][]string{{"vulnbench", "score", "--select", "cwe=CWE-787|CWE-125,year=2023"}}},
		{`a && b | c; d &`, [][]string{{"a"}, {"b"}, {"c"}, {"d"}}},
		{`OPENAI_API_KEY=... vulnbench worker --db "$VB_DB"`, [][]string{{"vulnbench", "worker", "--db", "$VB_DB"}}},
		{`hostA$ X=1 vulnbench worker`, [][]string{{"vulnbench", "worker"}}},
		{"vulnbench run --a 1 \\\n  --b 2", [][]string{{"vulnbench", "run", "--a", "1", "--b", "2"}}},
		{`vulnbench code index --dump edges > edges.tsv`, [][]string{{"vulnbench", "code", "index", "--dump", "edges"}}},
		{`vulnbench run --base-url $(cat url.txt) --x`, [][]string{{"vulnbench", "run", "--base-url", "$(cat url.txt)", "--x"}, {"cat", "url.txt"}}},
	} {
		if diff := cmp.Diff(tc.want, Simple(tc.in)); diff != "" {
			t.Errorf("Simple(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "x.md")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("intro\n\n<!-- doc: first -->\n```sh\nvulnbench runs\n# a comment\n\nvulnbench a \\\n  --b\n```\n\n```text\nout\n```\n<!-- illustrative: needs a paid key -->\n```bash\nx\n```\n")
	bs, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, b := range bs {
		got = append(got, b.Where()+" "+b.Lang+" "+b.Name+"|"+b.Illustrative)
		for _, c := range b.Commands() {
			if !b.Shell() {
				break
			}
			got = append(got, "  "+strings.ReplaceAll(c.Text, "\n", "⏎")+" @"+string(rune('0'+c.N)))
		}
	}
	want := []string{
		p + ":4 sh first|", "  vulnbench runs @1", "  vulnbench a \\⏎  --b @2",
		p + ":12 text |",
		p + ":16 bash |needs a paid key", "  x @1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
	for text, msg := range map[string]string{
		"```\nx\n```\n":                           "x.md:1: a fenced block without a language",
		"```sh\nx\n":                              "x.md:1: the block is never closed",
		"<!-- doc: a -->\ntext\n":                 "x.md:1: a doc marker not followed by a fenced block",
		"<!-- doc: a -->\n```text\nx\n```\n":      "x.md:1: a doc marker before a text block",
		"<!-- illustrative: -->\n```sh\nx\n```\n": "x.md:1: the illustrative marker names nothing",
	} {
		_, err := Read(write(text))
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Read(%q): %v, want %q", text, err, msg)
		}
	}
}
