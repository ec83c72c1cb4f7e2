package osv_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/gittest"
)

// The Go project: a package with a function, a method, a helper and a function a fix renames.
const (
	goMod    = "module example.com/acme/goproj\n\ngo 1.22\n"
	goParse1 = `package parse

import "errors"

// Parse reads a length-prefixed record.
func Parse(b []byte) (int, error) {
	n := int(b[0])
	return n, nil
}

// Reader reads records.
type Reader struct{ buf []byte }

// Next returns the next record's length.
func (r *Reader) Next() int {
	n := int(r.buf[0])
	r.buf = r.buf[1+n:]
	return n
}

func helper(x int) int {
	return x + 1
}

func oldName(b []byte, i int) byte {
	v := b[i]
	v ^= 0x20
	return v
}

var errShort = errors.New("short")
`
	goTest1 = "package parse\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n\tParse([]byte{0})\n}\n"
)

// goFixMethod bounds Next (and changes helper, which the record does not name).
var goFixMethod = strings.NewReplacer(
	"\tn := int(r.buf[0])\n\tr.buf = r.buf[1+n:]", "\tn := int(r.buf[0])\n\tif 1+n > len(r.buf) {\n\t\treturn -1\n\t}\n\tr.buf = r.buf[1+n:]",
	"return x + 1", "return x + 2")

// goFixFunc checks Parse's input (and its test).
var goFixFunc = strings.NewReplacer("\tn := int(b[0])\n\treturn n, nil", "\tif len(b) == 0 {\n\t\treturn 0, errShort\n\t}\n\tn := int(b[0])\n\treturn n, nil")

// goFixRename renames oldName to byteAt with a bounds check.
var goFixRename = strings.NewReplacer("func oldName(b []byte, i int) byte {\n", "func byteAt(b []byte, i int) byte {\n\tif i >= len(b) {\n\t\treturn 0\n\t}\n")

// The C project: five small functions, a decoder, a header parser, a fuzzing harness and a test.
func cFunc(name string, k int) string {
	return fmt.Sprintf("int %s(int x)\n{\n\treturn x + %d;\n}\n\n", name, k)
}

func cSource(ks [5]int, decode, header string) string {
	var b strings.Builder
	b.WriteString("#include <string.h>\n\n")
	for i, k := range ks {
		b.WriteString(cFunc(fmt.Sprintf("f%d", i+1), k))
	}
	b.WriteString(decode + "\n" + header)
	return b.String()
}

const (
	decode0 = "int decode(const char *p, int n)\n{\n\tchar b[8];\n\tmemcpy(b, p, n);\n\treturn 0;\n}\n"
	decode1 = "int decode(const char *p, int n)\n{\n\tchar b[8];\n\tmemcpy(b, p, n);\n\treturn b[0];\n}\n"
	decode2 = "int decode(const char *p, int n)\n{\n\tchar b[8];\n\tif (n > 8)\n\t\treturn -1;\n\tmemcpy(b, p, n);\n\treturn b[0];\n}\n"
	header0 = "int parse_header(const char *p)\n{\n\treturn p[0];\n}\n"
	header1 = "int parse_header(const char *p)\n{\n\treturn p[0] ? p[1] : 0;\n}\n"
	header2 = "int parse_header(const char *p)\n{\n\tif (!p)\n\t\treturn 0;\n\treturn p[0] ? p[1] : 0;\n}\n"
	harness = "int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{\n\tdecode((const char *)d, (int)n);\n\treturn 0;\n}\n"
	cTest   = "int test_decode(void)\n{\n\treturn decode(\"x\", 1);\n}\n"
)

