// Package primevul imports PrimeVul's JSONL releases (the original field set and v0.1, plain and
// paired files) as vulnbench suite cases.
package primevul

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/textnorm"
)

// maxDisagreements is how many pairing disagreements Report.Disagreements lists.
const maxDisagreements = 20

// Options tune Import.
type Options struct {
	// Paired is "auto" (the default, also ""): paired when the file's base name contains
	// "paired"; "yes": group rows into pairs by (project, commit_id); "no": no pairs.
	Paired string
	// Reading is how the file is read (--lossy-utf8; nil: strictly).
	Reading *lineerr.Reading
}

// DupIdx is a row dropped because an earlier row has the same idx.
type DupIdx struct {
	Idx   int64 `json:"idx"`
	Line  int   `json:"line"`
	First int   `json:"first_line"`
}

// Report says what Import read and wrote; the CLI prints it.
type Report struct {
	Rows  int `json:"rows"`  // non-blank lines read
	Cases int `json:"cases"` // cases written
	Vul   int `json:"vul"`
	Ben   int `json:"ben"`
	Pairs int `json:"pairs"`
	// Paired says whether the file was read as a paired file.
	Paired bool `json:"paired"`
	// LooksPaired: read unpaired with --paired auto, yet every (project, commit_id) has exactly
	// one vul and one ben row, as in a paired file renamed (the hint: use --paired yes).
	LooksPaired bool `json:"looks_paired,omitempty"`
	// DuplicateIdx lists the rows dropped for a repeated idx (the first occurrence is kept).
	DuplicateIdx []DupIdx `json:"duplicate_idx,omitempty"`
	// Unpaired lists the cases of a paired file left without a twin, each with the reason.
	Unpaired []string `json:"unpaired,omitempty"`
	// DisagreementCount counts the consecutive-line pairs (rows 1+2, 3+4, ... after dropping
	// repeated idx values) that grouping by commit does not pair with each other; Disagreements
	// describes the first 20 of them.
	DisagreementCount int      `json:"disagreement_count"`
	Disagreements     []string `json:"disagreements,omitempty"`
	// Format is "original", "v0.1" or "mixed" (empty when no row shows either field set).
	Format string `json:"format,omitempty"`
}

// Import reads PrimeVul JSONL from r (named file in errors) and writes suite cases to w.
//
// Any malformed line makes it return every problem as a *suite.LineError (FILE:LINE: msg), at
// most MaxProblems of them followed by one "and N more problems"; the caller must then discard
// what was written (the CLI writes atomically). The error return is for failures that are not
// about the input's content: a bad option, a read or write failure.
//
// Unpaired mode streams: memory holds only the idx values seen. Paired mode holds the rows of
// the file (as compact records, not decoded JSON) and writes the cases, in file order, at the end.
func Import(r io.Reader, file string, w *suite.Writer, opt Options) (Report, []error, error) {
	var rep Report
	paired, err := pairedMode(opt.Paired, file)
	if err != nil {
		return rep, nil, err
	}
	rep.Paired = paired
	probs := &suite.Problems{File: file}
	seen := map[int64]int{} // idx -> line of its first row
	var rows []*row         // paired mode only
	var orig, v01 int
	groups := map[[2]string]*[2]int{} // (project, commit) -> vul and ben rows, unpaired auto mode only
	watch := !paired && (opt.Paired == "" || opt.Paired == "auto")
	// emit writes one case; one that fails the case checks is a problem of its line.
	emit := func(rw *row, pair string) error {
		err := write(w, rw, pair, &rep)
		var le *suite.LineError
		if errors.As(err, &le) {
			probs.Add(err)
			return nil
		}
		return err
	}
	refused, err := suite.Records(r, file, opt.Reading, probs, func(b []byte, line int) error {
		rep.Rows++
		rw, format, errs := parseRow(b)
		if len(errs) > 0 {
			for _, e := range errs {
				probs.Add(&suite.LineError{File: file, Line: line, Err: e})
			}
			return nil
		}
		rw.line = line
		switch format {
		case formatOriginal:
			orig++
		case formatV01:
			v01++
		case formatMixed:
			orig++
			v01++
		}
		if first, dup := seen[rw.idx]; dup {
			rep.DuplicateIdx = append(rep.DuplicateIdx, DupIdx{Idx: rw.idx, Line: line, First: first})
			if paired {
				rw.dropped = true
				rw.code = "" // only its commit is needed, to explain its twin's fate
				rows = append(rows, rw)
			}
			return nil
		}
		seen[rw.idx] = line
		if watch {
			countGroup(groups, rw)
		}
		if paired {
			rows = append(rows, rw)
			return nil
		}
		if probs.Len() > 0 {
			return nil // nothing will be kept: only look for more problems
		}
		return emit(rw, "")
	})
	rep.Rows += refused
	if err != nil {
		return rep, nil, err
	}
	switch {
	case orig > 0 && v01 > 0:
		rep.Format = "mixed"
	case orig > 0:
		rep.Format = "original"
	case v01 > 0:
		rep.Format = "v0.1"
	}
	rep.LooksPaired = watch && looksPaired(groups)
	if paired && probs.Len() == 0 {
		for _, rw := range pairRows(rows, &rep) {
			pair := ""
			if rw.twin != nil {
				v := rw
				if !rw.vul {
					v = rw.twin
				}
				pair = "primevul-pair-" + strconv.FormatInt(v.idx, 10)
			}
			if err := emit(rw, pair); err != nil {
				return rep, nil, err
			}
		}
	}
	if probs.Len() > 0 {
		return rep, probs.List(), nil
	}
	return rep, nil, nil
}

