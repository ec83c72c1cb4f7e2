package jitvul

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/primevul"
)

// Dropped is a record that gave no pair.
type Dropped struct {
	Line   int    `json:"line"`
	Reason Reason `json:"reason"`
	Detail string `json:"detail"`
}

// BatchReport says what Batch read, wrote and dropped.
type BatchReport struct {
	Records int       `json:"records"`
	Pairs   int       `json:"pairs"`
	Dropped []Dropped `json:"dropped,omitempty"`
	// ByReason counts the dropped records per reason.
	ByReason map[Reason]int `json:"by_reason,omitempty"`
	// Stops counts the written pairs per way their walk ended.
	Stops map[Stop]int `json:"stops,omitempty"`
}

// batchRecord is the part of a PrimeVul v0.1 record that Batch reads.
type batchRecord struct {
	Idx          json.RawMessage `json:"idx"`
	ProjectURL   *string         `json:"project_url"`
	CommitID     *string         `json:"commit_id"`
	FileName     *string         `json:"file_name"`
	Func         *string         `json:"func"`
	FunctionName *string         `json:"function_name"`
	FuncName     *string         `json:"func_name"`
	CWE          json.RawMessage `json:"cwe"`
	CVE          json.RawMessage `json:"cve"`
}

// job is one parsed record.
type job struct {
	line int
	req  Request
	dir  string
	pair *Pair
	err  error
}

// parseRecord reads one line as a trace request, or returns why it is malformed.
func parseRecord(b []byte) (Request, error) {
	var rec batchRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rec); err != nil {
		return Request{}, suite.DescribeJSONError(b, err, "record")
	}
	if _, err := dec.Token(); err != io.EOF {
		return Request{}, errors.New("invalid JSON: more than one JSON value on the line")
	}
	if err := suite.CheckKeys(b); err != nil {
		return Request{}, err
	}
	var errs []error
	need := func(name string, v *string) string {
		if v == nil || *v == "" {
			errs = append(errs, fmt.Errorf("missing field %q", name))
			return ""
		}
		return *v
	}
	req := Request{URL: need("project_url", rec.ProjectURL), Fix: need("commit_id", rec.CommitID), File: need("file_name", rec.FileName)}
	switch {
	case rec.FunctionName != nil && *rec.FunctionName != "":
		req.Function = *rec.FunctionName
	case rec.FuncName != nil && *rec.FuncName != "":
		req.Function = *rec.FuncName
	case rec.Func != nil:
		req.Function = primevul.FunctionName(*rec.Func)
		if req.Function == "" {
			errs = append(errs, errors.New(`field "func": no function name before its first '(' (give "function_name")`))
		}
	default:
		errs = append(errs, errors.New(`missing field "func" or "function_name"`))
	}
	var err error
	if req.CWE, err = primevul.ParseCWE(rec.CWE); err != nil {
		errs = append(errs, err)
	}
	if req.CVE, err = primevul.ParseCVE(rec.CVE); err != nil {
		errs = append(errs, err)
	}
	req.Source = map[string]any{}
	if len(rec.Idx) > 0 && string(rec.Idx) != "null" {
		if _, err := strconv.ParseInt(string(rec.Idx), 10, 64); err != nil {
			errs = append(errs, fmt.Errorf(`field "idx": expected an integer, got %s`, rec.Idx))
		} else {
			req.Source["idx"] = json.Number(rec.Idx)
		}
	}
	if req.URL != "" {
		if _, err := snapshot.ParseRepoURL(req.URL); err != nil {
			errs = append(errs, fmt.Errorf(`field "project_url": %w`, err))
		}
	}
	return req, errors.Join(errs...)
}

// Batch reads PrimeVul v0.1-shaped records from r (named file in messages), finds each record's
// repository under reposDir, traces the records in parallel and writes the pairs to w in the
// order of the input. Malformed lines are returned as *suite.LineError problems (the caller then
// discards what was written); records that give no pair are in the report's Dropped, with why.
// The error is for faults that are not about one record.
func (s *Session) Batch(ctx context.Context, r io.Reader, file, reposDir string, w *suite.Writer) (BatchReport, []error, error) {
	rep := BatchReport{ByReason: map[Reason]int{}, Stops: map[Stop]int{}}
	problems := suite.Problems{File: file}
	var jobs []*job
	seen := map[string]int{}
	located := map[string]struct {
		dir string
		err error
	}{}
	_, err := suite.Records(r, file, nil, &problems, func(b []byte, line int) error {
		rep.Records++
		req, err := parseRecord(b)
		if err != nil {
			return &suite.LineError{Line: line, Err: err}
		}
		req.Source["line"] = line
		j := &job{line: line, req: req}
		key := req.URL + "\x00" + req.Fix + "\x00" + req.File + "\x00" + req.Function
		if first, ok := seen[key]; ok {
			j.err = drop(ReasonDuplicate, "same repository, fix, file and function as line %d", first)
		} else {
			seen[key] = line
			loc, ok := located[req.URL]
			if !ok {
				loc.dir, loc.err = snapshot.Locate(reposDir, req.URL)
				located[req.URL] = loc
			}
			j.dir = loc.dir
			if loc.err != nil {
				j.err = &DropError{Reason: ReasonNoRepository, Detail: loc.err.Error()}
			}
		}
		jobs = append(jobs, j)
		return nil
	})
	if err != nil {
		return rep, nil, err
	}
	if problems.Len() > 0 {
		return rep, problems.List(), nil
	}
	if err := s.traceAll(ctx, jobs); err != nil {
		return rep, nil, err
	}
	ids := map[string]bool{}
	for _, j := range jobs {
		var de *DropError
		switch {
		case errors.As(j.err, &de):
			rep.Dropped = append(rep.Dropped, Dropped{Line: j.line, Reason: de.Reason, Detail: de.Detail})
			rep.ByReason[de.Reason]++
			continue
		case j.err != nil:
			return rep, nil, fmt.Errorf("%s:%d: %w", file, j.line, j.err)
		}
		p := j.pair
		if ids[p.Vul.Pair] { // the same function name in two files of one fix
			id := p.Vul.Pair + "-L" + strconv.Itoa(j.line)
			p.Vul.Pair, p.Ben.Pair, p.Vul.ID, p.Ben.ID = id, id, id+"-vul", id+"-ben"
		}
		ids[p.Vul.Pair] = true
		for _, c := range []*suite.Case{p.Vul, p.Ben} {
			if err := w.Write(c); err != nil {
				return rep, nil, fmt.Errorf("write case %s: %w", c.ID, err)
			}
		}
		rep.Pairs++
		rep.Stops[p.Walk.Stop]++
	}
	return rep, nil, nil
}

// traceAll traces the jobs not dropped yet with the session's workers. Drops stay with their
// job; the first other fault stops everything.
func (s *Session) traceAll(ctx context.Context, jobs []*job) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ch := make(chan *job)
	var wg sync.WaitGroup
	for range s.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				j.pair, j.err = s.Trace(ctx, j.dir, j.req)
				var de *DropError
				if j.err != nil && !errors.As(j.err, &de) {
					cancel(j.err)
				}
			}
		}()
	}
	for _, j := range jobs {
		if j.err != nil {
			continue
		}
		select {
		case ch <- j:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(ch)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		for _, j := range jobs {
			if j.err != nil && errors.Is(j.err, err) {
				return fmt.Errorf("line %d: %w", j.line, err)
			}
		}
		return err
	}
	return nil
}
