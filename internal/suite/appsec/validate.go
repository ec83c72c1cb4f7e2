package appsec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/cvss"
	"github.com/vulnbench/vulnbench/internal/jsonkeys"
	"github.com/vulnbench/vulnbench/internal/taxonomy"
)

// Problem kinds, one per family of SPEC section 3 checks.
const (
	KindJSON      = "json"      // a line that is not a JSON object of the record format
	KindDuplicate = "duplicate" // a benchmark_id seen before
	KindRequired  = "required"  // a required field missing or empty
	KindEnum      = "enum"      // a value outside its enum
	KindPattern   = "pattern"   // an id, CWE, OWASP or CVSS string of the wrong form
	KindValue     = "value"     // a value out of range or inconsistent within the record
	KindCVSS      = "cvss"      // a score that is not the vector's recomputed score
	KindURL       = "url"       // a reference that is not a well-formed http(s) URL
	KindCatalog   = "catalog"   // a label that disagrees with the catalog's archetype
	KindMetadata  = "metadata"  // metadata that disagrees with the record
	KindCode      = "code"      // vulnerable code equal to secure code
	KindSyntax    = "syntax"    // code a real parser rejects
)

// Problem is one failed check. Record is the benchmark_id ("#N", the 1-based position, when the
// record has none); Line is the JSONL line when validating a file.
type Problem struct {
	Record  string `json:"record"`
	Line    int    `json:"line,omitempty"`
	Field   string `json:"field"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	loc := p.Record
	if p.Line > 0 {
		loc = fmt.Sprintf("line %d: %s", p.Line, p.Record)
	}
	return fmt.Sprintf("%s: %s: %s", loc, p.Field, p.Message)
}

// SyntaxTally counts syntax outcomes of one language (each record counts twice: vulnerable and
// secure code). Notes says how the language's checker parses (SyntaxNotes), or why its code is
// unchecked.
type SyntaxTally struct {
	Checked   int    `json:"checked"`
	Unchecked int    `json:"unchecked"`
	Errors    int    `json:"errors"`
	Notes     string `json:"notes,omitempty"`
}

// Report is the outcome of a validation.
type Report struct {
	Records  int                    `json:"records"`
	Problems []Problem              `json:"problems"`
	Syntax   map[string]SyntaxTally `json:"syntax"`
}

// OK reports whether no check failed. Unchecked syntax is not a failure; it is counted.
func (r Report) OK() bool { return len(r.Problems) == 0 }

// Validator checks records against SPEC section 3 and the catalog.
type Validator struct {
	Catalog *Catalog
	Syntax  SyntaxCheckers
}

// ValidateJSONL checks a JSONL file of records: each line must be a JSON object with every
// required field and no unknown one; then every record check of Validate runs.
func (v Validator) ValidateJSONL(ctx context.Context, data []byte) Report {
	var (
		recs     []Record
		lines    []int
		problems []Problem
		missing  = map[int]map[string]bool{} // record index -> fields reported missing
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 8<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(line, &raw); err != nil {
			problems = append(problems, Problem{Record: "?", Line: n, Kind: KindJSON, Message: err.Error()})
			continue
		}
		if err := jsonkeys.Check(line); err != nil {
			problems = append(problems, Problem{Record: "?", Line: n, Kind: KindJSON, Message: err.Error()})
			continue
		}
		var id string
		_ = json.Unmarshal(raw["benchmark_id"], &id)
		if id == "" {
			id = fmt.Sprintf("#%d", len(recs)+1)
		}
		var rec Record
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			problems = append(problems, Problem{Record: id, Line: n, Kind: KindJSON, Message: err.Error()})
			continue
		}
		for _, f := range RequiredFields() {
			if v, ok := raw[f]; !ok || string(v) == "null" {
				problems = append(problems, Problem{Record: id, Line: n, Field: f, Kind: KindRequired, Message: "missing"})
				if missing[len(recs)] == nil {
					missing[len(recs)] = map[string]bool{}
				}
				missing[len(recs)][f] = true
			}
		}
		recs = append(recs, rec)
		lines = append(lines, n)
	}
	if err := sc.Err(); err != nil {
		problems = append(problems, Problem{Record: "?", Line: n + 1, Kind: KindJSON, Message: err.Error()})
	}
	rep := v.validate(ctx, recs, func(i int, p Problem) (Problem, bool) {
		p.Line = lines[i]
		if missing[i][p.Field] {
			return p, false // already reported as missing
		}
		return p, true
	})
	rep.Problems = append(problems, rep.Problems...)
	return rep
}

// Validate runs every record check of SPEC section 3 except JSON validity (see ValidateJSONL).
func (v Validator) Validate(ctx context.Context, recs []Record) Report {
	return v.validate(ctx, recs, func(_ int, p Problem) (Problem, bool) { return p, true })
}

func (v Validator) validate(ctx context.Context, recs []Record, keep func(int, Problem) (Problem, bool)) Report {
	rep := Report{Records: len(recs), Problems: []Problem{}, Syntax: map[string]SyntaxTally{}}
	seen := map[string]bool{}
	for i := range recs {
		r := &recs[i]
		c := recordCheck{rec: r, id: r.BenchmarkID}
		if c.id == "" {
			c.id = fmt.Sprintf("#%d", i+1)
		}
		if r.BenchmarkID != "" && seen[r.BenchmarkID] {
			c.add("benchmark_id", KindDuplicate, "duplicate benchmark_id")
		}
		seen[r.BenchmarkID] = true
		v.checkRecord(ctx, &c, rep.Syntax)
		for _, p := range c.problems {
			if p, ok := keep(i, p); ok {
				rep.Problems = append(rep.Problems, p)
			}
		}
	}
	return rep
}

type recordCheck struct {
	rec      *Record
	id       string
	problems []Problem
}

func (c *recordCheck) add(field, kind, format string, args ...any) {
	c.problems = append(c.problems, Problem{Record: c.id, Field: field, Kind: kind, Message: fmt.Sprintf(format, args...)})
}

func (c *recordCheck) enum(field, value string, allowed []string) {
	if value != "" && !slices.Contains(allowed, value) {
		c.add(field, KindEnum, "%q is not one of %s", value, strings.Join(allowed, ", "))
	}
}

// checkRecord adds to c the problems of its record, in the order of SPEC section 3's checks.
func (v Validator) checkRecord(ctx context.Context, c *recordCheck, tally map[string]SyntaxTally) {
	c.required()
	c.enums(v.Catalog)
	c.patterns()
	c.scores()
	c.code()
	c.catalog(v.Catalog)
	c.metadata()
	v.syntax(ctx, c, tally)
}

// required checks that required fields are set, expected_detection is true and the priors are probabilities.
func (c *recordCheck) required() {
	r := c.rec
	// Required fields, non-empty.
	for _, f := range []struct {
		name  string
		empty bool
	}{
		{"benchmark_id", r.BenchmarkID == ""}, {"title", r.Title == ""},
		{"vulnerability_name", r.VulnerabilityName == ""}, {"category", r.Category == ""},
		{"language", r.Language == ""}, {"framework", r.Framework == ""},
		{"difficulty", r.Difficulty == ""}, {"source_type", r.SourceType == ""},
		{"file_path", r.FilePath == ""}, {"vulnerable_code", strings.TrimSpace(r.VulnerableCode) == ""},
		{"secure_code", strings.TrimSpace(r.SecureCode) == ""}, {"vulnerable_lines", len(r.VulnerableLines) == 0},
		{"expected_cwe", r.ExpectedCWE == ""}, {"expected_cwe_name", r.ExpectedCWEName == ""},
		{"expected_owasp", r.ExpectedOWASP == ""}, {"expected_severity", r.ExpectedSeverity == ""},
		{"expected_cvss", r.ExpectedCVSS == ""}, {"expected_cvss_score", r.ExpectedCVSSScore == 0},
		{"expected_confidence", r.ExpectedConfidence == ""}, {"explanation", r.Explanation == ""},
		{"exploit_scenario", r.ExploitScenario == ""}, {"attack_preconditions", emptyList(r.AttackPreconditions)},
		{"fix_description", r.FixDescription == ""}, {"remediation_steps", emptyList(r.RemediationSteps)},
		{"references", emptyList(r.References)}, {"tags", emptyList(r.Tags)},
		{"evaluation_rubric", r.EvaluationRubric == RubricSpec{}}, {"split", r.Split == ""},
		{"version", r.Version == ""}, {"metadata", r.Metadata == RecordMeta{}},
	} {
		if f.empty {
			c.add(f.name, KindRequired, "empty")
		}
	}
	if !r.ExpectedDetection {
		c.add("expected_detection", KindValue, "must be true: the record's vulnerable code is vulnerable")
	}
	for _, p := range []struct {
		name  string
		value float64
	}{{"false_positive_prior", r.FalsePositivePrior}, {"false_negative_prior", r.FalseNegativePrior}} {
		if p.value < 0 || p.value > 1 || math.IsNaN(p.value) {
			c.add(p.name, KindValue, "%v is not a probability", p.value)
		}
	}
}

// enums checks that the enumerated fields hold known values.
func (c *recordCheck) enums(cat *Catalog) {
	r := c.rec
	// Enums.
	c.enum("language", r.Language, KnownLanguages())
	if cat != nil {
		c.enum("framework", r.Framework, cat.Frameworks())
	}
	ds := make([]string, 0, 5)
	for _, d := range Difficulties() {
		ds = append(ds, string(d))
	}
	c.enum("difficulty", string(r.Difficulty), ds)
	c.enum("expected_severity", r.ExpectedSeverity, cvss.Severities())
	c.enum("expected_confidence", r.ExpectedConfidence, Confidences())
	c.enum("source_type", r.SourceType, SourceTypes())
	c.enum("split", r.Split, Splits())
}

// patterns checks that the identifiers match their patterns.
func (c *recordCheck) patterns() {
	r := c.rec
	// Patterns.
	if r.BenchmarkID != "" && !IsBenchmarkID(r.BenchmarkID) {
		c.add("benchmark_id", KindPattern, "%q does not match ASB-NNNNNN", r.BenchmarkID)
	}
	if r.ExpectedCWE != "" && !taxonomy.IsCWE(r.ExpectedCWE) {
		c.add("expected_cwe", KindPattern, "%q does not match CWE-N", r.ExpectedCWE)
	}
	if r.ExpectedOWASP != "" && !IsOWASP2021(r.ExpectedOWASP) {
		c.add("expected_owasp", KindPattern, "%q does not match ANN:2021", r.ExpectedOWASP)
	}
	if r.ExpectedOWASPAPI != "" && !IsOWASPAPI2023(r.ExpectedOWASPAPI) {
		c.add("expected_owasp_api", KindPattern, "%q does not match APIN:2023", r.ExpectedOWASPAPI)
	}
	if r.ExpectedOWASPLLM != "" && !IsOWASPLLM2025(r.ExpectedOWASPLLM) {
		c.add("expected_owasp_llm", KindPattern, "%q does not match LLMNN:2025", r.ExpectedOWASPLLM)
	}
}

// scores checks that the CVSS vector recomputes to the score, the severity is the score's band, and the references are URLs.
func (c *recordCheck) scores() {
	r := c.rec
	// CVSS: the vector's recomputed score, and the severity band of the score.
	if r.ExpectedCVSS != "" {
		if !strings.HasPrefix(r.ExpectedCVSS, "CVSS:3.1/") {
			c.add("expected_cvss", KindPattern, "%q is not a CVSS:3.1 vector", r.ExpectedCVSS)
		} else if score, err := cvss.Score(r.ExpectedCVSS); err != nil {
			c.add("expected_cvss", KindPattern, "%v", err)
		} else if math.Abs(score-r.ExpectedCVSSScore) > 0.05+1e-9 {
			c.add("expected_cvss_score", KindCVSS, "%.1f, but the vector scores %.1f", r.ExpectedCVSSScore, score)
		}
	}
	if r.ExpectedSeverity != "" && r.ExpectedCVSSScore != 0 && slices.Contains(cvss.Severities(), r.ExpectedSeverity) {
		if want := cvss.Severity(r.ExpectedCVSSScore); r.ExpectedSeverity != want {
			c.add("expected_severity", KindValue, "%s, but a score of %.1f is %s", r.ExpectedSeverity, r.ExpectedCVSSScore, want)
		}
	}

	for i, ref := range r.References {
		if !isHTTPURL(ref) {
			c.add(fmt.Sprintf("references[%d]", i), KindURL, "%q is not a well-formed http(s) URL", ref)
		}
	}
}

// code checks that the code pair differs, the vulnerable lines lie in the code, and the rubric's weights are sane.
func (c *recordCheck) code() {
	r := c.rec
	// Code.
	if r.VulnerableCode != "" && NormaliseCode(r.VulnerableCode) == NormaliseCode(r.SecureCode) {
		c.add("secure_code", KindCode, "equal to vulnerable_code (ignoring whitespace and case)")
	}
	nlines := strings.Count(strings.TrimRight(r.VulnerableCode, "\n"), "\n") + 1
	for i, l := range r.VulnerableLines {
		if l < 1 || l > nlines || i > 0 && l <= r.VulnerableLines[i-1] {
			c.add("vulnerable_lines", KindValue, "line %d is not increasing within 1..%d", l, nlines)
			break
		}
	}

	if rb := r.EvaluationRubric; rb != (RubricSpec{}) && (math.Abs(rb.Total()-100) > 1e-9 || rb.PassThreshold <= 0 || rb.PassThreshold > 100) {
		c.add("evaluation_rubric", KindValue, "weights sum to %v and pass at %v; want 100 and (0, 100]", rb.Total(), rb.PassThreshold)
	}
}

// catalog checks that the labels agree with the catalog's archetype.
func (c *recordCheck) catalog(cat *Catalog) {
	r := c.rec
	// Catalog label consistency.
	var arch *Archetype
	if cat != nil && r.VulnerabilityName != "" {
		arch = cat.ByName(r.VulnerabilityName)
		if arch == nil {
			c.add("vulnerability_name", KindCatalog, "%q is not a catalog archetype", r.VulnerabilityName)
		}
	}
	if arch != nil {
		for _, f := range []struct{ name, got, want string }{
			{"expected_cwe", r.ExpectedCWE, arch.CWE},
			{"expected_cwe_name", r.ExpectedCWEName, arch.CWEName},
			{"expected_owasp", r.ExpectedOWASP, arch.OWASP},
			{"expected_owasp_api", r.ExpectedOWASPAPI, arch.OWASPAPI},
			{"expected_owasp_llm", r.ExpectedOWASPLLM, arch.OWASPLLM},
			{"category", r.Category, arch.Category},
		} {
			if f.got != f.want {
				c.add(f.name, KindCatalog, "%q, but the catalog has %q for %s", f.got, f.want, arch.ID)
			}
		}
		if r.Language != "" && r.Framework != "" && !arch.Realistic(r.Language, r.Framework) {
			c.add("framework", KindCatalog, "%s/%s is not a realistic target of %s", r.Language, r.Framework, arch.ID)
		}
		if r.Metadata.Archetype != arch.ID {
			c.add("metadata.archetype", KindMetadata, "%q, want %q", r.Metadata.Archetype, arch.ID)
		}
	}
}

// metadata checks that the metadata repeats the record's own fields.
func (c *recordCheck) metadata() {
	r := c.rec
	// Metadata consistency.
	if m := r.Metadata; m != (RecordMeta{}) {
		if m.CWE != r.ExpectedCWE {
			c.add("metadata.cwe", KindMetadata, "%q, but expected_cwe is %q", m.CWE, r.ExpectedCWE)
		}
		if m.CVSSVector != r.ExpectedCVSS {
			c.add("metadata.cvss_vector", KindMetadata, "%q, but expected_cvss is %q", m.CVSSVector, r.ExpectedCVSS)
		}
		if m.CVSSScore != r.ExpectedCVSSScore {
			c.add("metadata.cvss_score", KindMetadata, "%v, but expected_cvss_score is %v", m.CVSSScore, r.ExpectedCVSSScore)
		}
	}
}

// syntax checks that the code parses, by a real parser where the language has one. An error
// names the twin, the record's file_path with the line and column of the snippet where the
// parser found it, and the parser's message.
func (v Validator) syntax(ctx context.Context, c *recordCheck, tally map[string]SyntaxTally) {
	r := c.rec
	if r.Language == "" {
		return
	}
	t := tally[r.Language]
	if t.Notes == "" {
		t.Notes = v.Syntax.Notes(r.Language)
	}
	for _, code := range []struct{ field, twin, src string }{
		{"vulnerable_code", "vulnerable", r.VulnerableCode}, {"secure_code", "secure", r.SecureCode},
	} {
		if strings.TrimSpace(code.src) == "" {
			continue
		}
		res := v.Syntax.Check(ctx, r.Language, code.src)
		switch res.Status {
		case SyntaxChecked:
			t.Checked++
		case SyntaxError:
			t.Errors++
			c.add(code.field, KindSyntax, "%s syntax error in the %s twin at %s: %s", r.Language, code.twin, placeIn(r.FilePath, res), res.Message)
		default:
			t.Unchecked++
			if t.Notes == "" {
				t.Notes = "unchecked: " + res.Message
			}
		}
	}
	tally[r.Language] = t
}

// placeIn is FILE:LINE:COLUMN of a syntax error in the snippet of file, as far as the parser
// named it.
func placeIn(file string, res SyntaxResult) string {
	if file == "" {
		file = "(no file_path)"
	}
	switch {
	case res.Line > 0 && res.Column > 0:
		return fmt.Sprintf("%s:%d:%d", file, res.Line, res.Column)
	case res.Line > 0:
		return fmt.Sprintf("%s:%d", file, res.Line)
	}
	return file
}

func emptyList(l []string) bool {
	for _, s := range l {
		if strings.TrimSpace(s) != "" {
			return false
		}
	}
	return true
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		!strings.ContainsAny(s, " \t\n")
}

// NormaliseCode is the form under which two snippets count as the same code: lower case, all
// white space removed.
func NormaliseCode(code string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, code)
}
