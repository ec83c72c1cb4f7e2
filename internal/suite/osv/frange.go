package osv

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// RangeSearch is how the fix was found in an OSS-Fuzz fixed_range: the range (From excluded,
// To included), its first-parent commits, and the one of them taken.
type RangeSearch struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Commits int    `json:"commits"`
	Fix     string `json:"fix"`
}

// searchRange finds the fix of a record whose fixed commit ends a fixed_range: the range's
// only commit, else the one commit of it that changes a function of the crash state.
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
	if len(commits) == 0 {
		return nil, nil, &dropError{reason: ReasonFixRange, detail: fmt.Sprintf("the fixed_range %s..%s holds no first-parent commit", short(from.OID), short(end.OID))}
	}
	if len(commits) == 1 {
		rs.Fix = end.OID
		fx, err := analyse(ctx, b.s, g, end, nil)
		return rs, fx, err
	}
	frames := parseFrames(r.Frames)
	if len(frames) == 0 {
		return rs, nil, &dropError{reason: ReasonFixRange, detail: fmt.Sprintf("the fix is one of %d commits %s..%s and the record names no function to find it by",
			len(commits), short(from.OID), short(end.OID))}
	}
	words := make([]string, 0, len(frames))
	for _, f := range frames {
		words = append(words, f.segs[len(f.segs)-1])
	}
	var hits []string
	var hit jitvul.Commit
	for _, oid := range commits {
		c, err := g.Commit(oid)
		if err != nil {
			return rs, nil, err
		}
		if len(c.Parents) == 0 {
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
		if sel, err := narrow(r, fx, b.opts.MaxFuncs, false); err == nil {
			hits = append(hits, fmt.Sprintf("%s (%s)", short(c.OID), strings.Join(sel.Matched, ", ")))
			hit = c
		}
	}
	switch len(hits) {
	case 0:
		return rs, nil, &dropError{reason: ReasonNoCrashMatch, detail: fmt.Sprintf("no commit of the fixed_range %s..%s (%d commits) changes a function of the crash state %s",
			short(from.OID), short(end.OID), len(commits), strings.Join(r.Frames, " < "))}
	case 1:
		rs.Fix = hit.OID
		fx, err := analyse(ctx, b.s, g, hit, nil)
		return rs, fx, err
	}
	return rs, nil, &dropError{reason: ReasonFixRange, detail: fmt.Sprintf("%d of the %d commits of the fixed_range %s..%s change a function of the crash state: %s",
		len(hits), len(commits), short(from.OID), short(end.OID), strings.Join(hits, ", "))}
}
