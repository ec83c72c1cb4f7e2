package jitctx

import (
	"context"
	"errors"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
)

// Source is the context one case is assessed with: Graph when Mode is Live, Pre when it is
// Precomputed.
type Source struct {
	Mode  Mode
	Graph query.Graph
	Pre   *Context
}

// Open picks the source of case c under mode m for subject name, and records which it is as a
// trace note ("context"). Auto is live when the case has a repository and precomputed only when
// it has none: a repository that cannot be found under --repos is an error, never a silent switch
// of source. The error of a case with neither names both.
func Open(ctx context.Context, m Mode, name string, c *suite.Case, env *subject.Env) (Source, error) {
	var src Source
	switch m {
	case Precomputed:
		pre, err := FromCase(c)
		if err != nil {
			return src, fmt.Errorf("subject %s --context precomputed: %w", name, err)
		}
		src = Source{Mode: Precomputed, Pre: pre}
	case Live, Auto, "":
		ix, err := env.Graph(ctx)
		switch {
		case err == nil:
			src = Source{Mode: Live, Graph: ix}
		case errors.Is(err, subject.ErrNoSnapshot) && m != Live:
			pre, perr := FromCase(c)
			if errors.Is(perr, ErrNoContext) {
				return src, fmt.Errorf("subject %s needs the case's repository or its precomputed context: case %s has no repo.url and repo.commit and no meta.context (%w)", name, c.ID, err)
			}
			if perr != nil {
				return src, fmt.Errorf("subject %s: %w", name, perr)
			}
			src = Source{Mode: Precomputed, Pre: pre}
		case errors.Is(err, subject.ErrNoSnapshot):
			return src, fmt.Errorf("subject %s --context live needs the case's repository: case %s has no repo.url and repo.commit (%w)", name, c.ID, err)
		default:
			return src, fmt.Errorf("subject %s: %w", name, err)
		}
	default:
		return src, fmt.Errorf("subject %s: unknown context mode %q", name, m)
	}
	note := "precomputed: the case's meta.context"
	if src.Mode == Live {
		note = "live: the code graph of the case's snapshot"
		if c.Repo != nil {
			note += " " + c.Repo.URL + "@" + c.Repo.Commit
		}
	}
	env.Trace.Record(trace.Event{Kind: trace.Note, Name: "context", Content: note})
	return src, nil
}
