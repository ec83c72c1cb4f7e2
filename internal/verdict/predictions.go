package verdict

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/textnorm"
)

// Prediction is one line of a predictions file. A vulnbench JSONL line sets Verdict.CaseID; a
// PrimeVul predictions.txt line sets Idx instead (the decimal idx, as suite.Case.SourceIdx gives
// it) and leaves CaseID empty: the caller maps idx values to cases.
type Prediction struct {
	Verdict
	Idx string
}

// ReadPredictions reads a predictions file and calls fn with each valid prediction, in file order.
// Two formats are accepted, told apart by the first non-blank line:
//
//   - vulnbench JSONL (the line starts with '{'): one Verdict-shaped object per line (see
//     schema/verdict.schema.json), with at least case_id and a label or a status; status
//     defaults to "ok"; label must be vul or ben when the status is ok (and when present); score
//     and confidence must be in [0,1]; repeat, attempt, finding lines and usage not negative; a
//     finding's end_line not before its start_line; score_source, vex.status and
//     vex.justification from their lists; CWE ids spelt CWE-<number>. Unknown fields are
//     refused, so that a misspelt "score" is caught. One (case_id, repeat) may appear once.
//   - PrimeVul's predictions.txt: idx<TAB>label (0 or 1)[<TAB>probability of the vulnerable
//     class]; the probability becomes Score. One idx may appear once.
//
// CRLF line endings and blank lines are accepted. It returns every problem as a *suite.LineError
// (FILE:LINE: msg), at most suite.MaxProblems of them and then "and N more problems"; lines with problems
// are not passed to fn. An error from fn stops the reading and is returned as the last problem,
// on fn's line. rd is how it is read (nil: strictly, nothing noted).
func ReadPredictions(r io.Reader, file string, rd *lineerr.Reading, fn func(p Prediction, line int) error) []error {
	br := bufio.NewReaderSize(r, 64<<10)
	tsv := !firstIsJSON(br)
	lr := suite.NewLineReader(br, file)
	lr.Reading = rd
	pr := &suite.Problems{File: file}
	type key struct {
		id     string
		repeat int
	}
	type decoded struct {
		p    Prediction
		errs []error
	}
	seen := map[key]int{} // (case_id or idx, repeat) -> line of the first
	err := suite.DecodeLines(lr, 0, func(b []byte, line int) decoded {
		var d decoded
		if tsv {
			d.p, d.errs = parseTSV(b)
		} else {
			d.p, d.errs = parseJSON(b)
		}
		return d
	}, func(d decoded, line int, err error) error {
		if err != nil {
			pr.Add(err) // an over-long line
			return nil
		}
		if len(d.errs) > 0 {
			for _, e := range d.errs {
				pr.Add(&suite.LineError{File: file, Line: line, Err: e})
			}
			return nil
		}
		p := d.p
		k, what := key{id: p.CaseID, repeat: p.Repeat}, fmt.Sprintf("case_id %q", p.CaseID)
		if tsv {
			k, what = key{id: p.Idx}, "idx "+p.Idx
		} else if p.Repeat != 0 {
			what += fmt.Sprintf(" (repeat %d)", p.Repeat)
		}
		if first, dup := seen[k]; dup {
			pr.Add(&suite.LineError{File: file, Line: line, Err: fmt.Errorf("duplicate %s (first on line %d)", what, first)})
			return nil
		}
		seen[k] = line
		if fn != nil {
			if err := fn(p, line); err != nil {
				pr.Add(&suite.LineError{File: file, Line: line, Err: err})
				return errStop
			}
		}
		return nil
	})
	if err != nil && err != errStop {
		pr.Add(err) // the reader's own failure
	}
	return pr.List()
}

var errStop = errors.New("stop")

// firstIsJSON tells the format from the first non-blank line: JSONL when it starts with '{'.
// It only peeks: nothing is consumed.
func firstIsJSON(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Size())
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

