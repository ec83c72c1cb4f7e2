package llm

import (
	"context"
	"fmt"
	"strings"
)

// Effort is how hard a reasoning model thinks before it answers: one scale for every provider
// and agent CLI (--effort), each mapping it to its own setting. "" leaves the provider's default.
type Effort string

// The effort levels, lowest first.
const (
	EffortMinimal Effort = "minimal"
	EffortLow     Effort = "low"
	EffortMedium  Effort = "medium"
	EffortHigh    Effort = "high"
	EffortXHigh   Effort = "xhigh"
)

// Efforts are the levels, lowest first.
var Efforts = []Effort{EffortMinimal, EffortLow, EffortMedium, EffortHigh, EffortXHigh}

// ParseEffort reads --effort: one of the levels, or "" for the provider's default.
func ParseEffort(s string) (Effort, error) {
	if s == "" {
		return "", nil
	}
	for _, e := range Efforts {
		if string(e) == s {
			return e, nil
		}
	}
	names := make([]string, len(Efforts))
	for i, e := range Efforts {
		names[i] = string(e)
	}
	return "", fmt.Errorf("--effort %q is not one of %s (or leave it out for the provider's default)", s, strings.Join(names, ", "))
}

// ThinkingBudget is the thinking tokens a level stands for where a provider takes a budget
// rather than a level (Anthropic's thinking.budget_tokens, Gemini's thinkingBudget): minimal
// 1,024 (Anthropic's least), then 4,096, 8,192, 16,384 and 32,768.
func (e Effort) ThinkingBudget() int {
	switch e {
	case EffortMinimal:
		return 1024
	case EffortLow:
		return 4096
	case EffortMedium:
		return 8192
	case EffortHigh:
		return 16384
	case EffortXHigh:
		return 32768
	}
	return 0
}

// WithEffort gives every typed request of next that names no effort the level e, above the
// cache (so that the level is in its key). Raw requests (an agent CLI's, through the gateway)
// pass as they are: the CLI says its effort in its own setting.
func WithEffort(next Model, e Effort) Model {
	if e == "" {
		return next
	}
	return &effortModel{next: next, effort: e}
}

type effortModel struct {
	next   Model
	effort Effort
}

func (m *effortModel) Info() Info { return m.next.Info() }

func (m *effortModel) Complete(ctx context.Context, req Request) (Response, error) {
	if req.Effort == "" {
		req.Effort = m.effort
	}
	return m.next.Complete(ctx, req)
}

// CompleteRaw implements RawModel: the body as it is.
func (m *effortModel) CompleteRaw(ctx context.Context, req RawRequest) (RawResponse, error) {
	raw, err := nextRaw(m.next)
	if err != nil {
		return RawResponse{}, err
	}
	return raw.CompleteRaw(ctx, req)
}
