package sarif_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/jsonkeys"
	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// sharedSARIF is the project's shared copy of real SARIF files (never copied into the repository).
const sharedSARIF = "../../../shared/data/sarif"

// TestReadShared is the golden table: each real file's tool, result count and CWE set, counted by
// hand from the files (see the shared README).
func TestReadShared(t *testing.T) {
	tests := []struct {
		file, tool, version string
		results, noLocation int
		cwe                 []string
	}{
		{"bandit-1.sarif", "Bandit", "1.8.6", 7, 0, []string{"CWE-78", "CWE-89", "CWE-94", "CWE-259", "CWE-327", "CWE-605"}},
		{"bandit-2.sarif", "Bandit", "", 1, 0, nil},
		{"codeql-1.sarif", "CodeQL", "2.23.0", 2, 0, []string{"CWE-119", "CWE-131"}},
		{"codeql-2.sarif", "CodeQL", "2.12.5", 10, 0, []string{"CWE-20", "CWE-79", "CWE-80", "CWE-116"}},
		{"cppcheck-1.sarif", "CppCheck", "2.5.0", 73, 1, nil},
		{"eslint-1.sarif", "ESLint", "9.31.0", 1, 0, nil},
		{"gosec-1.sarif", "gosec", "dev", 6, 0, []string{"CWE-22", "CWE-190", "CWE-327", "CWE-328", "CWE-338"}},
		{"njsscan-1.sarif", "nodejsscan", "0.4.3", 2, 0, []string{"CWE-208", "CWE-798"}},
		{"semgrep-1.sarif", "Semgrep PRO", "1.59.0", 4, 0, []string{"CWE-300", "CWE-327", "CWE-1004"}},
		{"snykcode-1.sarif", "SnykCode", "1.0.0", 16, 0, []string{"CWE-20", "CWE-23", "CWE-400", "CWE-916"}},
	}
	files, _ := filepath.Glob(filepath.Join(sharedSARIF, "*.sarif"))
	if len(files) != len(tests) {
		t.Fatalf("%d files in %s, %d in the golden table", len(files), sharedSARIF, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			l, err := sarif.ReadFile(filepath.Join(sharedSARIF, tt.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Runs) != 1 {
				t.Fatalf("%d runs, want 1", len(l.Runs))
			}
			r := l.Runs[0]
			var cwes []string
			noLoc := 0
			for _, f := range r.Findings {
				for _, c := range f.CWE {
					if !slices.Contains(cwes, c) {
						cwes = append(cwes, c)
					}
				}
				if f.File == "" {
					noLoc++
				}
				if f.File != "" && (f.StartLine <= 0 || f.EndLine < f.StartLine) {
					t.Errorf("finding %+v has a file but lines %d-%d", f, f.StartLine, f.EndLine)
				}
				if f.Message == "" || f.Rule == "" || f.Severity == "" {
					t.Errorf("finding %+v lacks a message, rule or severity", f)
				}
			}
			slices.SortFunc(cwes, cweCmp)
			got := []any{r.Tool, r.Version, r.Results, len(r.Findings), noLoc, cwes}
			want := []any{tt.tool, tt.version, tt.results, tt.results, tt.noLocation, tt.cwe}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("tool, version, results, findings, without location, CWEs (-want +got):\n%s", d)
			}
		})
	}
}

func cweCmp(a, b string) int {
	var x, y int
	fmt.Sscanf(a, "CWE-%d", &x)
	fmt.Sscanf(b, "CWE-%d", &y)
	return x - y
}