func parseJSON(b []byte) (Prediction, []error) {
	var p Prediction
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p.Verdict); err != nil {
		return p, []error{suite.DescribeJSONError(b, err, "prediction")}
	}
	if _, err := dec.Token(); err != io.EOF {
		return p, []error{errors.New("invalid JSON: more than one JSON value on the line")}
	}
	if err := suite.CheckKeys(b); err != nil {
		return p, []error{err}
	}
	var errs []error
	v := &p.Verdict
	if v.CaseID == "" {
		errs = append(errs, errors.New(`missing field "case_id"`))
	}
	if v.Status == "" {
		v.Status = OK
	}
	if !v.Status.Valid() {
		errs = append(errs, fmt.Errorf(`field "status": %q is not ok, failed or error`, v.Status))
	}
	switch {
	case v.Label == "" && v.Status == OK:
		errs = append(errs, errors.New(`missing field "label" (vul or ben; or a status of failed or error)`))
	case v.Label != "" && !v.Label.Valid():
		errs = append(errs, fmt.Errorf(`field "label": %q is not vul or ben`, v.Label))
	}
	if v.Score != nil && !(*v.Score >= 0 && *v.Score <= 1) {
		errs = append(errs, fmt.Errorf(`field "score": %v is not in [0, 1]`, *v.Score))
	}
	if v.Repeat < 0 {
		errs = append(errs, fmt.Errorf(`field "repeat": %d is negative`, v.Repeat))
	}
	if v.Attempt < 0 {
		errs = append(errs, fmt.Errorf(`field "attempt": %d is negative`, v.Attempt))
	}
	if !v.ScoreSource.Valid() {
		errs = append(errs, fmt.Errorf(`field "score_source": %q is not logprob, stated or tool`, v.ScoreSource))
	}
	if v.Confidence != nil && !(*v.Confidence >= 0 && *v.Confidence <= 1) {
		errs = append(errs, fmt.Errorf(`field "confidence": %v is not in [0, 1]`, *v.Confidence))
	}
	errs = checkCWEs(errs, "cwe", v.CWE)
	for i, f := range v.Findings {
		field := fmt.Sprintf("findings[%d]", i)
		if f.StartLine < 0 {
			errs = append(errs, fmt.Errorf(`field "%s.start_line": %d is negative`, field, f.StartLine))
		}
		if f.EndLine < 0 {
			errs = append(errs, fmt.Errorf(`field "%s.end_line": %d is negative`, field, f.EndLine))
		}
		if f.StartLine > 0 && f.EndLine > 0 && f.EndLine < f.StartLine {
			errs = append(errs, fmt.Errorf(`field "%s": end_line %d is before start_line %d`, field, f.EndLine, f.StartLine))
		}
		errs = checkCWEs(errs, field+".cwe", f.CWE)
		if !ValidTier(f.Tier) {
			errs = append(errs, fmt.Errorf(`field "%s.tier": %q is not exact, related or unrelated`, field, textnorm.Clip(f.Tier, 40)))
		}
	}
	if x := v.VEX; x != nil {
		if x.Status != "" && !ValidVEXStatus(x.Status) {
			errs = append(errs, fmt.Errorf(`field "vex.status": %q is not affected, not_affected, fixed or under_investigation`, textnorm.Clip(x.Status, 40)))
		}
		if x.Justification != "" && !ValidJustification(x.Justification) {
			errs = append(errs, fmt.Errorf(`field "vex.justification": %q is not one of OpenVEX's: component_not_present, `+
				`vulnerable_code_not_present, vulnerable_code_not_in_execute_path, `+
				`vulnerable_code_cannot_be_controlled_by_adversary, inline_mitigations_already_exist`, textnorm.Clip(x.Justification, 40)))
		}
	}
	return p, checkUsage(errs, &v.Usage)
}

// checkCWEs adds a problem for each entry of list (the field named field) that is not a CWE id
// as suites write them: CWE-<number>, NVD-CWE-Other or NVD-CWE-noinfo. A lower-case "cwe-79" is
// refused, not corrected, with the spelling to use.
func checkCWEs(errs []error, field string, list []string) []error {
	for i, c := range list {
		if suite.ValidCWE(c) {
			continue
		}
		if up := strings.ToUpper(c); suite.ValidCWE(up) {
			errs = append(errs, fmt.Errorf(`field "%s[%d]": %q is not a CWE id: write %q`, field, i, c, up))
		} else {
			errs = append(errs, fmt.Errorf(`field "%s[%d]": %q is not a CWE id (CWE-<number>, NVD-CWE-Other or NVD-CWE-noinfo)`, field, i, textnorm.Clip(c, 40)))
		}
	}
	return errs
}

// checkUsage adds a problem for each negative count or cost of u.
func checkUsage(errs []error, u *Usage) []error {
	for _, c := range []struct {
		name string
		n    int64
	}{
		{"input_tokens", u.InputTokens}, {"cached_input_tokens", u.CachedInputTokens},
		{"cache_write_tokens", u.CacheWriteTokens}, {"output_tokens", u.OutputTokens},
		{"reasoning_tokens", u.ReasoningTokens}, {"wall_ms", u.WallMS}, {"tool_calls", int64(u.ToolCalls)},
		{"calls", int64(u.Calls)}, {"retries", int64(u.Retries)}, {"cache_hits", int64(u.CacheHits)},
		{"wait_ms", u.WaitMS},
	} {
		if c.n < 0 {
			errs = append(errs, fmt.Errorf(`field "usage.%s": %d is negative`, c.name, c.n))
		}
	}
	if u.CostUSD != nil && !(*u.CostUSD >= 0) {
		errs = append(errs, fmt.Errorf(`field "usage.cost_usd": %v is negative`, *u.CostUSD))
	}
	return errs
}

// parseTSV reads idx<TAB>label[<TAB>probability].
func parseTSV(b []byte) (Prediction, []error) {
	p := Prediction{Verdict: Verdict{Status: OK}}
	cols := strings.Split(string(b), "\t")
	if len(cols) < 2 || len(cols) > 3 {
		return p, []error{fmt.Errorf("expected idx<TAB>label<TAB>probability (or idx<TAB>label), got %d tab-separated columns", len(cols))}
	}
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
	}
	var errs []error
	idx, err := strconv.ParseUint(cols[0], 10, 63)
	if err != nil {
		errs = append(errs, fmt.Errorf("idx %q is not a non-negative integer", textnorm.Clip(cols[0], 40)))
	}
	p.Idx = strconv.FormatUint(idx, 10)
	switch cols[1] {
	case "1":
		p.Label = suite.Vul
	case "0":
		p.Label = suite.Ben
	default:
		errs = append(errs, fmt.Errorf("label %q is not 0 or 1", textnorm.Clip(cols[1], 40)))
	}
	if len(cols) == 3 {
		f, err := strconv.ParseFloat(cols[2], 64)
		if err != nil || !(f >= 0 && f <= 1) {
			errs = append(errs, fmt.Errorf("probability %q is not a number in [0, 1]", textnorm.Clip(cols[2], 40)))
		} else {
			p.Score = Float(f)
		}
	}
	return p, errs
}