// countGroup counts rw among the vul or ben rows of its (project, commit).
func countGroup(groups map[[2]string]*[2]int, rw *row) {
	k := [2]string{rw.project, rw.commit}
	g := groups[k]
	if g == nil {
		g = &[2]int{}
		groups[k] = g
	}
	if rw.vul {
		g[0]++
	} else {
		g[1]++
	}
}

// looksPaired: every group has one vul and one ben row.
func looksPaired(groups map[[2]string]*[2]int) bool {
	for _, g := range groups {
		if g[0] != 1 || g[1] != 1 {
			return false
		}
	}
	return len(groups) > 0
}

func pairedMode(opt, file string) (bool, error) {
	switch opt {
	case "", "auto":
		return strings.Contains(filepath.Base(file), "paired"), nil
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, fmt.Errorf("primevul: paired option %q is not auto, yes or no", opt)
}

// write turns one row into a case, checks it and writes it, counting it in rep.
func write(w *suite.Writer, rw *row, pair string, rep *Report) error {
	c := rw.toCase(pair)
	if err := c.Check(); err != nil {
		return &suite.LineError{Line: rw.line, Err: err}
	}
	if err := w.Write(c); err != nil {
		return fmt.Errorf("write case %s: %w", c.ID, err)
	}
	rep.Cases++
	if rw.vul {
		rep.Vul++
	} else {
		rep.Ben++
	}
	if pair != "" && rw.vul {
		rep.Pairs++
	}
	return nil
}

// row is one PrimeVul record, held compactly: only what the case needs.
type row struct {
	idx                 int64
	line                int
	vul                 bool
	project, commit     string
	language            string
	cwe                 []string
	cve                 string
	code                string
	hash, funcHash      string
	fileName, commitURL string
	nvdURL, cveDesc     string
	name                string // function name, for pairing
	dropped             bool   // a repeated idx: not written
	twin                *row
	why                 string // why a row of a paired file has no twin
}

func (rw *row) id() string { return "primevul-" + strconv.FormatInt(rw.idx, 10) }

func (rw *row) toCase(pair string) *suite.Case {
	c := &suite.Case{
		ID:       rw.id(),
		Kind:     suite.KindFunction,
		Label:    suite.Ben,
		Pair:     pair,
		Project:  rw.project,
		Commit:   rw.commit,
		Language: rw.language,
		CWE:      rw.cwe,
		CVE:      rw.cve,
		Code:     rw.code,
		Source:   map[string]any{"dataset": "primevul", "idx": json.Number(strconv.FormatInt(rw.idx, 10))},
	}
	if rw.vul {
		c.Label = suite.Vul
	}
	for k, v := range map[string]string{"hash": rw.hash, "func_hash": rw.funcHash, "file_name": rw.fileName,
		"commit_url": rw.commitURL, "nvd_url": rw.nvdURL} {
		if v != "" {
			c.Source[k] = v
		}
	}
	if rw.cveDesc != "" {
		c.Meta = map[string]any{"cve_desc": rw.cveDesc}
	}
	return c
}

// present records that a field exists (and is not null) without keeping its value.
type present bool

func (p *present) UnmarshalJSON(b []byte) error {
	*p = present(string(b) != "null")
	return nil
}

// record is the union of both field sets. Fields vulnbench keeps are raw, so that their types
// can be checked one by one; fields it only uses to tell the formats apart are not kept.
type record struct {
	Idx       json.RawMessage `json:"idx"`
	Project   json.RawMessage `json:"project"`
	CommitID  json.RawMessage `json:"commit_id"`
	Target    json.RawMessage `json:"target"`
	Func      json.RawMessage `json:"func"`
	CWE       json.RawMessage `json:"cwe"`
	CVE       json.RawMessage `json:"cve"`
	Hash      json.RawMessage `json:"hash"`
	FuncHash  json.RawMessage `json:"func_hash"`
	FileName  json.RawMessage `json:"file_name"`
	CommitURL json.RawMessage `json:"commit_url"`
	NVDURL    json.RawMessage `json:"nvd_url"`
	CVEDesc   json.RawMessage `json:"cve_desc"`
	// original only
	Size    present `json:"size"`
	Message present `json:"message"`
	Dataset present `json:"dataset"`
	// v0.1 only
	ProjectURL    present `json:"project_url"`
	CommitMessage present `json:"commit_message"`
	FileHash      present `json:"file_hash"`
}

type format int

const (
	formatUnknown format = iota
	formatOriginal
	formatV01
	formatMixed
)

func (rec *record) format() format {
	o := bool(rec.Size || rec.Message || rec.Dataset) || has(rec.Hash)
	v := bool(rec.ProjectURL || rec.CommitMessage || rec.FileHash) || has(rec.FuncHash) || has(rec.FileName) ||
		has(rec.CommitURL) || has(rec.NVDURL) || has(rec.CVEDesc)
	switch {
	case o && v:
		return formatMixed
	case o:
		return formatOriginal
	case v:
		return formatV01
	}
	return formatUnknown
}

func has(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// parseRow decodes one line and returns every problem with it.
func parseRow(b []byte) (*row, format, []error) {
	var rec record
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rec); err != nil {
		return nil, formatUnknown, []error{suite.DescribeJSONError(b, err, "record")}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, formatUnknown, []error{errors.New("invalid JSON: more than one JSON value on the line")}
	}
	if err := suite.CheckKeys(b); err != nil {
		return nil, formatUnknown, []error{err}
	}
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	rw := &row{}
	var err error
	rw.idx, err = parseIdx(rec.Idx)
	check(err)
	rw.project, err = reqString("project", rec.Project)
	check(err)
	rw.commit, err = reqString("commit_id", rec.CommitID)
	check(err)
	rw.vul, err = parseTarget(rec.Target)
	check(err)
	rw.code, err = reqString("func", rec.Func)
	check(err)
	rw.cwe, err = parseCWE(rec.CWE)
	check(err)
	rw.cve, err = parseCVE(rec.CVE)
	check(err)
	rw.hash, err = parseHash("hash", rec.Hash)
	check(err)
	rw.funcHash, err = parseHash("func_hash", rec.FuncHash)
	check(err)
	rw.fileName, err = optString("file_name", rec.FileName)
	check(err)
	rw.commitURL, err = optString("commit_url", rec.CommitURL)
	check(err)
	rw.nvdURL, err = optString("nvd_url", rec.NVDURL)
	check(err)
	rw.cveDesc, err = optString("cve_desc", rec.CVEDesc)
	check(err)
	if len(errs) > 0 {
		return nil, formatUnknown, errs
	}
	rw.language = language(rw.fileName)
	rw.name = FunctionName(rw.code)
	return rw, rec.format(), nil
}

// jsonType names the JSON type of a raw value, for messages.
func jsonType(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string " + textnorm.Clip(string(raw), 40)
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean " + string(raw)
	case 'n':
		return "null"
	}
	return "number " + textnorm.Clip(string(raw), 40)
}

