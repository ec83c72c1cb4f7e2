package subject

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"time"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Binary is a program a subject runs, and how to get it.
type Binary struct {
	Name    string
	Install string
}

// Needs says what a subject requires from the machine.
type Needs struct {
	Binaries []Binary
	Env      []string // environment variables that must be set (API keys)
	Network  bool
}

// Flag is a run flag a subject kind reads. Kinds that read the same flag share it; its Default
// fixes its type (string, int, int64, float64, bool or time.Duration).
type Flag struct {
	Name    string
	Default any
	Usage   string
	Hidden  bool
	// Resumable flags may change on --resume (rate limits, retries); the others keep the value
	// the run started with.
	Resumable bool
	// Scrub removes secrets from the value before it is stored in the manifest (a URL's user info).
	Scrub func(string) string
}

// Values reads flag values by name.
type Values interface {
	String(name string) string
	Int(name string) int
	Int64(name string) int64
	Float(name string) float64
	Bool(name string) bool
	Duration(name string) time.Duration
}

// Deps are the process's resources a subject may be built with.
type Deps struct {
	Cache  llm.CacheStore      // model responses (nil: no cache)
	Getenv func(string) string // the environment, for API keys
	// Sandbox runs every external process on case code (scanners, agent CLIs): the run's
	// --sandbox. nil: OpenSandbox makes a bubblewrap one.
	Sandbox *sandbox.Sandbox
	// Reading is how this invocation reads input files (the suite, SARIF and predictions
	// files): --lossy-utf8, and the notes of what the readers accepted. nil: strictly.
	Reading *lineerr.Reading
}

// OpenSandbox is d's sandbox, or a new bubblewrap one when d has none; an error matching
// sandbox.ErrUnavailable names what is missing (--sandbox none runs without one).
func (d Deps) OpenSandbox() (*sandbox.Sandbox, error) {
	if d.Sandbox != nil {
		return d.Sandbox, nil
	}
	sb, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		return nil, fmt.Errorf("%w; or run with --sandbox none (the whole host in view of the process)", err)
	}
	return sb, nil
}

// Factory makes one kind of subject, its config and subject type-erased: what the registry
// lists and the runner builds subjects with. A kind is written as a Kind[C, S], whose Factory
// method makes it.
type Factory struct {
	Name    string // as written before the colon in a spec
	Usage   string // the spec's shape, e.g. "constant:vul|ben"
	Summary string // one line for --help
	Version string // bumped whenever the kind's verdicts may change for the same input
	Kinds   []suite.Kind
	// Languages the kind can judge (lower case, as cases name them); nil means any. A case with no
	// language is judged when its kind is supported.
	Languages []string
	Needs     Needs
	ArgReq    bool // the spec needs ":ARG"
	Flags     []Flag
	// Configure turns the spec's argument and the flags into the kind's config, with defaults
	// applied and validated.
	Configure func(arg string, v Values) (Config, error)
	New       func(cfg Config, d Deps) (Subject, error)

	// The declaration (caps.go), as Kind's; nil: not needed, not done.
	Repository func(cfg Config, c *suite.Case) bool
	Advisories func(cfg Config, c *suite.Case) (ids []string, dir string)
	Model      func(cfg Config) ModelNeed
	Steps      func(cfg Config, l Limits) int
	Settings   func(cfg Config) manifest.Settings
	Scrub      func(cfg Config) Config
	Can        Can

	subjectType reflect.Type // S of the Kind, for Declared
}

