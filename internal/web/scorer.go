package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/output/html"
	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/store"
)

// Scorer computes what needs every verdict of a run: a run page's report, a comparison. The
// viewer keeps what it returns.
type Scorer interface {
	// Body is the HTML report's content of one run.
	Body(ctx context.Context, runID string) (template.HTML, error)
	// Compare compares two runs (McNemar, paired deltas, Youden).
	Compare(ctx context.Context, a, b string) (*report.Comparison, error)
}

// InProcess scores in the viewer's own process: simple, but a run of a million verdicts holds
// about 90 MiB more while it is scored.
type InProcess struct {
	Store     report.Store
	Resamples int
}

// Body implements Scorer: the run's report, built with what plots draw, presented as an HTML
// fragment in this process.
func (p InProcess) Body(ctx context.Context, runID string) (template.HTML, error) {
	rep, err := report.Build(ctx, p.Store, report.Request{Runs: []string{runID}, CI: &score.CIOptions{Resamples: p.Resamples, Seed: 1}, Plots: true})
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := (html.Fragment{}).Present(&b, rep); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil // #nosec G203 -- produced by html/template
}

// Compare implements Scorer.
func (p InProcess) Compare(ctx context.Context, a, b string) (*report.Comparison, error) {
	rep, err := report.Build(ctx, p.Store, report.Request{Runs: []string{a, b}})
	if err != nil {
		return nil, err
	}
	return rep.Compare(0, 1, score.CIOptions{Resamples: p.Resamples, Seed: 1})
}

// Child scores in a child process, the vulnbench binary at Exe (vulnbench serve score) on the
// store at DB: what scoring holds is freed when the child exits, so the viewer's own memory
// stays that of its pages and case indexes. The child scores as InProcess does and answers one
// ChildAnswer in JSON.
type Child struct {
	Exe, DB   string
	Resamples int
	// MemoryLimit, in MiB, is the child's soft memory limit (its GOMEMLIMIT) unless the
	// viewer's environment sets GOMEMLIMIT; 0: none. The collector then runs before the heap
	// doubles: scoring a 1M-verdict run holds about 90 MiB live, and vulnbench score peaks at
	// 214 MiB of RSS without a limit.
	MemoryLimit int
}

// ChildAnswer is what a scoring child writes on its standard output, as one JSON object: the
// run page's body, or the comparison, or the error that stopped it.
type ChildAnswer struct {
	Body       string             `json:"body,omitempty"`
	Comparison *report.Comparison `json:"comparison,omitempty"`
	Error      *ChildError        `json:"error,omitempty"`
}

// ChildError is a child's error, typed: NotFound when a run is not in the store.
type ChildError struct {
	NotFound bool   `json:"not_found,omitempty"`
	Message  string `json:"message"`
}

// Answer does in this process what a scoring child is asked: the body of one run, or the
// comparison of two.
func Answer(ctx context.Context, s Scorer, runs []string) ChildAnswer {
	var a ChildAnswer
	var err error
	switch len(runs) {
	case 1:
		var body template.HTML
		body, err = s.Body(ctx, runs[0])
		a.Body = string(body)
	case 2:
		a.Comparison, err = s.Compare(ctx, runs[0], runs[1])
	default:
		err = fmt.Errorf("a scoring child takes one run (its page) or two (their comparison), not %d", len(runs))
	}
	if err != nil {
		a = ChildAnswer{Error: &ChildError{NotFound: errors.Is(err, store.ErrNotFound), Message: err.Error()}}
	}
	return a
}

func (c Child) ask(ctx context.Context, runs ...string) (*ChildAnswer, error) {
	args := []string{"serve", "score", "--db", c.DB, "--resamples", strconv.Itoa(c.Resamples)}
	for _, r := range runs {
		args = append(args, "--run", r)
	}
	cmd := exec.CommandContext(ctx, c.Exe, args...) // #nosec G204 -- our own binary, arguments are run ids as values
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set && c.MemoryLimit > 0 {
		cmd.Env = append(os.Environ(), fmt.Sprintf("GOMEMLIMIT=%dMiB", c.MemoryLimit))
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("vulnbench serve score: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	var a ChildAnswer
	if err := json.Unmarshal(out.Bytes(), &a); err != nil {
		return nil, fmt.Errorf("read vulnbench serve score's answer: %w", err)
	}
	if e := a.Error; e != nil {
		if e.NotFound {
			return nil, fmt.Errorf("%s: %w", e.Message, store.ErrNotFound)
		}
		return nil, errors.New(e.Message)
	}
	return &a, nil
}

// Body implements Scorer.
func (c Child) Body(ctx context.Context, runID string) (template.HTML, error) {
	a, err := c.ask(ctx, runID)
	if err != nil {
		return "", err
	}
	return template.HTML(a.Body), nil // #nosec G203 -- written by html.Fragment in the child
}

// Compare implements Scorer.
func (c Child) Compare(ctx context.Context, a, b string) (*report.Comparison, error) {
	ans, err := c.ask(ctx, a, b)
	if err != nil {
		return nil, err
	}
	if ans.Comparison == nil {
		return nil, errors.New("vulnbench serve score answered no comparison")
	}
	return ans.Comparison, nil
}
