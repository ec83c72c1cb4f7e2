package agentcli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/vulnbench/vulnbench/internal/prompt/vex"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// project is the host directory the CLI sees as its project: the case's snapshot; none for a
// function case without a repository (its code is in the prompt).
func (s *Subject) project(ctx context.Context, c *suite.Case, env *subject.Env) (string, error) {
	snap, err := env.Snapshot(ctx)
	switch {
	case err == nil:
		return snap.Root(), nil
	case c.Kind == suite.KindFunction && c.Code != "":
		return "", nil
	}
	return "", subject.NeedsRepo(s.cfg.CLI, c, err)
}

// advisories writes the case's OSV records (its CVE's and those that alias it) as ID.json under
// dir/advisories, shown read-only at {advisories}; "" when the case has none or no --advisories.
func (s *Subject) advisories(c *suite.Case, dir string) (string, error) {
	if s.db == nil || c.Kind != suite.KindVEX || c.CVE == "" {
		return "", nil
	}
	recs, err := s.db.Find(c.CVE)
	if err != nil || len(recs) == 0 {
		return "", err
	}
	out := filepath.Join(dir, "advisories")
	if err := os.Mkdir(out, 0o755); err != nil {
		return "", err
	}
	for _, a := range recs {
		b, err := protojson.MarshalOptions{Multiline: true}.Marshal(a.Record)
		if err != nil {
			return "", fmt.Errorf("advisory %s: %w", a.ID, err)
		}
		if err := os.WriteFile(filepath.Join(out, safeName(a.ID)+".json"), b, 0o644); err != nil {
			return "", err
		}
	}
	return out, nil
}

// safeName keeps an advisory id a file name.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, id)
}

// prompt is the one message the CLI gets: vex-agent's task and question on vex cases (with the
// advisories' place), the JitVul agent prompt on jit cases, the function prompt on function
// cases; the system part first.
func (s *Subject) prompt(c *suite.Case, hasProject bool, adv string) (string, error) {
	var b strings.Builder
	switch c.Kind {
	case suite.KindVEX:
		if c.CVE == "" {
			return "", fmt.Errorf("subject %s: case %s has no cve", s.cfg.CLI, c.ID)
		}
		b.WriteString(vex.SystemPrompt())
		b.WriteString("\n\n")
		b.WriteString(vex.UserPrompt(c))
		if adv != "" {
			fmt.Fprintf(&b, "\n\nThere is no network. The OSV records of %s are in %s (read-only), one JSON file each; the project is in %s.",
				c.CVE, s.where(sandbox.AdvisoriesDir, adv), s.where(sandbox.ProjectDir, "the working directory"))
		}
		return b.String(), nil
	case suite.KindJIT:
		msgs, err := s.prompts.RenderAgent(s.Strategy(), c)
		if err != nil {
			return "", err
		}
		return msgs[0].Content + "\n\n" + msgs[1].Content, nil
	}
	msgs, err := s.prompts.Render(s.Strategy(), c)
	if err != nil {
		return "", err
	}
	text := msgs[0].Content + "\n\n" + msgs[1].Content
	if hasProject {
		text += "\n\nThe function's repository is in the working directory, if you need more context."
	}
	return text, nil
}

// where is a path as the CLI sees it: the sandbox's fixed one, or the host's under --sandbox none.
func (s *Subject) where(inside, host string) string {
	if s.sb.Mode() == sandbox.ModeNone {
		return host
	}
	return inside
}
