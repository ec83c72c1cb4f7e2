package osv_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/suite/osv"
)

// The C library of the one-hop tests: read_chunk is where the crash shows; parse_chunk calls it,
// and it calls decode_block; unrelated calls neither; copy_out calls only memcpy.
func hopC(k map[string]int) string {
	return fmt.Sprintf(`#include <string.h>

static int decode_block(const char *p, int n)
{
	return p[n - %d];
}

int read_chunk(const char *p, int n)
{
	char b[8];
	memcpy(b, p, n);
	return decode_block(b, %d);
}

int parse_chunk(const char *p, int n)
{
	if (n < %d)
		return -1;
	return read_chunk(p + 1, n - 1);
}

int unrelated(int x)
{
	return x * %d;
}

int copy_out(char *dst, const char *src, int n)
{
	memcpy(dst, src, n + %d);
	return n;
}
`, k["decode_block"], k["read_chunk"], k["parse_chunk"], k["unrelated"], k["copy_out"])
}

// The Go package: Decode (the vulnerable symbol) calls readHeader; Encode calls nothing of it.
func hopGo(k map[string]int) string {
	return fmt.Sprintf(`package codec

func readHeader(b []byte) int {
	return int(b[%d])
}

// Decode reads a frame.
func Decode(b []byte) int {
	return readHeader(b) + %d
}

func Encode(n int) []byte {
	return make([]byte, n+%d)
}
`, k["readHeader"], k["Decode"], k["Encode"])
}

func hopFixture(t *testing.T) (*fixture, map[string]string) {
	t.Helper()
	root := t.TempDir()
	fx := &fixture{repos: filepath.Join(root, "repos"), advisories: filepath.Join(root, "advisories")}
	r := newRepo(t, filepath.Join(fx.repos, "example.com", "acme", "hops"))
	c := map[string]string{}
	k := map[string]int{"decode_block": 1, "read_chunk": 1, "parse_chunk": 1, "unrelated": 1, "copy_out": 1, "readHeader": 0, "Decode": 0, "Encode": 0}
	files := func() map[string]string {
		return map[string]string{"src/chunk.c": hopC(k), "codec/codec.go": hopGo(k), "go.mod": "module example.com/acme/hops\n\ngo 1.22\n"}
	}
	c["base"] = r.commit("chunks", files())
	for _, fn := range []string{"parse_chunk", "decode_block", "unrelated", "copy_out", "readHeader", "Encode"} {
		k[fn]++
		c[fn] = r.commit("fix "+fn, files())
	}
	// a fixed_range r0..r3 (r0 excluded): the code fix (parse_chunk again), then a test
	c["r0"] = r.commit("docs", map[string]string{"README.md": "hops\n"})
	k["parse_chunk"]++
	c["r2"] = r.commit("parse_chunk: stricter", files())
	c["r3"] = r.commit("tests", map[string]string{"tests/test_chunk.c": "int main(void) { return 0; }\n"})
	// a second range whose one code change is unrelated to the crash state
	k["unrelated"]++
	c["u1"] = r.commit("unrelated again", files())
	c["u2"] = r.commit("docs again", map[string]string{"README.md": "hops, again\n"})

	crash := func(id, fix, frames, extra string) string {
		return fmt.Sprintf(`{"id":%q,"published":"2024-06-01T00:00:00Z","details":%q,"affected":[{"package":{"name":"hops","ecosystem":"OSS-Fuzz"},
"ranges":[{"type":"GIT","repo":"https://example.com/acme/hops","events":[{"introduced":%q},{"fixed":%q}]}]%s}]}`,
			id, "```\nCrash type: Heap-buffer-overflow READ 1\nCrash state:\n"+frames+"\n```\n", c["base"], fix, extra)
	}
	goRec := func(id, fix string) string {
		return fmt.Sprintf(`{"id":%q,"affected":[{"package":{"name":"example.com/acme/hops","ecosystem":"Go"},
"ecosystem_specific":{"imports":[{"path":"example.com/acme/hops/codec","symbols":["Decode"]}]}}],"references":[{"type":"FIX","url":"https://example.com/acme/hops/commit/%s"}]}`, id, fix)
	}
	rng := func(a, b string) string {
		return `,"database_specific":{"fixed_range":"` + c[a] + ":" + c[b] + `"}`
	}
	gittest.WriteFiles(t, fx.advisories, map[string]string{
		"OSV-2024-101.json": crash("OSV-2024-101", c["parse_chunk"], "read_chunk\nLLVMFuzzerTestOneInput", ""),     // the fix is in a caller
		"OSV-2024-102.json": crash("OSV-2024-102", c["decode_block"], "read_chunk\nLLVMFuzzerTestOneInput", ""),    // in a callee
		"OSV-2024-103.json": crash("OSV-2024-103", c["unrelated"], "read_chunk\nLLVMFuzzerTestOneInput", ""),       // no edge
		"OSV-2024-104.json": crash("OSV-2024-104", c["copy_out"], "memcpy\n__asan_memcpy", ""),                     // memcpy is no function of the repository
		"OSV-2024-105.json": crash("OSV-2024-105", c["r3"], "read_chunk\nLLVMFuzzerTestOneInput", rng("r0", "r3")), // the range's one code change
		"OSV-2024-106.json": crash("OSV-2024-106", c["u2"], "read_chunk\nLLVMFuzzerTestOneInput", rng("r3", "u2")),
		"GO-2024-0101.json": goRec("GO-2024-0101", c["readHeader"]), // a callee of the symbol
		"GO-2024-0102.json": goRec("GO-2024-0102", c["Encode"]),     // no edge
	})
	return fx, c
}

