package appsec

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vulnbench/vulnbench/internal/suite"
)

var update = flag.Bool("update", false, "rewrite testdata/build-seed42.sha256 from the current build")

// TestBuildSeed42Golden pins the bytes of the seed-42 build: the sha256 of its records (as
// records.jsonl) and of its paired suite (as suite.jsonl). A change of any snippet, template,
// identifier draw, split or ground-truth field shows here; when it is intended, rerun with
// -update and say why in the commit.
func TestBuildSeed42Golden(t *testing.T) {
	recs, err := Build(42)
	if err != nil {
		t.Fatal(err)
	}
	records, err := EncodeRecords(recs)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := Cases(recs)
	if err != nil {
		t.Fatal(err)
	}
	var suiteJSONL bytes.Buffer
	w := suite.NewWriter(&suiteJSONL)
	for i := range cases {
		if err := w.Write(&cases[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%x  records.jsonl\n%x  suite.jsonl\n", sha256.Sum256(records), sha256.Sum256(suiteJSONL.Bytes()))
	path := filepath.Join("testdata", "build-seed42.sha256")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestBuildSeed42Golden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("the seed-42 build changed (%d records):\ngot:\n%swant (%s):\n%s", len(recs), got, path, want)
	}
}
