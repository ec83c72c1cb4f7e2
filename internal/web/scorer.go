package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"os/exec"
	"path/filepath"
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

// Body implements Scorer.
func (p InProcess) Body(ctx context.Context, runID string) (template.HTML, error) {
	rep, err := report.Build(ctx, p.Store, report.Request{Runs: []string{runID}, CI: &score.CIOptions{Resamples: p.Resamples, Seed: 1}})
	if err != nil {
		return "", err
	}
	var ex html.Extra
	if cs, ok := p.Store.(html.CostStore); ok {
		if ex, err = html.Costs(ctx, cs, rep); err != nil {
			return "", err
		}
	}
	return html.Body(rep, ex)
}

// Compare implements Scorer.
func (p InProcess) Compare(ctx context.Context, a, b string) (*report.Comparison, error) {
	rep, err := report.Build(ctx, p.Store, report.Request{Runs: []string{a, b}})
	if err != nil {
		return nil, err
	}
	return rep.Compare(0, 1, score.CIOptions{Resamples: p.Resamples, Seed: 1})
}

// Child scores in a child process, the vulnbench binary at Exe (vulnbench report --fragment,
// vulnbench compare --format json) on the store at DB: what scoring holds is freed when the
// child exits, so the viewer's own memory stays that of its pages and case indexes.
type Child struct {
	Exe, DB   string
	Resamples int
	// MemoryLimit, in MiB, is the child's soft memory limit (its GOMEMLIMIT) unless the
	// viewer's environment sets GOMEMLIMIT; 0: none. The collector then runs before the heap
	// doubles: scoring a 1M-verdict run holds about 90 MiB live, and vulnbench score peaks at
	// 214 MiB of RSS without a limit.
	MemoryLimit int
}

func (c Child) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.Exe, args...) // #nosec G204 -- our own binary, arguments are run ids as values
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set && c.MemoryLimit > 0 {
		cmd.Env = append(os.Environ(), fmt.Sprintf("GOMEMLIMIT=%dMiB", c.MemoryLimit))
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if strings.Contains(msg, "not found") {
			return nil, fmt.Errorf("%s: %w", msg, store.ErrNotFound)
		}
		return nil, fmt.Errorf("vulnbench %s: %v: %s", args[0], err, msg)
	}
	return out.Bytes(), nil
}

// Body implements Scorer.
func (c Child) Body(ctx context.Context, runID string) (template.HTML, error) {
	dir, err := os.MkdirTemp("", "vulnbench-serve-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if _, err := c.run(ctx, "report", "--db", c.DB, "--run", runID, "--fragment", "--html", dir, "--resamples", strconv.Itoa(c.Resamples)); err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, "body.html"))
	if err != nil {
		return "", err
	}
	return template.HTML(b), nil // #nosec G203 -- written by html.Body in the child
}

// Compare implements Scorer.
func (c Child) Compare(ctx context.Context, a, b string) (*report.Comparison, error) {
	out, err := c.run(ctx, "compare", "--db", c.DB, "--run", a, "--run", b, "--format", "json", "--resamples", strconv.Itoa(c.Resamples))
	if err != nil {
		return nil, err
	}
	var cmp report.Comparison
	if err := json.Unmarshal(out, &cmp); err != nil {
		return nil, fmt.Errorf("read vulnbench compare's answer: %w", err)
	}
	return &cmp, nil
}