// Crash frames and Go symbols match a changed function through one call edge of the code graph
// at the fix's parent (the changed function a caller or a callee of the named one), recorded as
// such; a fixed_range whose code changes sit in one commit is that commit (issue 35 item 3).
func TestNarrowOneCallEdge(t *testing.T) {
	fx, c := hopFixture(t)
	res := build(t, fx, osv.Options{})
	want := map[string]string{
		"OSV-2024-101": "crash state, one call edge: parse_chunk->parse_chunk",
		"OSV-2024-102": "crash state, one call edge: decode_block->decode_block",
		"OSV-2024-103": "drop: no changed function matches the crash state",
		"OSV-2024-104": "drop: no changed function matches the crash state",
		"OSV-2024-105": "crash state, one call edge: parse_chunk->parse_chunk",
		"OSV-2024-106": "drop: no changed function matches the crash state",
		"GO-2024-0101": "symbols, one call edge: readHeader->readHeader",
		"GO-2024-0102": "drop: no changed function matches the symbols",
	}
	if d := cmp.Diff(want, summary(res)); d != "" {
		t.Fatalf("outcomes (-want +got):\n%s", d)
	}
	matched := map[string]string{}
	for _, o := range res.Outcomes {
		if o.Drop == nil {
			matched[o.Record.ID] = strings.Join(o.Select.Matched, "; ")
		}
		for _, p := range o.Pairs {
			if m := osvMeta(p.Vul); fmt.Sprint(m["matched"]) != fmt.Sprint(o.Select.Matched) {
				t.Errorf("%s: meta.osv.matched %v, want %v", o.Record.ID, m["matched"], o.Select.Matched)
			}
		}
	}
	if d := cmp.Diff(map[string]string{
		"OSV-2024-101": "parse_chunk (caller of read_chunk)",
		"OSV-2024-102": "decode_block (callee of read_chunk)",
		"OSV-2024-105": "parse_chunk (caller of read_chunk)",
		"GO-2024-0101": "readHeader (callee of Decode)",
	}, matched); d != "" {
		t.Errorf("matched (-want +got):\n%s", d)
	}
	for _, o := range res.Outcomes {
		if o.Record.ID == "OSV-2024-105" && (o.Range == nil || o.Range.Fix != c["r2"] || o.Range.Rule != "only code change" || o.Range.Commits != 2) {
			t.Errorf("range: %+v, want r2 %s by its only code change", o.Range, c["r2"])
		}
	}
	rep := res.Report()
	if d := cmp.Diff(map[string]int{"one call edge": 4, "range: only code change": 1}, rep.Saved); d != "" {
		t.Errorf("records each rule saved (-want +got):\n%s", d)
	}

	// --unmatched max-funcs now reaches a range record too: OSV-2024-106's only code change,
	// unrelated to the crash state, is narrowed by the count.
	res = build(t, fx, osv.Options{Fallback: true})
	if got := summary(res)["OSV-2024-106"]; got != "max-funcs (crash state unmatched): unrelated->unrelated" {
		t.Errorf("OSV-2024-106 with --unmatched max-funcs: %s", got)
	}
}