// fixture is the two repositories under a --repos directory, their commits, and the records
// written for them.
type fixture struct {
	repos, advisories string
	goRepo, cRepo     *repo
	c                 map[string]string // commit ids by name
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	fx := &fixture{repos: filepath.Join(root, "repos"), advisories: filepath.Join(root, "advisories"), c: map[string]string{}}
	g := newRepo(t, filepath.Join(fx.repos, "example.com", "acme", "goproj"))
	fx.goRepo = g
	fx.c["go0"] = g.commit("parse", map[string]string{"go.mod": goMod, "parse/parse.go": goParse1, "parse/parse_test.go": goTest1})
	p := goParse1
	p = goFixMethod.Replace(p)
	fx.c["goMethod"] = g.commit("bound Next", map[string]string{"parse/parse.go": p})
	p = goFixFunc.Replace(p)
	fx.c["goFunc"] = g.commit("check Parse", map[string]string{"parse/parse.go": p, "parse/parse_test.go": strings.Replace(goTest1, "{0}", "{}", 1)})
	p = goFixRename.Replace(p)
	fx.c["goRename"] = g.commit("byteAt checks its index", map[string]string{"parse/parse.go": p})

	c := newRepo(t, filepath.Join(fx.repos, "example.com", "acme", "clib"))
	fx.cRepo = c
	ks := [5]int{1, 2, 3, 4, 5}
	fx.c["c0"] = c.commit("lib", map[string]string{"src/a.c": cSource(ks, decode0, header0), "fuzz/fuzz_a.c": harness, "tests/test_a.c": cTest, "README": "lib\n"})
	fx.c["cIntro"] = c.commit("decode returns the first byte", map[string]string{"src/a.c": cSource(ks, decode1, header0)})
	fx.c["cCrash"] = c.commit("bound decode", map[string]string{"src/a.c": cSource(ks, decode2, header1)})
	ks = [5]int{11, 12, 13, 14, 15}
	fx.c["cMany"] = c.commit("five functions", map[string]string{"src/a.c": cSource(ks, decode2, header1)})
	ks[0], ks[1] = 21, 22
	fx.c["cFew"] = c.commit("two functions", map[string]string{"src/a.c": cSource(ks, decode2, header1)})
	fx.c["cTests"] = c.commit("tests only", map[string]string{"tests/test_a.c": strings.Replace(cTest, "1);", "2);", 1), "fuzz/fuzz_a.c": strings.Replace(harness, "return 0", "return 1", 1)})
	fx.c["r0"] = fx.c["cTests"]
	ks[2] = 23
	fx.c["r1"] = c.commit("f3", map[string]string{"src/a.c": cSource(ks, decode2, header1)})
	fx.c["r2"] = c.commit("check the header", map[string]string{"src/a.c": cSource(ks, decode2, header2)})
	fx.c["r3"] = c.commit("readme", map[string]string{"README": "lib, now checked\n"})
	fx.writeRecords(t)
	return fx
}

const crashDetails = "OSS-Fuzz report: https://example.com/1\n\n```\nCrash type: Heap-buffer-overflow WRITE 8\nCrash state:\n%s\n```\n"

