// Package subjecttest is the kit for testing a subject kind: RunUnit runs one unit of a kind on
// a case, with the flag values a run would give it and a scripted model, and returns its verdict
// and its trace; Fake is the one fake subject tests share.
//
// RunUnit builds the unit's Env as the runner does: the kind's config from its flags (defaults
// for those not given), the subject from the config, the subject's model metered for the unit
// and served by an llmtest fake that follows the script, the case's snapshot when it has a
// repository (found under Repos, as --repos finds it) and the snapshot's code graph; the unit
// goes through engine.Attempt, the runner's own per-unit path (timeout, panic, usage), and no
// store is involved.
package subjecttest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/codegraph/query"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/runner"
	"github.com/vulnbench/vulnbench/internal/snapshot"
	"github.com/vulnbench/vulnbench/internal/snapshot/snapgraph"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// DefaultModel is the --model a unit with a script gets when its values name none.
const DefaultModel = "openai:gpt-test"

// An Option changes how RunUnit runs the unit.
type Option func(*unit)

type unit struct {
	arg    string
	repos  string
	limits subject.Limits
	repeat int
}

// Arg is the spec's argument (constant:ARG, predictions:ARG).
func Arg(s string) Option { return func(u *unit) { u.arg = s } }

// Repos is where the case's repository is cloned, as --repos DIR names it.
func Repos(dir string) Option { return func(u *unit) { u.repos = dir } }

// Limits are the unit's limits, as --max-steps, --unit-max-tokens, --unit-max-cost and
// --timeout (Wall) set them.
func Limits(l subject.Limits) Option { return func(u *unit) { u.limits = l } }

// Repeat is the unit's repeat (0 unless given).
func Repeat(n int) Option { return func(u *unit) { u.repeat = n } }

// RunUnit runs kind k on case c with the given flag values (the others at their defaults) and
// returns the unit's verdict, as the runner would store it, and its trace. With script set, the
// model is an llmtest server (Anthropic's when --model names anthropic, else OpenAI's) that
// answers with it, and --base-url points at it; --model defaults to DefaultModel. A flag the
// kind does not read, a config the kind refuses or a subject it cannot build fails the test.
func RunUnit[C subject.Config, S subject.Subject](t testing.TB, k subject.Kind[C, S], vals map[string]string, c *suite.Case, script llmtest.Handler, opts ...Option) (verdict.Verdict, []trace.Event) {
	t.Helper()
	var o unit
	for _, opt := range opts {
		opt(&o)
	}
	f := k.Factory()
	given := map[string]string{}
	for name, v := range vals {
		given[name] = v
	}
	if script != nil {
		if given["model"] == "" && reads(f, "model") {
			given["model"] = DefaultModel
		}
		srv := serve(given["model"], script)
		t.Cleanup(srv.Close)
		if given["base-url"] == "" && reads(f, "base-url") {
			given["base-url"] = srv.BaseURL()
		}
	}
	cfg, err := f.Configure(o.arg, flagValues(t, f, given))
	if err != nil {
		t.Fatalf("subject %s: %v", f.Name, err)
	}
	subj, err := f.New(cfg, subject.Deps{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("subject %s: %v", f.Name, err)
	}
	t.Cleanup(func() { f.Close(subj) })
	at := engine.Attempts{Subject: subj, Timeout: o.limits.Wall, Refuse: f.Unsupported, Prepare: prepare(t, f, subj, c, o)}
	a, _, ok, err := at.Do(context.Background(), subject.Unit{Case: c, Repeat: o.repeat})
	if !ok {
		t.Fatalf("subject %s: the unit was abandoned: %v", f.Name, err)
	}
	return a.Verdict, a.Events
}

func reads(f subject.Factory, flag string) bool {
	for _, fl := range f.Flags {
		if fl.Name == flag {
			return true
		}
	}
	return false
}

func serve(model string, script llmtest.Handler) *llmtest.Server {
	if strings.HasPrefix(model, llmtest.Anthropic+":") {
		return llmtest.NewAnthropic(script)
	}
	return llmtest.NewOpenAI(script)
}

// prepare builds the unit's Env as a run does (runner.Envs): the metered model of a kind that
// declares one, and the case's snapshot and its graph for a kind that declares it reads them.
func prepare(t testing.TB, f subject.Factory, subj subject.Subject, c *suite.Case, o unit) engine.Prepare {
	modeled, _ := f.Modeled(subj)
	graphs := snapgraph.New(codegraph.Options{CacheDir: t.TempDir()}, 1)
	envs := &runner.Envs{Modeled: modeled, Limits: o.limits, Wall: o.limits.Wall}
	if !f.ReadsRepository() {
		return envs.Prepare
	}
	envs.Snapshot = func(c *suite.Case) func(context.Context) (*snapshot.Snapshot, error) {
		return snapshotOf(t, c, o.repos)
	}
	envs.Graph = func(ctx context.Context, s *snapshot.Snapshot) (query.Graph, error) {
		ix, err := graphs.Get(ctx, s)
		if err != nil {
			return nil, err
		}
		return ix, nil
	}
	return envs.Prepare
}

// snapshotOf opens c's repository at its commit from under repos, in a snapshot cache of the
// test's own; nil when c has none.
func snapshotOf(t testing.TB, c *suite.Case, repos string) func(context.Context) (*snapshot.Snapshot, error) {
	if c.Repo == nil || c.Repo.URL == "" {
		return nil
	}
	if repos == "" {
		t.Fatalf("case %s has a repository (%s): say where it is cloned with subjecttest.Repos", c.ID, c.Repo.URL)
	}
	cacheDir := t.TempDir()
	return func(ctx context.Context) (*snapshot.Snapshot, error) {
		if c.Repo.Commit == "" {
			return nil, fmt.Errorf("case %s: its repository %s names no commit", c.ID, c.Repo.URL)
		}
		dir, err := snapshot.Locate(repos, c.Repo.URL)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		cache, err := snapshot.NewCache(cacheDir, snapshot.Options{})
		if err != nil {
			return nil, err
		}
		s, err := cache.Get(ctx, dir, c.Repo.Commit)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		return s, nil
	}
}

// Case reads one case from its JSON line, as a suite file holds it, and checks it as a run's
// suite checks are made; a case a run would refuse fails the test.
func Case(t testing.TB, line string) *suite.Case {
	t.Helper()
	c, err := suite.DecodeCase([]byte(line))
	if err != nil {
		t.Fatalf("case %s: %v", line, err)
	}
	if err := c.Check(); err != nil {
		t.Fatalf("case %s: %v", line, err)
	}
	return c
}
