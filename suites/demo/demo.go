// Package demo builds the bundled demo suite: pairs of small C functions written for this
// project, each a vulnerable version and the patch a maintainer would make, so that the tool
// can be tried end to end without downloading a dataset.
//
// The source tree holds one directory per pair, named NN_name (NN: two or more digits):
//
//	NN_name/vul.c      the vulnerable function, and nothing else
//	NN_name/ben.c      the patched function
//	NN_name/case.json  {"cwe": [...], "project": ..., "function": ..., "date": ..., "summary": ...}
//
// Files beside the directories (common.h, which lets every function compile on its own) are
// not part of any case. Build turns the tree into cases; demo.jsonl is its committed output.
package demo

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// Dataset is the value of source.dataset in every demo case.
const Dataset = "vulnbench-demo"

// Files of a pair directory.
const (
	VulFile  = "vul.c"
	BenFile  = "ben.c"
	CaseFile = "case.json"
)

// caseInfo is a pair's case.json.
type caseInfo struct {
	CWE      []string `json:"cwe"`
	Project  string   `json:"project"`
	Function string   `json:"function"`
	Date     string   `json:"date"`
	Summary  string   `json:"summary"`
}

// Build reads the pair directories under srcDir and returns their cases, sorted by directory
// name, the vul case of each pair before its ben case. Every error names the file at fault.
func Build(srcDir string) ([]suite.Case, error) {
	entries, err := os.ReadDir(srcDir)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	var cases []suite.Case
	seen := map[string]string{} // NN -> directory
	for _, e := range entries { // os.ReadDir sorts by name
		if !e.IsDir() {
			continue
		}
		dir := e.Name()
		num, ok := pairNumber(dir)
		if !ok {
			return nil, fmt.Errorf("demo: %s: a pair directory is named NN_name (digits, '_', lower-case letters, digits and '_')", filepath.Join(srcDir, dir))
		}
		if other, dup := seen[num]; dup {
			return nil, fmt.Errorf("demo: %s: number %s is already used by %s", filepath.Join(srcDir, dir), num, other)
		}
		seen[num] = dir
		vul, ben, err := buildPair(srcDir, dir, num)
		if err != nil {
			return nil, err
		}
		cases = append(cases, vul, ben)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("demo: %s: no pair directories", srcDir)
	}
	return cases, nil
}

// pairNumber returns the NN of a directory named NN_name: two or more digits, '_', then
// lower-case letters, digits and '_'.
func pairNumber(dir string) (string, bool) {
	num, name, ok := strings.Cut(dir, "_")
	if !ok || len(num) < 2 || name == "" {
		return "", false
	}
	for _, r := range num {
		if r < '0' || r > '9' {
			return "", false
		}
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return "", false
		}
	}
	return num, true
}

func buildPair(srcDir, dir, num string) (vul, ben suite.Case, err error) {
	path := filepath.Join(srcDir, dir)
	info, err := readCaseInfo(filepath.Join(path, CaseFile))
	if err != nil {
		return vul, ben, err
	}
	vulCode, err := readCode(filepath.Join(path, VulFile), info.Function)
	if err != nil {
		return vul, ben, err
	}
	benCode, err := readCode(filepath.Join(path, BenFile), info.Function)
	if err != nil {
		return vul, ben, err
	}
	if vulCode == benCode {
		return vul, ben, fmt.Errorf("demo: %s: same code as %s", filepath.Join(path, BenFile), VulFile)
	}
	pair := "demo-" + num
	sum := sha1.Sum([]byte(dir))
	base := suite.Case{
		Kind:     suite.KindFunction,
		Pair:     pair,
		Project:  info.Project,
		Commit:   hex.EncodeToString(sum[:]),
		Date:     info.Date,
		Language: "c",
		CWE:      info.CWE,
	}
	vul, ben = base, base
	vul.ID, vul.Label, vul.Code = pair+"-vul", suite.Vul, vulCode
	ben.ID, ben.Label, ben.Code = pair+"-ben", suite.Ben, benCode
	// Each case gets a slice and maps of its own, so changing one case cannot change its twin.
	vul.CWE = append([]string(nil), info.CWE...)
	ben.CWE = append([]string(nil), info.CWE...)
	vul.Source = map[string]any{"dataset": Dataset, "dir": dir}
	ben.Source = map[string]any{"dataset": Dataset, "dir": dir}
	vul.Meta = map[string]any{"summary": info.Summary}
	ben.Meta = map[string]any{"summary": info.Summary}
	return vul, ben, nil
}

func readCaseInfo(path string) (*caseInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ci caseInfo
	if err := dec.Decode(&ci); err != nil {
		return nil, fmt.Errorf("demo: %s: %v", path, err)
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("demo: %s: more than one JSON value", path)
	}
	if err := ci.check(); err != nil {
		return nil, fmt.Errorf("demo: %s: %v", path, err)
	}
	return &ci, nil
}

func (ci *caseInfo) check() error {
	if len(ci.CWE) == 0 {
		return errors.New(`missing "cwe"`)
	}
	for _, w := range ci.CWE {
		if !suite.ValidCWE(w) {
			return fmt.Errorf("cwe %q is not like CWE-787", w)
		}
	}
	for _, f := range []struct{ name, val string }{
		{"project", ci.Project}, {"function", ci.Function}, {"date", ci.Date}, {"summary", ci.Summary},
	} {
		if strings.TrimSpace(f.val) == "" {
			return fmt.Errorf("missing %q", f.name)
		}
	}
	if _, err := time.Parse(time.RFC3339, ci.Date); err != nil {
		return fmt.Errorf("date %q is not RFC 3339 (like 2024-05-01T12:00:00Z)", ci.Date)
	}
	return nil
}

// readCode reads a function's file and checks that it defines the function named in case.json.
func readCode(path, function string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	code := string(b)
	if strings.TrimSpace(code) == "" {
		return "", fmt.Errorf("demo: %s: empty file", path)
	}
	if !regexp.MustCompile(`(?m)^[^\s#].*\b` + regexp.QuoteMeta(function) + `\(`).MatchString(code) {
		return "", fmt.Errorf("demo: %s: does not define function %q named in %s", path, function, CaseFile)
	}
	return code, nil
}