func parseIdx(raw json.RawMessage) (int64, error) {
	if !has(raw) {
		return 0, errors.New(`missing field "idx"`)
	}
	if raw[0] == '-' || raw[0] < '0' || raw[0] > '9' {
		return 0, fmt.Errorf(`field "idx": expected a non-negative integer, got %s`, jsonType(raw))
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf(`field "idx": expected a non-negative integer, got %s`, jsonType(raw))
	}
	return n, nil
}

func parseTarget(raw json.RawMessage) (bool, error) {
	if !has(raw) {
		return false, errors.New(`missing field "target"`)
	}
	switch string(raw) {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf(`field "target": expected 0 or 1, got %s`, jsonType(raw))
}

func reqString(name string, raw json.RawMessage) (string, error) {
	if !has(raw) {
		return "", fmt.Errorf("missing field %q", name)
	}
	s, err := optString(name, raw)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("field %q is empty", name)
	}
	return s, nil
}

// optString decodes a string field that may be absent or null.
func optString(name string, raw json.RawMessage) (string, error) {
	if !has(raw) {
		return "", nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("field %q: expected a string, got %s", name, jsonType(raw))
	}
	return s, nil
}

// parseHash keeps a hash, a JSON number too big for int64 or float64, or a string, as its digits.
func parseHash(name string, raw json.RawMessage) (string, error) {
	if !has(raw) {
		return "", nil
	}
	if raw[0] == '"' {
		return optString(name, raw)
	}
	var n json.Number
	if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
		if err := json.Unmarshal(raw, &n); err == nil {
			return n.String(), nil
		}
	}
	return "", fmt.Errorf("field %q: expected a number or a string, got %s", name, jsonType(raw))
}

