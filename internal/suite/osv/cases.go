package osv

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// pairAll writes the pairs of every outcome still standing: function pairs from the fix's own
// versions, or JitVul pairs through the tracer (in parallel). An outcome all of whose functions
// give no pair is dropped with the first function's reason.
func (b *Builder) pairAll(ctx context.Context, outs []*Outcome) error {
	type job struct {
		o    *Outcome
		c    *Changed
		pair *Pair
		err  error
	}
	var jobs []*job
	ids := map[string]int{}
	for _, o := range outs {
		if o.Drop != nil {
			continue
		}
		for _, c := range o.Select.Funcs {
			jobs = append(jobs, &job{o: o, c: c})
		}
	}
	err := parallel(ctx, len(jobs), b.opts.Workers, func(i int) error {
		j := jobs[i]
		j.pair, j.err = b.pair(ctx, j.o, j.c)
		var de *dropError
		var je *jitvul.DropError
		if j.err != nil && !errors.As(j.err, &de) && !errors.As(j.err, &je) {
			return fmt.Errorf("%s: %s in %s: %w", j.o.Record.Source, j.c.Target(), j.c.File, j.err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, j := range jobs {
		o := j.o
		if j.err != nil {
			d := Dropped{ID: o.Record.ID, Source: o.Record.Source, Function: j.c.Target()}
			var de *dropError
			var je *jitvul.DropError
			if errors.As(j.err, &de) {
				d.Reason, d.Detail = de.reason, de.detail
			} else if errors.As(j.err, &je) {
				d.Reason, d.Detail = Reason(je.Reason), je.Detail
			}
			o.Left = append(o.Left, d)
			continue
		}
		id := pairID(o.Record.ID, targetName(j.c, j.c.Ben))
		if n := ids[id]; n > 0 {
			ids[id]++
			id += "-" + strconv.Itoa(n+1)
		} else {
			ids[id] = 1
		}
		j.pair.setID(id)
		o.Pairs = append(o.Pairs, *j.pair)
	}
	for _, o := range outs {
		if o.Drop == nil && len(o.Pairs) == 0 && len(o.Left) > 0 {
			first := o.Left[0]
			var details []string
			for _, l := range o.Left {
				details = append(details, l.Function+": "+l.Detail)
			}
			o.Drop = &Dropped{ID: o.Record.ID, Source: o.Record.Source, Reason: first.Reason, Detail: strings.Join(details, "; ")}
			o.Left = nil
		}
	}
	return nil
}

// pair builds the pair of one changed function of an outcome.
func (b *Builder) pair(ctx context.Context, o *Outcome, c *Changed) (*Pair, error) {
	switch {
	case c.Vul == nil:
		return nil, &dropError{reason: ReasonAdded, detail: fmt.Sprintf("fix %s added %s to %s: there is no f_vul", short(o.Fix.Commit.OID), c.Target(), c.File)}
	case c.Ben == nil:
		return nil, &dropError{reason: ReasonDeleted, detail: fmt.Sprintf("fix %s removed %s from %s: there is no f_ben", short(o.Fix.Commit.OID), c.Target(), c.OldFile)}
	}
	if b.opts.Kind != suite.KindJIT {
		return b.functionPair(o, c), nil
	}
	if c.OldFile != c.File {
		return nil, &dropError{reason: Reason(jitvul.ReasonFileNotInParent), detail: fmt.Sprintf("fix %s renamed %s to %s: the walk follows one path", short(o.Fix.Commit.OID), c.OldFile, c.File)}
	}
	req := jitvul.Request{URL: o.Repo, Fix: o.Fix.Commit.OID, File: c.File, Function: targetName(c, c.Vul),
		CWE: o.Record.CWE, CVE: o.Record.CVE, Source: map[string]any{"dataset": "osv", "id": o.Record.ID}}
	if c.Renamed() {
		req.BenFunction = targetName(c, c.Ben)
	}
	p, err := b.s.Trace(ctx, o.Dir, req)
	if err != nil {
		return nil, err
	}
	w := p.Walk
	out := &Pair{Vul: p.Vul, Ben: p.Ben, Func: c, Walk: &w}
	for _, cs := range []*suite.Case{p.Vul, p.Ben} {
		cs.Date = o.Date.Format(time.RFC3339)
		cs.Meta["date_source"] = o.DateSource
		cs.Meta["osv"] = o.meta(c)
	}
	return out, nil
}

// functionPair is the function pair of c: f_vul at the fix's parent, f_ben at the fix. Each
// case names the repository and its own commit (commit and repo.commit: the parent for the vul
// case, the fix for the ben one), so that a subject reading the repository sees the code the
// label is about.
func (b *Builder) functionPair(o *Outcome, c *Changed) *Pair {
	mk := func(label suite.Label, commit, file string, v *FuncVersion) *suite.Case {
		return &suite.Case{Kind: suite.KindFunction, Label: label, Project: projectOf(o.Repo), Commit: commit,
			Date: o.Date.Format(time.RFC3339), Language: c.Lang.String(), CWE: o.Record.CWE, CVE: o.Record.CVE, Code: v.Code,
			Repo:   &suite.Repo{URL: o.Repo, Commit: commit},
			Target: &suite.Target{File: file, Function: targetName(c, v), Line: v.Line, EndLine: v.End},
			Source: map[string]any{"dataset": "osv", "id": o.Record.ID},
			Meta:   map[string]any{"date_source": o.DateSource, "osv": o.meta(c)}}
	}
	return &Pair{Vul: mk(suite.Vul, o.Fix.Parent.OID, c.OldFile, c.Vul), Ben: mk(suite.Ben, o.Fix.Commit.OID, c.File, c.Ben), Func: c}
}

// setID names the pair's cases ID-vul and ID-ben.
func (p *Pair) setID(id string) {
	p.Vul.ID, p.Ben.ID, p.Vul.Pair, p.Ben.Pair = id+"-vul", id+"-ben", id, id
}

// meta is a case's meta.osv: the record, the fix and how the function was chosen.
func (o *Outcome) meta(c *Changed) map[string]any {
	m := map[string]any{
		"id": o.Record.ID, "source": o.Record.Source, "narrowing": o.Select.Narrowing, "repo": o.Repo,
		"fix_commit": o.Fix.Commit.OID, "parent_commit": o.Fix.Parent.OID, "fix_from": o.Ref.From,
		"changed_functions": o.Select.Changed, "builder": "vulnbench suite build osv " + Version,
	}
	if len(o.Select.Matched) > 0 {
		m["matched"] = o.Select.Matched
	}
	if o.Record.CrashType != "" {
		m["crash_type"] = o.Record.CrashType
	}
	if o.Record.CWESource != "" {
		m["cwe_source"] = o.Record.CWESource
	}
	if !o.Record.Published.IsZero() {
		m["published"] = o.Record.Published.Format(time.RFC3339)
	}
	if o.Ref.URL != "" {
		m["fix_url"] = o.Ref.URL
	}
	if o.Range != nil {
		m["fix_range"] = map[string]any{"from": o.Range.From, "to": o.Range.To, "commits": o.Range.Commits, "rule": o.Range.Rule}
	}
	if c.Renamed() {
		m["renamed_from"] = targetName(c, c.Vul)
	}
	if c.OldFile != c.File {
		m["file_renamed_from"] = c.OldFile
	}
	return m
}

// targetName is the name a case gives a function: its qualified name (ns::A::m, C.m, T.M for
// Go, without the package the extractor prefixes), its plain name when that is all it has.
func targetName(c *Changed, v *FuncVersion) string {
	if c.Lang == codegraph.Go {
		if _, q, ok := strings.Cut(v.Qual, "."); ok {
			return q
		}
	}
	return v.Qual
}

// projectOf is OWNER/NAME of a repository URL; HOST/NAME for a URL with one path element
// (git://git.ghostscript.com/ghostpdl.git).
func projectOf(url string) string {
	u, err := snapshot.ParseRepoURL(url)
	if err != nil {
		_, rest, ok := strings.Cut(url, "://")
		if !ok {
			return url
		}
		return strings.TrimSuffix(strings.TrimRight(rest, "/"), ".git")
	}
	return strings.Join(append(append([]string{}, u.Owner...), u.Name), "/")
}

// pairID is osv-RECORD-FUNCTION, with characters outside [A-Za-z0-9._-] replaced.
func pairID(record, function string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-') {
				return r
			}
			return '_'
		}, s)
	}
	return "osv-" + clean(record) + "-" + clean(function)
}
