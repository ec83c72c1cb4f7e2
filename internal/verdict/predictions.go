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

	"github.com/vulnbench/vulnbench/internal/suite"
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
//   - vulnbench JSONL (the line starts with '{'): one Verdict-shaped object per line, with at
//     least case_id and a label or a status; status defaults to "ok"; label must be vul or ben
//     when the status is ok (and when present); score must be in [0,1]. Unknown fields are
//     refused, so that a misspelt "score" is caught. One (case_id, repeat) may appear once.
//   - PrimeVul's predictions.txt: idx<TAB>label (0 or 1)[<TAB>probability of the vulnerable
//     class]; the probability becomes Score. One idx may appear once.
//
// CRLF line endings and blank lines are accepted. It returns every problem as a *suite.LineError
// (FILE:LINE: msg), at most suite.MaxProblems of them and then "and N more problems"; lines with problems
// are not passed to fn. An error from fn stops the reading and is returned as the last problem,
// on fn's line.
func ReadPredictions(r io.Reader, file string, fn func(p Prediction, line int) error) []error {
	br := bufio.NewReaderSize(r, 64<<10)
	tsv := !firstIsJSON(br)
	lr := suite.NewLineReader(br, file)
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
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
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
	return p, errs
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
		errs = append(errs, fmt.Errorf("idx %q is not a non-negative integer", clip(cols[0])))
	}
	p.Idx = strconv.FormatUint(idx, 10)
	switch cols[1] {
	case "1":
		p.Label = suite.Vul
	case "0":
		p.Label = suite.Ben
	default:
		errs = append(errs, fmt.Errorf("label %q is not 0 or 1", clip(cols[1])))
	}
	if len(cols) == 3 {
		f, err := strconv.ParseFloat(cols[2], 64)
		if err != nil || !(f >= 0 && f <= 1) {
			errs = append(errs, fmt.Errorf("probability %q is not a number in [0, 1]", clip(cols[2])))
		} else {
			p.Score = Float(f)
		}
	}
	return p, errs
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
