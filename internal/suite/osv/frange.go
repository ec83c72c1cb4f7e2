package osv

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// RangeSearch is how the fix was found in an OSS-Fuzz fixed_range: the range (From excluded,
// To included), its first-parent commits, the one of them taken and by which rule.
type RangeSearch struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Commits int    `json:"commits"`
	Fix     string `json:"fix"`
	Rule    string `json:"rule"`
}

// The rules a range's fix is taken by.
const (
	rangeOnly       = "only commit"      // the range holds one commit
	rangeCrashState = "crash state"      // the one commit that changes a crash-state function
	rangeOneCode    = "only code change" // the one commit that changes source code
)

// searchRange finds the fix of a record whose fixed commit ends a fixed_range: the range's
// only commit; else the one commit of it that changes a function of the crash state; else the
// one commit of it that changes source code at all (the others touch docs, tests, build files),
// narrowed then as any fix is.
func (b *Builder) searchRange(ctx context.Context, g *jitvul.Git, r *Record, ref FixRef, end jitvul.Commit) (*RangeSearch, *Fix, error) {
	from, err := g.Commit(ref.RangeFrom)
	if err != nil {
		if errors.Is(err, jitvul.ErrMissing) {
			return nil, nil, &dropError{reason: ReasonNoCommit, detail: fmt.Sprintf("%s, the start of the fixed_range %s:%s, is not in %s", ref.RangeFrom, ref.RangeFrom, ref.Commit, g.Dir())}
		}
		return nil, nil, err
	}
	commits, err := g.FirstParents(ctx, from.OID, end.OID, b.opts.MaxRange)
	var re *jitvul.RangeError
	if errors.As(err, &re) {
		return nil, nil, &dropError{reason: ReasonFixRange, detail: fmt.Sprintf("the fix is one of the commits of %s, over --max-range", re.Error())}
	}
	if err != nil {
		return nil, nil, err
	}
	rs := &RangeSearch{From: from.OID, To: end.OID, Commits: len(commits)}
	take := func(c jitvul.Commit, rule string) (*RangeSearch, *Fix, error) {
		rs.Fix, rs.Rule = c.OID, rule
		fx, err := analyse(ctx, b.s, g, c, nil)
		return rs, fx, err
	}
	if len(commits) == 0 {
		return nil, nil, &dropError{reason: ReasonFixRange, detail: fmt.Sprintf("the fixed_range %s..%s holds no first-parent commit", short(from.OID), short(end.OID))}
	}
	if len(commits) == 1 {
		return take(end, rangeOnly)
	}
	frames := parseFrames(r.Frames)
	var words []string
	for _, f := range frames {
		words = append(words, f.segs[len(f.segs)-1])
	}
	var hits, code []string
	var hit, coder jitvul.Commit
	for _, oid := range commits {
		c, err := g.Commit(oid)
		if err != nil {
			return rs, nil, err
		}
		if len(c.Parents) == 0 {
			continue
		}
		changesCode, err := touchesCode(ctx, g, c)
		if err != nil {
			return rs, nil, err
		}
		if !changesCode {
			continue
		}
		code, coder = append(code, short(c.OID)), c
		if len(words) == 0 {
			continue
		}
		fx, err := analyse(ctx, b.s, g, c, words)
		if err != nil {
			var de *dropError
			if errors.As(err, &de) {
				continue
			}
			return rs, nil, err
		}
		if sel, err := narrow(r, fx, narrowOpts{maxFuncs: b.opts.MaxFuncs}); err == nil {
			hits = append(hits, fmt.Sprintf("%s (%s)", short(c.OID), strings.Join(sel.Matched, ", ")))
			hit = c
		}
	}
	switch {
	case len(hits) == 1:
		return take(hit, rangeCrashState)
	case len(hits) > 1:
		return rs, nil, &dropError{reason: ReasonFixRange, detail: fmt.Sprintf("%d of the %d commits of the fixed_range %s..%s change a function of the crash state: %s",
			len(hits), len(commits), short(from.OID), short(end.OID), strings.Join(hits, ", "))}
	case len(code) == 1:
		return take(coder, rangeOneCode)
	case len(code) == 0:
		return rs, nil, &dropError{reason: ReasonFixRange, detail: fmt.Sprintf("no commit of the fixed_range %s..%s (%d commits) changes source code",
			short(from.OID), short(end.OID), len(commits))}
	case len(frames) == 0:
		return rs, nil, &dropError{reason: ReasonFixRange, detail: fmt.Sprintf("%d of the %d commits of the fixed_range %s..%s change source code (%s) and the record names no function to choose by",
			len(code), len(commits), short(from.OID), short(end.OID), strings.Join(firstN(code, 8), ", "))}
	}
	return rs, nil, &dropError{reason: ReasonNoCrashMatch, detail: fmt.Sprintf("no commit of the fixed_range %s..%s (%d commits, %d changing source code) changes a function of the crash state %s",
		short(from.OID), short(end.OID), len(commits), len(code), strings.Join(r.Frames, " < "))}
}

// touchesCode reports whether c changes a source file in a language the code graph reads (not
// only docs, tests, fuzzing harnesses or build files).
func touchesCode(ctx context.Context, g *jitvul.Git, c jitvul.Commit) (bool, error) {
	if len(c.Parents) == 0 {
		return false, nil
	}
	diff, err := g.Diff(ctx, c.Parents[0], c.OID)
	if err != nil {
		return false, err
	}
	for _, d := range diff {
		for _, p := range []string{d.NewPath, d.OldPath} {
			if codegraph.LangOf(p, false) != codegraph.NoLang && RoleOf(p) == Source {
				return true, nil
			}
		}
	}
	return false, nil
}

func firstN(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(list[:n:n], fmt.Sprintf("and %d more", len(list)-n))
}