// stringList decodes a string or a list of strings (skipping null items); ok is false for any
// other JSON value.
func stringList(raw json.RawMessage) (list []string, ok bool) {
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return []string{s}, true
	case '[':
		var xs []*string
		if json.Unmarshal(raw, &xs) != nil {
			return nil, false
		}
		for _, x := range xs {
			if x != nil {
				list = append(list, *x)
			}
		}
		return list, true
	}
	return nil, false
}

// parseCWE accepts a list of strings, one string, null or nothing; it skips empty strings and
// checks the others look like CWE-787 (or NVD-CWE-Other / NVD-CWE-noinfo).
func parseCWE(raw json.RawMessage) ([]string, error) {
	if !has(raw) {
		return nil, nil
	}
	list, ok := stringList(raw)
	if !ok {
		return nil, fmt.Errorf(`field "cwe": expected a list of strings like "CWE-787", got %s`, jsonType(raw))
	}
	var out []string
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !suite.ValidCWE(s) {
			return nil, fmt.Errorf(`field "cwe": %q is not like CWE-787 (or NVD-CWE-Other, NVD-CWE-noinfo)`, textnorm.Clip(s, 40))
		}
		out = append(out, s)
	}
	return out, nil
}

var cveRE = regexp.MustCompile(`^CVE-\d{4}-\d{4,}$`)

// parseCVE accepts a string, a list of strings, "None", "" or null and keeps the first CVE id.
func parseCVE(raw json.RawMessage) (string, error) {
	if !has(raw) {
		return "", nil
	}
	list, ok := stringList(raw)
	if !ok {
		return "", fmt.Errorf(`field "cve": expected a string or a list of strings like "CVE-2021-1234", got %s`, jsonType(raw))
	}
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" || strings.EqualFold(s, "none") {
			continue
		}
		if u := strings.ToUpper(s); cveRE.MatchString(u) {
			return u, nil
		}
		return "", fmt.Errorf(`field "cve": %q is not like CVE-2021-1234`, textnorm.Clip(s, 40))
	}
	return "", nil
}

// language is "cpp" for C++ file names and "c" otherwise.
func language(fileName string) string {
	switch strings.ToLower(path.Ext(fileName)) {
	case ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx":
		return "cpp"
	}
	return "c"
}

// FunctionName returns the identifier just before the first '(' of a function's source (with
// its C++ qualifier, as in Foo::bar), or "" when there is none.
func FunctionName(code string) string {
	i := strings.IndexByte(code, '(')
	if i < 0 {
		return ""
	}
	s := strings.TrimRight(code[:i], " \t\r\n")
	j := len(s)
	for j > 0 {
		c := s[j-1]
		if c == '_' || c == ':' || c == '~' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			j--
			continue
		}
		break
	}
	return strings.TrimLeft(s[j:], ":")
}

// ParseCWE reads a PrimeVul "cwe" field (a list of strings, one string, null or absent) as the
// importer does, for other readers of PrimeVul-shaped records (JitVul).
func ParseCWE(raw json.RawMessage) ([]string, error) { return parseCWE(raw) }

// ParseCVE reads a PrimeVul "cve" field (a string or a list, "None", "" or null) and keeps the
// first CVE id, as the importer does.
func ParseCVE(raw json.RawMessage) (string, error) { return parseCVE(raw) }

// Language is the case language of a PrimeVul file name: "cpp" for C++ names, else "c".
func Language(fileName string) string { return language(fileName) }
