package curate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// Raw is one input line: a function as a fix commit found it. Before is null for a function the
// commit added, After null for one it deleted.
type Raw struct {
	Project    string   `json:"project"`
	CommitID   string   `json:"commit_id"`
	CommitDate string   `json:"commit_date"`
	CVE        string   `json:"cve"`
	CWE        []string `json:"cwe"`
	CVEDesc    string   `json:"cve_desc"`
	File       string   `json:"file"`
	Function   string   `json:"function"`
	Before     *string  `json:"before"`
	After      *string  `json:"after"`
}

// decoded is what a worker makes of one line.
type decoded struct {
	raw                  Raw
	date                 time.Time
	hb, ha               [16]byte
	namesFunc, namesFile bool
	err                  error
}

// read is the first pass: it decodes and checks the input's lines on every core, spills their
// texts to the temporary file and keeps a compact row per function.
func (p *pipeline) read(ctx context.Context, in string) error {
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("curate: %w", err)
	}
	defer f.Close()
	p.problems.File = in
	lr := suite.NewLineReader(f, in)
	sw := bufio.NewWriterSize(p.spill, 1<<20)
	var off int64
	put := func(s *string) (int64, int32, error) {
		if s == nil {
			return 0, 0, nil
		}
		o := off
		n, err := sw.WriteString(*s)
		off += int64(n)
		if err != nil {
			return 0, 0, fmt.Errorf("curate: spill: %w", err)
		}
		return o, int32(len(*s)), nil
	}
	commitIdx := map[[2]string]int32{}
	cweIdx := map[string]int32{}
	intern := map[string]string{}
	in2 := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		intern[s] = s
		return s
	}
	lines := 0
	err = suite.DecodeLines(lr, p.opt.Workers, decodeLine, func(d decoded, line int, lerr error) error {
		lines = line
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if lerr == nil && d.err != nil {
			lerr = &suite.LineError{File: in, Line: line, Err: d.err}
		}
		if lerr != nil {
			if p.opt.Strict {
				return lerr
			}
			p.problems.Add(lerr)
			return nil
		}
		r := &d.raw
		key := [2]string{r.Project, r.CommitID}
		ci, ok := commitIdx[key]
		if !ok {
			ci = int32(len(p.commits))
			commitIdx[key] = ci
			p.commits = append(p.commits, commit{project: r.Project, id: r.CommitID, date: r.CommitDate, t: d.date})
		} else if c := &p.commits[ci]; d.date.Before(c.t) {
			c.t, c.date = d.date, r.CommitDate // rows disagree: the commit's earliest date
		}
		ck := strings.Join(r.CWE, ",")
		wi, ok := cweIdx[ck]
		if !ok {
			wi = int32(len(p.cwes))
			cweIdx[ck] = wi
			p.cwes = append(p.cwes, r.CWE)
		}
		w := row{commit: ci, cwe: wi, line: int32(line), cve: in2(r.CVE), file: in2(r.File), function: in2(r.Function),
			hb: d.hb, ha: d.ha, hasB: r.Before != nil, hasA: r.After != nil, namesFunc: d.namesFunc, namesFile: d.namesFile}
		var err error
		if w.offB, w.lenB, err = put(r.Before); err != nil {
			return err
		}
		if w.offA, w.lenA, err = put(r.After); err != nil {
			return err
		}
		p.rows = append(p.rows, w)
		return nil
	})
	if err != nil {
		var le *suite.LineError
		if errors.As(err, &le) {
			return err
		}
		return fmt.Errorf("curate: %w", err)
	}
	if err := sw.Flush(); err != nil {
		return fmt.Errorf("curate: spill: %w", err)
	}
	p.rep.Lines = lines
	p.rep.Records = len(p.rows)
	p.rep.Malformed = p.problems.Len()
	for _, e := range p.problems.List() {
		p.rep.Problems = append(p.rep.Problems, e.Error())
	}
	p.rep.Steps = append(p.rep.Steps, Step{Step: "parse", Unit: "lines", In: p.rep.Records + p.rep.Malformed, Out: p.rep.Records,
		Removed: nonzero(Removal{Reason: "malformed line (see problems)", Count: p.rep.Malformed})})
	return nil
}

func decodeLine(b []byte, _ int) decoded {
	var d decoded
	if err := json.Unmarshal(b, &d.raw); err != nil {
		d.err = suite.DescribeJSONError(b, err, "record")
		return d
	}
	if err := suite.CheckKeys(b); err != nil {
		d.err = err
		return d
	}
	r := &d.raw
	switch {
	case r.Project == "":
		d.err = errors.New(`missing field "project"`)
	case r.CommitID == "":
		d.err = errors.New(`missing field "commit_id"`)
	case r.CommitDate == "":
		d.err = errors.New(`missing field "commit_date"`)
	case r.File == "":
		d.err = errors.New(`missing field "file"`)
	case r.Function == "":
		d.err = errors.New(`missing field "function"`)
	case r.Before == nil && r.After == nil:
		d.err = errors.New(`"before" and "after" are both null`)
	}
	if d.err != nil {
		return d
	}
	t, err := time.Parse(time.RFC3339, r.CommitDate)
	if err != nil {
		d.err = fmt.Errorf("commit_date %q is not RFC 3339 (like 2016-05-01T12:00:00Z)", r.CommitDate)
		return d
	}
	d.date = t
	for _, w := range r.CWE {
		if !suite.ValidCWE(w) {
			d.err = fmt.Errorf("cwe %q is not like CWE-787", w)
			return d
		}
	}
	if r.Before != nil {
		d.hb = NormHash(*r.Before)
	}
	if r.After != nil {
		d.ha = NormHash(*r.After)
	}
	d.namesFunc = NamesFunction(r.CVEDesc, r.Function)
	d.namesFile = NamesFile(r.CVEDesc, r.File)
	return d
}

// NamesFunction reports whether an NVD description names the function: its name (for C++, the
// part after the last "::") occurs as a whole identifier.
func NamesFunction(desc, function string) bool {
	if i := strings.LastIndex(function, "::"); i >= 0 {
		function = function[i+2:]
	}
	return containsWord(desc, function, isIdent, isIdent)
}

// NamesFile reports whether an NVD description names the file: its base name (like parser.c)
// occurs with no path-name character before it (a directory before it is fine) and no
// identifier character after it.
func NamesFile(desc, file string) bool {
	base := filepath.Base(strings.ReplaceAll(file, `\`, "/"))
	if base == "." || base == "/" {
		return false
	}
	before := func(c byte) bool { return isIdent(c) || c == '.' || c == '-' }
	return containsWord(desc, base, before, isIdent)
}

func containsWord(s, w string, badBefore, badAfter func(byte) bool) bool {
	if w == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !badBefore(s[j-1])) && (end == len(s) || !badAfter(s[end])) {
			return true
		}
		i = j + 1
	}
}