func (fx *fixture) writeRecords(t *testing.T) {
	c := fx.c
	ossfuzz := func(id, published, intro, fixed, frames, extra string) string {
		ev := `{"introduced":"` + c[intro] + `"}`
		if fixed != "" {
			ev += `,{"fixed":"` + fixed + `"}`
		}
		return fmt.Sprintf(`{"id":%q,"published":%q,"details":%q,"affected":[{"package":{"name":"clib","ecosystem":"OSS-Fuzz"},
"ranges":[{"type":"GIT","repo":"https://example.com/acme/clib.git","events":[%s]}],"ecosystem_specific":{"severity":"HIGH"%s}}]%s}`,
			id, published, fmt.Sprintf(crashDetails, frames), ev, extra, "")
	}
	goRec := func(id, symbol string, fixes ...string) string {
		var refs []string
		for _, f := range fixes {
			refs = append(refs, fmt.Sprintf(`{"type":"FIX","url":%q}`, f))
		}
		return fmt.Sprintf(`{"id":%q,"published":"0001-01-01T00:00:00Z","aliases":["CVE-2024-%s"],"affected":[{"package":{"name":"example.com/acme/goproj","ecosystem":"Go"},
"ecosystem_specific":{"imports":[{"path":"example.com/acme/goproj/parse","symbols":[%q]}]}}],"references":[%s]}`,
			id, id[len(id)-4:], symbol, strings.Join(refs, ","))
	}
	ghsa := func(id, cve, fix string) string {
		return fmt.Sprintf(`{"id":%q,"published":"2024-03-01T00:00:00Z","aliases":[%q],"affected":[{"package":{"name":"clib","ecosystem":"GitHub Actions"}}],
"references":[{"type":"WEB","url":"https://example.com/acme/clib/issues/1"},{"type":"FIX","url":"https://example.com/acme/clib/commit/%s"}],
"database_specific":{"cwe_ids":["CWE-787"]}}`, id, cve, fix)
	}
	goCommit := func(name string) string { return "https://example.com/acme/goproj/commit/" + c[name] }
	frames := "decode\nprocess_input\nLLVMFuzzerTestOneInput"
	gittest.WriteFiles(t, fx.advisories, map[string]string{
		"go/GO-2024-0001.json":          goRec("GO-2024-0001", "Reader.Next", goCommit("goMethod")),
		"go/GO-2024-0002.json":          goRec("GO-2024-0002", "Parse", "https://github.com/acme/gone/commit/abcdef1", "https://example.com/acme/goproj/pull/7", goCommit("goFunc")),
		"go/GO-2024-0003.json":          goRec("GO-2024-0003", "oldName", goCommit("goRename")),
		"go/GO-2024-0004.json":          goRec("GO-2024-0004", "Missing", goCommit("goMethod")),
		"ghsa/GHSA-aaaa-bbbb-cccc.json": ghsa("GHSA-aaaa-bbbb-cccc", "CVE-2024-9001", c["cMany"]),
		"ghsa/GHSA-dddd-eeee-ffff.json": ghsa("GHSA-dddd-eeee-ffff", "CVE-2024-9002", c["cFew"][:10]),
		"oss-fuzz/OSV-2024-1.json":      ossfuzz("OSV-2024-1", "2024-02-01T00:00:00Z", "c0", c["cCrash"], frames, ""),
		"oss-fuzz/OSV-2024-2.json":      ossfuzz("OSV-2024-2", "2024-02-02T00:00:00Z", "cIntro", c["cCrash"], frames, ""),
		"oss-fuzz/OSV-2024-3.json":      ossfuzz("OSV-2024-3", "2024-02-03T00:00:00Z", "cIntro", c["cTests"], "test_decode\nLLVMFuzzerTestOneInput", ""),
		"oss-fuzz/OSV-2024-4.json": ossfuzz("OSV-2024-4", "2024-02-04T00:00:00Z", "cIntro", c["r3"], "parse_header\nmain",
			`,"fixed_range":"`+c["r0"]+":"+c["r3"]+`","introduced_range":"`+c["c0"]+":"+c["cCrash"]+`"`),
		"oss-fuzz/OSV-2024-5.json": ossfuzz("OSV-2024-5", "2024-02-05T00:00:00Z", "cIntro", "0123456789abcdef0123456789abcdef01234567", frames, ""),
		"oss-fuzz/OSV-2024-6.json": strings.Replace(ossfuzz("OSV-2024-6", "2024-02-06T00:00:00Z", "cIntro", c["cCrash"], frames, ""),
			`"published"`, `"withdrawn":"2024-03-01T00:00:00Z","published"`, 1),
		"oss-fuzz/OSV-2024-7.json": strings.Replace(ossfuzz("OSV-2024-7", "2024-02-07T00:00:00Z", "cIntro", c["cCrash"], frames, ""), "acme/clib.git", "acme/gone.git", 1),
		// For the introducing-commit study: the rule's commit equal to the bisected one, earlier,
		// and a bisected commit that only touched the fuzzing harness and a test.
		"oss-fuzz/OSV-2024-10.json": ossfuzz("OSV-2024-10", "2024-02-10T00:00:00Z", "c0", c["cMany"], "f3", ""),
		"oss-fuzz/OSV-2024-11.json": ossfuzz("OSV-2024-11", "2023-12-31T00:00:00Z", "cIntro", c["cMany"], "f4", ""),
		"oss-fuzz/OSV-2024-12.json": ossfuzz("OSV-2024-12", "2024-02-12T00:00:00Z", "cTests", c["cMany"], "f5", ""),
		"oss-fuzz/OSV-2024-9.json":  ossfuzz("OSV-2024-9", "2024-02-09T00:00:00Z", "cIntro", c["r3"], "parse_header", ""), // the README only
		"oss-fuzz/OSV-2024-8.json":  ossfuzz("OSV-2024-8", "2024-02-08T00:00:00Z", "cIntro", "", frames, ""),
	})
}