// Kind is one kind of subject with its typed configuration C and subject S: the fields of a
// Factory, with Configure, New and the declaration over C. Factory erases C and S for the
// registry and the runner; the one assertion back to C is there, so no kind asserts its config
// from an interface.
type Kind[C Config, S Subject] struct {
	Name      string // as written before the colon in a spec
	Usage     string // the spec's shape, e.g. "constant:vul|ben"
	Summary   string // one line for --help
	Version   string // bumped whenever the kind's verdicts may change for the same input
	Kinds     []suite.Kind
	Languages []string // as in Factory: lower case; nil means any
	Needs     Needs
	ArgReq    bool // the spec needs ":ARG"
	Flags     []Flag
	// Configure turns the spec's argument and the flags into the config, defaults applied; the
	// Factory validates it.
	Configure func(arg string, v Values) (C, error)
	New       func(cfg C, d Deps) (S, error)

	// What the kind needs per case, what it records and what S can do (caps.go). Each nil (or
	// false) says the kind does not need or do it.

	// Repository says whether judging c needs the case's repository at its commit (--repos); a
	// kind without it gets no snapshot (Env.Snapshot: ErrNoSnapshot).
	Repository func(cfg C, c *suite.Case) bool
	// Advisories names the advisory ids judging c needs and the directory or zip they are read
	// from (--advisories; "" when none was given, which preflight asks for).
	Advisories func(cfg C, c *suite.Case) (ids []string, dir string)
	// Model is the model the kind calls; S must be Modeled exactly when it is set.
	Model func(cfg C) ModelNeed
	// Steps is the most model calls a unit makes under the run's limits (an agent's step cap).
	Steps func(cfg C, l Limits) int
	// Settings are what the run's manifest records of cfg for readers outside the kind (the
	// board's model, prompt, harness and effort; the runner's rate and batch).
	Settings func(cfg C) manifest.Settings
	// Scrub is cfg as the manifest records it, without secrets; nil: cfg.
	Scrub func(cfg C) C
	// Can is what S can do beyond Assess.
	Can Can
}

// Factory returns k type-erased. Its Configure validates the config Configure made; its New
// refuses a config of another type than C, and a subject that implements a capability k does
// not declare (or lacks one it declares).
func (k Kind[C, S]) Factory() Factory {
	f := Factory{Name: k.Name, Usage: k.Usage, Summary: k.Summary, Version: k.Version, Kinds: k.Kinds,
		Languages: k.Languages, Needs: k.Needs, ArgReq: k.ArgReq, Flags: k.Flags, Can: k.Can,
		subjectType: reflect.TypeFor[S](),
		Configure: func(arg string, v Values) (Config, error) {
			c, err := k.Configure(arg, v)
			if err != nil {
				return nil, err
			}
			if err := c.Validate(); err != nil {
				return nil, err
			}
			return c, nil
		},
	}
	typed := func(cfg Config) C { c, _ := cfg.(C); return c }
	if k.Repository != nil {
		f.Repository = func(cfg Config, c *suite.Case) bool { return k.Repository(typed(cfg), c) }
	}
	if k.Advisories != nil {
		f.Advisories = func(cfg Config, c *suite.Case) ([]string, string) { return k.Advisories(typed(cfg), c) }
	}
	if k.Model != nil {
		f.Model = func(cfg Config) ModelNeed { return k.Model(typed(cfg)) }
	}
	if k.Steps != nil {
		f.Steps = func(cfg Config, l Limits) int { return k.Steps(typed(cfg), l) }
	}
	if k.Settings != nil {
		f.Settings = func(cfg Config) manifest.Settings { return k.Settings(typed(cfg)) }
	}
	if k.Scrub != nil {
		f.Scrub = func(cfg Config) Config { return k.Scrub(typed(cfg)) }
	}
	f.New = func(cfg Config, d Deps) (Subject, error) {
		c, ok := cfg.(C)
		if !ok {
			return nil, fmt.Errorf("subject %s: a config of type %T, want %T", k.Name, cfg, *new(C))
		}
		s, err := k.New(c, d)
		if err != nil {
			return nil, err
		}
		if err := f.agrees(s); err != nil {
			if cl, ok := any(s).(io.Closer); ok {
				cl.Close()
			}
			return nil, err
		}
		return s, nil
	}
	return f
}
