package subject

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// What a kind needs per case and what its subject can do is declared on the kind (Kind's
// Repository, Advisories, Model, Steps, Settings, Scrub and Can), as osv-scalibr's plugins
// declare their Requirements: the runner, preflight, estimate and the batch wiring read the
// declaration through Factory's methods below, never a type assertion of their own. A kind's
// subject that implements one of the interfaces of this file without declaring it, or declares
// one it lacks, is refused (Factory.Declared, and Factory.New for the subject built); a kind that
// does not declare the repository gets no snapshot in its Env.

// Describer is a subject that says what the run's manifest records beyond its config (tool
// versions, prompt hashes, the matcher's version).
type Describer interface {
	Describe() map[string]any
}

// Modeled is a subject that calls a model: the runner meters Model for each unit and hands the
// metered model to Assess as Env.Model. Prices turn usage into cost.
type Modeled interface {
	Model() llm.Model
	Prices() llm.Prices
}

// Requester is a subject whose one request per unit is built without calling its model (the
// plain LLM subject): estimates count it exactly as it is sent, batches send it.
type Requester interface {
	Request(u Unit) (llm.Request, error)
}

// Batcher is a subject whose calls a run's provider batch answers (run --batch): UseBatch makes
// m its model, at batch prices.
type Batcher interface {
	Requester
	Modeled
	UseBatch(m llm.Model)
}

// Can is what a kind's subject can do beyond Assess, each an interface of this file (a subject
// that calls a model declares it with Kind.Model).
type Can struct {
	Describe bool // Describer
	Requests bool // Requester: estimates count its requests
	Batch    bool // Batcher: run --batch
	Close    bool // io.Closer: it holds something the run releases at its end
}

// ModelNeed is the model a kind calls, as preflight checks it: PROVIDER:MODEL, where it is
// served ("": the provider's API, or its _BASE_URL variable) and the --prices file ("": the
// built-in table).
type ModelNeed struct {
	Spec, BaseURL, PricesFile string
}

// CanOf is what s implements of the interfaces of this file; model says it is Modeled.
func CanOf(s Subject) (can Can, model bool) {
	_, can.Describe = s.(Describer)
	_, can.Requests = s.(Requester)
	_, can.Batch = s.(Batcher)
	_, can.Close = s.(io.Closer)
	_, model = s.(Modeled)
	return can, model
}

// Declared checks what the kind declares against what its subject type implements: nil when
// they agree, or when the subject's type is an interface (a test's fake), checked when built.
func (f Factory) Declared() error {
	if f.subjectType == nil || f.subjectType.Kind() == reflect.Interface {
		return nil
	}
	zero, ok := reflect.Zero(f.subjectType).Interface().(Subject)
	if !ok {
		return fmt.Errorf("subject %s: %s is not a Subject", f.Name, f.subjectType)
	}
	return f.agrees(zero)
}

// agrees says how s differs from what f declares.
func (f Factory) agrees(s Subject) error {
	can, model := CanOf(s)
	var diff []string
	check := func(name string, declared, has bool) {
		switch {
		case has && !declared:
			diff = append(diff, "implements "+name+" without declaring it")
		case declared && !has:
			diff = append(diff, "declares "+name+" and does not implement it")
		}
	}
	check("Describe", f.Can.Describe, can.Describe)
	check("Request (estimates)", f.Can.Requests, can.Requests)
	check("UseBatch (run --batch)", f.Can.Batch, can.Batch)
	check("Close", f.Can.Close, can.Close)
	check("Model (a model it calls)", f.Model != nil, model)
	if len(diff) > 0 {
		return fmt.Errorf("subject %s: its subject %T %s", f.Name, s, strings.Join(diff, "; "))
	}
	return nil
}

// NeedsRepository says whether judging c with cfg needs the case's repository at its commit.
func (f Factory) NeedsRepository(cfg Config, c *suite.Case) bool {
	return f.Repository != nil && f.Repository(cfg, c)
}

// ReadsRepository says whether the kind reads cases' repositories at all: the runner gives the
// others no snapshot.
func (f Factory) ReadsRepository() bool { return f.Repository != nil }

// NeedsAdvisories names the advisory ids judging c with cfg needs and where they are read from
// (--advisories; "" when none was given); no ids: none.
func (f Factory) NeedsAdvisories(cfg Config, c *suite.Case) (ids []string, dir string) {
	if f.Advisories == nil {
		return nil, ""
	}
	return f.Advisories(cfg, c)
}

// ModelOf is the model cfg calls; false for a kind that calls none.
func (f Factory) ModelOf(cfg Config) (ModelNeed, bool) {
	if f.Model == nil {
		return ModelNeed{}, false
	}
	return f.Model(cfg), true
}

// StepsOf is the most model calls a unit of cfg makes under the limits l (an agent's step cap);
// 1 for a kind that declares no steps.
func (f Factory) StepsOf(cfg Config, l Limits) int {
	if f.Steps == nil {
		return 1
	}
	return f.Steps(cfg, l)
}

// SettingsOf are the settings the run's manifest records of cfg for readers outside the kind.
func (f Factory) SettingsOf(cfg Config) manifest.Settings {
	if f.Settings == nil {
		return manifest.Settings{}
	}
	return f.Settings(cfg)
}

// Recorded is cfg as the manifest records it: its secrets scrubbed (a base URL's user info).
func (f Factory) Recorded(cfg Config) Config {
	if f.Scrub == nil {
		return cfg
	}
	return f.Scrub(cfg)
}

// Modeled is s as a model subject, when the kind declares a model.
func (f Factory) Modeled(s Subject) (Modeled, bool) {
	if f.Model == nil {
		return nil, false
	}
	m, ok := s.(Modeled)
	return m, ok
}

// Describe is what s says of itself for the manifest, when the kind declares it.
func (f Factory) Describe(s Subject) map[string]any {
	if d, ok := s.(Describer); ok && f.Can.Describe {
		return d.Describe()
	}
	return nil
}

// Requester is s building its requests without calling its model, when the kind declares it.
func (f Factory) Requester(s Subject) (Requester, bool) {
	if !f.Can.Requests {
		return nil, false
	}
	r, ok := s.(Requester)
	return r, ok
}

// Batcher is s answered from a provider's batch, when the kind declares it.
func (f Factory) Batcher(s Subject) (Batcher, bool) {
	if !f.Can.Batch {
		return nil, false
	}
	b, ok := s.(Batcher)
	return b, ok
}

// Close releases what s holds, when the kind declares it holds something.
func (f Factory) Close(s Subject) error {
	if c, ok := s.(io.Closer); ok && f.Can.Close {
		return c.Close()
	}
	return nil
}