// TestReadSharedFindings pins single findings where each kind of sloppiness sits.
func TestReadSharedFindings(t *testing.T) {
	tests := []struct {
		file  string
		index int
		want  verdict.Finding
	}{
		// %SRCROOT%-relative URI, region without an end line, CWE from a rule tag with a leading zero.
		{"codeql-1.sarif", 0, verdict.Finding{File: "HelloWorldApp/main.cpp", StartLine: 20, EndLine: 20, Rule: "cpp/static-buffer-overflow",
			CWE: []string{"CWE-119", "CWE-131"}, Severity: "warning", Message: "Potential buffer-overflow: 'small_buffer' has size 8 not 1024."}},
		// file:///c:/ URI and only a start line.
		{"cppcheck-1.sarif", 0, verdict.Finding{File: "c:/i/haproxy/addons/51degrees/51d.c", StartLine: 398, EndLine: 398, Rule: "syntaxError",
			Severity: "warning", Message: "Unmatched '}'. Configuration: ''."}},
		// CWE from a relationship into the CWE taxonomy.
		{"gosec-1.sarif", 0, verdict.Finding{File: "aws/instance_streaming.go", StartLine: 121, EndLine: 121, Rule: "G115",
			CWE: []string{"CWE-190"}, Severity: "error", Message: "integer overflow conversion int -> int32"}},
		// Percent-encoded file:///C:/ URI.
		{"eslint-1.sarif", 0, verdict.Finding{File: "C:/Users/ryant/Documents/SIT ICT Software Engineering/Year 2 Trimester 3/ICT2216 - Secure Software Development/ICT2216_Lab8/ssd-lab8/test.js",
			StartLine: 3, EndLine: 3, Rule: "security/detect-eval-with-expression", Severity: "error", Message: "eval with argument of type TemplateLiteral"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			l, err := sarif.ReadFile(filepath.Join(sharedSARIF, tt.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, l.Runs[0].Findings[tt.index]); d != "" {
				t.Errorf("finding %d (-want +got):\n%s", tt.index, d)
			}
		})
	}
}

// TestReadSloppy covers what real files get wrong, one thing per case.
func TestReadSloppy(t *testing.T) {
	wrap := func(run string) string { return `{"version":"2.1.0-rtm.4","runs":[` + run + `]}` }
	tests := []struct {
		name, in string
		want     []verdict.Finding
	}{
		{"null arrays", wrap(`{"tool":{"driver":{"name":"t","rules":null}},"results":[{"ruleId":"r","message":{"text":"m"},"locations":null,"relatedLocations":null}]}`),
			[]verdict.Finding{{Rule: "r", Severity: "warning", Message: "m"}}},
		{"index -1 and rule found by id", wrap(`{"tool":{"driver":{"name":"t","rules":[{"id":"a"},{"id":"r","properties":{"tags":["external/cwe/cwe-79"]}}]}},
			"results":[{"ruleId":"r","ruleIndex":-1,"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.c","index":-1},"region":{"startLine":3}}}]}]}`),
			[]verdict.Finding{{File: "a.c", StartLine: 3, EndLine: 3, Rule: "r", CWE: []string{"CWE-79"}, Severity: "warning", Message: "m"}}},
		{"uri from the artifacts table, lines as strings", wrap(`{"tool":{"driver":{"name":"t"}},"artifacts":[{"location":{"uri":"src/x.py"}}],
			"results":[{"ruleId":"r","level":"error","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"index":0},"region":{"startLine":"4","endLine":"6"}}}]}]}`),
			[]verdict.Finding{{File: "src/x.py", StartLine: 4, EndLine: 6, Rule: "r", Severity: "error", Message: "m"}}},
		{"windows backslashes and ./", wrap(`{"tool":{"driver":{"name":"t"}},"results":[{"ruleId":"r","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":".\\src\\a.c"}}}]}]}`),
			[]verdict.Finding{{File: "src/a.c", Rule: "r", Severity: "warning", Message: "m"}}},
		{"properties.cwe as a number and a list", wrap(`{"tool":{"driver":{"name":"t","rules":[{"id":"r","properties":{"cwe":[89,"CWE-564"]}}]}},
			"results":[{"ruleId":"r","message":{"text":"m"},"properties":{"CWE":"78"}}]}`),
			[]verdict.Finding{{Rule: "r", CWE: []string{"CWE-89", "CWE-564", "CWE-78"}, Severity: "warning", Message: "m"}}},
		{"a signed number is no CWE id (it made CWE--79)", wrap(`{"tool":{"driver":{"name":"t"}},"results":[{"ruleId":"r","message":{"text":"m"},
			"properties":{"cwe":[-79,"+89","0079"]},"taxa":[{"id":"-5","toolComponent":{"name":"CWE"}}]}]}`),
			[]verdict.Finding{{Rule: "r", CWE: []string{"CWE-79"}, Severity: "warning", Message: "m"}}},
		{"taxa by index into the CWE taxonomy", wrap(`{"tool":{"driver":{"name":"t"}},"taxonomies":[{"name":"OWASP"},{"name":"CWE","taxa":[{"id":"22"},{"id":"476"}]}],
			"results":[{"ruleId":"r","message":{"text":"m"},"taxa":[{"index":1,"toolComponent":{"index":1}},{"id":"A01","toolComponent":{"name":"OWASP"}}]}]}`),
			[]verdict.Finding{{Rule: "r", CWE: []string{"CWE-476"}, Severity: "warning", Message: "m"}}},
		{"message text as a last resort, and its arguments", wrap(`{"tool":{"driver":{"name":"t","rules":[{"id":"r","defaultConfiguration":{"level":"note"},"messageStrings":{"default":{"text":"{0} may be CWE-{1}"}}}]}},
			"results":[{"ruleId":"r","message":{"id":"default","arguments":["x","134"]}}]}`),
			[]verdict.Finding{{Rule: "r", CWE: []string{"CWE-134"}, Severity: "note", Message: "x may be CWE-134"}}},
		{"no message text falls back to nothing, rule from rule.id", wrap(`{"tool":{"driver":{"name":"t"}},"results":[{"rule":{"id":"q"},"message":{}}]}`),
			[]verdict.Finding{{Rule: "q", Severity: "warning"}}},
		{"end line before start line", wrap(`{"tool":{"driver":{"name":"t"}},"results":[{"ruleId":"r","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"file://host/share/a.c"},"region":{"startLine":9,"endLine":2}}}]}]}`),
			[]verdict.Finding{{File: "/share/a.c", StartLine: 9, EndLine: 9, Rule: "r", Severity: "warning", Message: "m"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := sarif.Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, l.Runs[0].Findings); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadRefuses(t *testing.T) {
	for _, in := range []string{"", "[]", `{"version":"2.1.0"}`, "{\n\"runs\": [\n{,]}", `{"runs": {}}`} {
		if _, err := sarif.Parse([]byte(in)); err == nil {
			t.Errorf("%q was read as SARIF", in)
		}
	}
	_, err := sarif.Parse([]byte("{\n\"runs\": [\n{,]}"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("syntax error = %v, want one naming line 3", err)
	}
}

// BenchmarkRead reads a generated SARIF file of about 50 MB, shaped like CodeQL's output.
func BenchmarkRead(b *testing.B) {
	doc := bigSARIF(50 << 20)
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	for b.Loop() {
		l, err := sarif.Parse(doc)
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Runs[0].Findings) == 0 {
			b.Fatal("no findings")
		}
	}
}

func bigSARIF(size int) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"CodeQL","semanticVersion":"2.23.0","rules":[`)
	for i := range 200 {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"id":"cpp/rule-%d","name":"cpp/rule-%d","defaultConfiguration":{"enabled":true,"level":"warning"},"properties":{"tags":["security","external/cwe/cwe-%d"],"precision":"high"}}`, i, i, 100+i)
	}
	buf.WriteString(`]}},"results":[`)
	for i := 0; buf.Len() < size; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"ruleId":"cpp/rule-%d","ruleIndex":%d,"rule":{"id":"cpp/rule-%d","index":%d},"message":{"text":"Potential buffer-overflow: 'buf%d' has size 8 not 1024."},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"src/dir%d/file%d.c","uriBaseId":"%%SRCROOT%%","index":%d},"region":{"startLine":%d,"startColumn":38,"endColumn":42}}}],"partialFingerprints":{"primaryLocationLineHash":"812cfb2e454dbbf7:%d","primaryLocationStartColumnFingerprint":"33"},"codeFlows":[{"threadFlows":[{"locations":[{"location":{"physicalLocation":{"artifactLocation":{"uri":"src/a.c"},"region":{"startLine":3}},"message":{"text":"step"}}}]}]}]}`,
			i%200, i%200, i%200, i, i%97, i, i%50, i+1, i%1000+1, i)
	}
	buf.WriteString(`]}]}`)
	return buf.Bytes()
}

// BenchmarkReadChecked is BenchmarkRead with the key check ReadFile adds (jsonkeys.Check) first.
func BenchmarkReadChecked(b *testing.B) {
	doc := bigSARIF(50 << 20)
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	for b.Loop() {
		if e := jsonkeys.Check(doc); e != nil {
			b.Fatal(e)
		}
		if _, err := sarif.Parse(doc); err != nil {
			b.Fatal(err)
		}
	}
}
