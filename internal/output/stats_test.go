package output_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/formats"
	"github.com/vulnbench/vulnbench/internal/suite"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func TestWriteStatsGolden(t *testing.T) {
	st := suite.NewStats()
	for _, c := range []suite.Case{
		{ID: "1", Kind: suite.KindFunction, Label: suite.Vul, Pair: "p", CWE: []string{"CWE-787"}, Language: "c", Project: "a|b", Split: "test"},
		{ID: "2", Kind: suite.KindFunction, Label: suite.Ben, Pair: "p", CWE: []string{"CWE-787"}, Language: "c", Project: "a|b", Split: "test"},
		{ID: "3", Kind: suite.KindVEX, Label: suite.Ben, CVE: "CVE-2024-1000"},
	} {
		st.Add(&c)
	}
	reg := formats.All()
	doc := output.Stats{Stats: st}
	for _, format := range reg.For(doc) {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := reg.Present(&buf, format, doc); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "stats."+format+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/output -update)", err)
			}
			if d := cmp.Diff(string(want), buf.String()); d != "" {
				t.Errorf("%s (-want +got):\n%s", golden, d)
			}
		})
	}
	if err := reg.Present(&bytes.Buffer{}, "xml", doc); err == nil {
		t.Error("format xml accepted")
	}
	if err := reg.Present(&bytes.Buffer{}, "sarif", doc); err == nil {
		t.Error("format sarif accepted for a suite's counts")
	}
	for _, format := range reg.For(doc) {
		if err := reg.Present(failingWriter{}, format, doc); err == nil {
			t.Errorf("%s: a failed write was not reported", format)
		}
	}
}

// failingWriter fails every write, as a full disk or a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }
