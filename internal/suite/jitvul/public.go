package jitvul

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/primevul"
)

// ImportReport says what Import read and wrote.
type ImportReport struct {
	Records, Pairs int
	// Identical lists the pairs whose halves are equal after whitespace normalisation (the
	// paper's ~146): they are written, marked "identical_halves": true in both cases' meta.
	Identical []string
}

// publicRecord is one line of the public JitVul benchmark (final_benchmark.jsonl): PrimeVul
// v0.1 fields plus the three commits, the two bodies and the precomputed context.
type publicRecord struct {
	Idx        json.RawMessage `json:"idx"`
	Project    *string         `json:"project"`
	ProjectURL *string         `json:"project_url"`
	CommitID   *string         `json:"commit_id"`
	FileName   *string         `json:"file_name"`
	CWE        json.RawMessage `json:"cwe"`
	CVE        json.RawMessage `json:"cve"`
	CVEDesc    *string         `json:"cve_desc"`

	FixID    *string `json:"vulnerability_fixing_commit_id"`
	FixURL   *string `json:"vulnerability_fixing_commit_url"`
	FixMsg   *string `json:"vulnerability_fixing_commit_message"`
	VulID    *string `json:"vulnerable_commit_id"`
	VulURL   *string `json:"vulnerable_commit_url"`
	VulMsg   *string `json:"vulnerable_commit_message"`
	IntroID  *string `json:"vulnerability_introducing_commit_id"`
	IntroURL *string `json:"vulnerability_introducing_commit_url"`
	IntroMsg *string `json:"vulnerability_introducing_commit_message"`

	VulBody *string `json:"vulnerable_function_body"`
	BenBody *string `json:"non_vulnerable_function_body"`

	VulCallers json.RawMessage `json:"vulnerable_caller_graph"`
	VulCallees json.RawMessage `json:"vulnerable_callee_graph"`
	VulBodies  json.RawMessage `json:"vulnerable_function_bodies"`
	BenCallers json.RawMessage `json:"non_vulnerable_caller_graph"`
	BenCallees json.RawMessage `json:"non_vulnerable_callee_graph"`
	BenBodies  json.RawMessage `json:"non_vulnerable_function_bodies"`
}

// Import reads the public JitVul benchmark from r (named file in errors) and writes one pair
// per record: the vul case at the introducing commit with the vulnerable body, the ben case at
// the fixing commit with the non-vulnerable body. The record's own commits are kept (the paper's
// code picks the introducing commit one older than `suite jit`'s rule, SPEC section 2). The
// precomputed caller graph, callee graph and function bodies of each side go, as the record
// has them, into that case's meta "context" ({"caller_graph", "callee_graph",
// "function_bodies"}), for subjects run with --context precomputed; the commit URLs and messages
// go into source. Malformed records are returned as *suite.LineError problems; the caller then
// discards what was written.
func Import(r io.Reader, file string, rd *lineerr.Reading, w *suite.Writer) (ImportReport, []error, error) {
	var rep ImportReport
	problems := suite.Problems{File: file}
	ids := map[string]int{}
	_, err := suite.Records(r, file, rd, &problems, func(b []byte, line int) error {
		rep.Records++
		vul, ben, err := publicPair(b, line)
		if err != nil {
			return &suite.LineError{Line: line, Err: err}
		}
		if first, ok := ids[vul.Pair]; ok {
			return &suite.LineError{Line: line, Err: fmt.Errorf("pair %s again (first on line %d): idx must be unique", vul.Pair, first)}
		}
		ids[vul.Pair] = line
		if problems.Len() > 0 {
			return nil // nothing will be kept: only look for more problems
		}
		if NormalizeSpace(vul.Code) == NormalizeSpace(ben.Code) {
			rep.Identical = append(rep.Identical, fmt.Sprintf("%s (line %d)", vul.Pair, line))
			vul.Meta["identical_halves"], ben.Meta["identical_halves"] = true, true
		}
		for _, c := range []*suite.Case{vul, ben} {
			if err := c.Check(); err != nil {
				return fmt.Errorf("%s:%d: %w", file, line, err)
			}
			if err := w.Write(c); err != nil {
				return fmt.Errorf("write case %s: %w", c.ID, err)
			}
		}
		rep.Pairs++
		return nil
	})
	if err != nil {
		return rep, nil, err
	}
	return rep, problems.List(), nil
}

// publicPair turns one record into its two cases.
func publicPair(b []byte, line int) (vul, ben *suite.Case, err error) {
	var rec publicRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rec); err != nil {
		return nil, nil, suite.DescribeJSONError(b, err, "record")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("invalid JSON: more than one JSON value on the line")
	}
	if err := suite.CheckKeys(b); err != nil {
		return nil, nil, err
	}
	var errs []error
	str := func(name string, v *string, required bool) string {
		if v == nil || *v == "" {
			if required {
				errs = append(errs, fmt.Errorf("missing field %q", name))
			}
			return ""
		}
		return *v
	}
	fix := str("vulnerability_fixing_commit_id", rec.FixID, false)
	if fix == "" {
		fix = str("vulnerability_fixing_commit_id (or commit_id)", rec.CommitID, true)
	}
	intro := str("vulnerability_introducing_commit_id", rec.IntroID, true)
	vulBody := str("vulnerable_function_body", rec.VulBody, true)
	benBody := str("non_vulnerable_function_body", rec.BenBody, true)
	url := str("project_url", rec.ProjectURL, true)
	fileName := str("file_name", rec.FileName, false)
	project := str("project", rec.Project, false)
	cwe, err := primevul.ParseCWE(rec.CWE)
	if err != nil {
		errs = append(errs, err)
	}
	cve, err := primevul.ParseCVE(rec.CVE)
	if err != nil {
		errs = append(errs, err)
	}
	id := "jitvul-L" + strconv.Itoa(line)
	var idx json.Number
	if len(rec.Idx) > 0 && string(rec.Idx) != "null" {
		if _, err := strconv.ParseInt(string(rec.Idx), 10, 64); err != nil {
			errs = append(errs, fmt.Errorf(`field "idx": expected an integer, got %s`, rec.Idx))
		} else {
			idx, id = json.Number(rec.Idx), "jitvul-"+string(rec.Idx)
		}
	}
	for _, g := range []struct {
		name string
		raw  json.RawMessage
	}{{"vulnerable_caller_graph", rec.VulCallers}, {"vulnerable_callee_graph", rec.VulCallees}, {"vulnerable_function_bodies", rec.VulBodies},
		{"non_vulnerable_caller_graph", rec.BenCallers}, {"non_vulnerable_callee_graph", rec.BenCallees}, {"non_vulnerable_function_bodies", rec.BenBodies}} {
		if len(g.raw) > 0 && g.raw[0] != '[' && g.raw[0] != '{' && g.raw[0] != '"' && string(g.raw) != "null" {
			errs = append(errs, fmt.Errorf("field %q: expected a list, an object or a string, got %s", g.name, g.raw))
		}
	}
	fn := primevul.FunctionName(vulBody)
	if vulBody != "" && fn == "" {
		errs = append(errs, errors.New(`field "vulnerable_function_body": no function name before its first '('`))
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	if project == "" {
		project = projectOf(url)
	}
	source := func() map[string]any {
		s := map[string]any{"dataset": "jitvul", "vulnerability_fixing_commit_id": fix, "vulnerability_introducing_commit_id": intro}
		if idx != "" {
			s["idx"] = idx
		}
		for k, v := range map[string]*string{"vulnerable_commit_id": rec.VulID, "vulnerability_fixing_commit_url": rec.FixURL,
			"vulnerability_fixing_commit_message": rec.FixMsg, "vulnerable_commit_url": rec.VulURL, "vulnerable_commit_message": rec.VulMsg,
			"vulnerability_introducing_commit_url": rec.IntroURL, "vulnerability_introducing_commit_message": rec.IntroMsg} {
			if v != nil && *v != "" {
				s[k] = *v
			}
		}
		return s
	}
	context := func(callers, callees, bodies json.RawMessage) map[string]any {
		m := map[string]any{}
		for k, raw := range map[string]json.RawMessage{"caller_graph": callers, "callee_graph": callees, "function_bodies": bodies} {
			if len(raw) > 0 && string(raw) != "null" {
				m[k] = raw
			}
		}
		return m
	}
	mk := func(label suite.Label, commit, code string, ctx map[string]any) *suite.Case {
		c := &suite.Case{ID: id + "-" + string(label), Kind: suite.KindJIT, Label: label, Pair: id, Project: project,
			Commit: commit, Language: primevul.Language(fileName), CWE: cwe, CVE: cve, Code: code,
			Repo:   &suite.Repo{URL: url, Commit: commit},
			Target: &suite.Target{File: fileName, Function: fn},
			Source: source(), Meta: map[string]any{}}
		if len(ctx) > 0 {
			c.Meta["context"] = ctx
		}
		if rec.CVEDesc != nil && *rec.CVEDesc != "" {
			c.Meta["cve_desc"] = *rec.CVEDesc
		}
		return c
	}
	return mk(suite.Vul, intro, vulBody, context(rec.VulCallers, rec.VulCallees, rec.VulBodies)),
		mk(suite.Ben, fix, benBody, context(rec.BenCallers, rec.BenCallees, rec.BenBodies)), nil
}
