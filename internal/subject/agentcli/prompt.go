package agentcli

import (
	"context"
	"fmt"
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

// advisories are the case's OSV records (its CVE's and those that alias it) as files ID.json
// shown read-only at {advisories}; none when the case has none or no --advisories.
func (s *Subject) advisories(c *suite.Case) ([]sandbox.File, error) {
	if s.db == nil || c.Kind != suite.KindVEX || c.CVE == "" {
		return nil, nil
	}
	recs, err := s.db.Find(c.CVE)
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	var out []sandbox.File
	for _, a := range recs {
		b, err := protojson.MarshalOptions{Multiline: true}.Marshal(a.Record)
		if err != nil {
			return nil, fmt.Errorf("advisory %s: %w", a.ID, err)
		}
		out = append(out, sandbox.File{Dst: "{advisories}/" + safeName(a.ID) + ".json", Data: b, Mode: 0o444})
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
// cases; the system part first. The case's words are data (sandbox.Quote); {advisories} and
// {project} name the places as the CLI sees them, in any sandbox.
func (s *Subject) prompt(c *suite.Case, hasProject, hasAdvisories bool) (string, error) {
	var b strings.Builder
	switch c.Kind {
	case suite.KindVEX:
		if c.CVE == "" {
			return "", fmt.Errorf("subject %s: case %s has no cve", s.cfg.CLI, c.ID)
		}
		b.WriteString(sandbox.Quote(vex.SystemPrompt()))
		b.WriteString("\n\n")
		b.WriteString(sandbox.Quote(vex.UserPrompt(c)))
		if hasAdvisories {
			fmt.Fprintf(&b, "\n\nThere is no network. The OSV records of %s are in {advisories} (read-only), one JSON file each; the project is in {project}.",
				sandbox.Quote(c.CVE))
		}
		return b.String(), nil
	case suite.KindJIT:
		msgs, err := s.prompts.RenderAgent(s.Strategy(), c)
		if err != nil {
			return "", err
		}
		return sandbox.Quote(msgs[0].Content + "\n\n" + msgs[1].Content), nil
	}
	msgs, err := s.prompts.Render(s.Strategy(), c)
	if err != nil {
		return "", err
	}
	text := sandbox.Quote(msgs[0].Content + "\n\n" + msgs[1].Content)
	if hasProject {
		text += "\n\nThe function's repository is in the working directory, if you need more context."
	}
	return text, nil
}
