package sast_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/subjecttest"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// The flawfinder kind reads --min-level: the fixture's strcpy hit makes the case vul at the
// default level and not above the hit's level.
func TestFlawfinderKindReadsMinLevel(t *testing.T) {
	s, _ := sast.LookupScanner("flawfinder")
	needTool(t, s.Binary, s.Install)
	code, err := os.ReadFile(filepath.Join("testdata", "scan", "copy.c"))
	if err != nil {
		t.Fatal(err)
	}
	kind := sast.ScannerKinds()[0]
	if kind.Name != "flawfinder" {
		t.Fatalf("the first scanner kind is %s", kind.Name)
	}
	c := &suite.Case{ID: "f", Kind: suite.KindFunction, Language: "c", Code: string(code)}
	var got []string
	for _, level := range []string{"1", "5"} {
		v, _ := subjecttest.RunUnit(t, kind, map[string]string{"min-level": level}, c, nil)
		got = append(got, fmt.Sprintf("%s %s", v.Status, v.Label))
	}
	if got[0] != "ok vul" || got[1] != "ok ben" {
		t.Errorf("--min-level 1, 5: %q; want ok vul, then ok ben", got)
	}
}
