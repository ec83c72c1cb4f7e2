// Package subject defines what is under test and lists every kind of subject vulnbench knows.
// Subjects are symmetrical: a baseline, a scanner, a predictions file or (later) a model all turn a
// case into a verdict.
package subject

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Subject judges cases. Assess returns an error only for infrastructure faults (the engine stores
// them as status error); an answer that cannot be understood is a verdict with status failed.
// Assess is called from several goroutines at once.
type Subject interface {
	Assess(ctx context.Context, c *suite.Case, repeat int) (verdict.Verdict, error)
}

// Describer is implemented by subjects that have configuration or versions worth recording in a
// run's manifest (tool versions, thresholds).
type Describer interface {
	Describe() map[string]any
}

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

// Options carries the run-wide settings subjects may use.
type Options struct {
	Seed     int64
	MinLevel int           // flawfinder: lowest risk level that makes a case vul
	Delay    time.Duration // predictions: wait before each answer (tests only)
	LLM      LLMOptions    // model subjects
}

// LLMOptions configure model subjects.
type LLMOptions struct {
	Model       string // PROVIDER:MODEL
	BaseURL     string
	Prompt      string // vanilla, cot, fs, cot+fs
	PricesFile  string
	Limits      llm.Limits
	Retry       llm.RetryPolicy
	CallTimeout time.Duration
	Temperature float64
	MaxTokens   int
	Cache       llm.CacheStore
	Getenv      func(string) string
}

// Priced is implemented by subjects that spend money; Priced reports whether their costs are
// known (a model missing from the price table is "unpriced", never $0).
type Priced interface {
	Priced() bool
}

// Factory makes one kind of subject.
type Factory struct {
	Name    string       // as written before the colon in a spec
	Usage   string       // the spec's shape, e.g. "constant:vul|ben"
	Summary string       // one line for --help
	Kinds   []suite.Kind // case kinds it can judge
	Needs   Needs
	ArgReq  bool // the spec needs ":ARG"
	New     func(arg string, opt Options) (Subject, error)
}

// Registry is the explicit list of subject kinds.
type Registry struct {
	factories []Factory
}

// NewRegistry lists the given factories.
func NewRegistry(fs ...Factory) *Registry { return &Registry{factories: fs} }

// Factories returns every factory in registration order.
func (r *Registry) Factories() []Factory { return r.factories }

// Lookup splits a spec such as "constant:vul" and finds its factory.
func (r *Registry) Lookup(spec string) (Factory, string, error) {
	name, arg, hasArg := strings.Cut(spec, ":")
	for _, f := range r.factories {
		if f.Name != name {
			continue
		}
		if f.ArgReq && (!hasArg || arg == "") {
			return Factory{}, "", fmt.Errorf("subject %q needs an argument: %s", spec, f.Usage)
		}
		if !f.ArgReq && hasArg {
			return Factory{}, "", fmt.Errorf("subject %q takes no argument: %s", spec, f.Usage)
		}
		return f, arg, nil
	}
	var names []string
	for _, f := range r.factories {
		names = append(names, f.Usage)
	}
	return Factory{}, "", fmt.Errorf("unknown subject %q; known subjects: %s", spec, strings.Join(names, ", "))
}

// CheckNeeds reports the first requirement of f that this machine does not meet, saying how to
// meet it.
func CheckNeeds(f Factory) error {
	for _, b := range f.Needs.Binaries {
		if _, err := exec.LookPath(b.Name); err != nil {
			return fmt.Errorf("subject %s needs the %s program, which is not on PATH; install it with: %s", f.Name, b.Name, b.Install)
		}
	}
	for _, e := range f.Needs.Env {
		if os.Getenv(e) == "" {
			return fmt.Errorf("subject %s needs the environment variable %s", f.Name, e)
		}
	}
	return nil
}

// Supports reports whether f can judge cases of kind k.
func (f Factory) Supports(k suite.Kind) bool { return slices.Contains(f.Kinds, k) }
