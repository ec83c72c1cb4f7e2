package subjecttest

import (
	"context"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Fake is the fake subject tests share: Answer decides each unit's verdict (nil: ok, ben), so a
// test says in one function what its subject does (read the snapshot, call the model, wait for
// its context, fail, panic).
type Fake struct {
	Answer func(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error)
}

// Assess implements subject.Subject.
func (f Fake) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	if f.Answer == nil {
		return verdict.Verdict{Status: verdict.OK, Label: suite.Ben}, nil
	}
	return f.Answer(ctx, u, env)
}

// WithModel is f calling model, priced by prices: a subject.Modeled, so the runner (and RunUnit)
// hands f the model metered as env.Model.
func (f Fake) WithModel(model llm.Model, prices llm.Prices) subject.Subject {
	return modeledFake{Fake: f, model: model, prices: prices}
}

type modeledFake struct {
	Fake
	model  llm.Model
	prices llm.Prices
}

func (m modeledFake) Model() llm.Model   { return m.model }
func (m modeledFake) Prices() llm.Prices { return m.prices }

// NoConfig is the config of a kind that has none.
type NoConfig struct{}

// Validate implements subject.Config.
func (NoConfig) Validate() error { return nil }

// FakeKind is a kind named name, version 1, that judges every case kind with s. It declares
// what s implements (subject.CanOf), its model when s is one (WithModel), and every case's
// repository.
func FakeKind(name string, s subject.Subject) subject.Kind[NoConfig, subject.Subject] {
	k := subject.Kind[NoConfig, subject.Subject]{Name: name, Usage: name, Summary: "a fake subject, for tests", Version: "1", Kinds: suite.Kinds,
		Configure:  func(string, subject.Values) (NoConfig, error) { return NoConfig{}, nil },
		New:        func(NoConfig, subject.Deps) (subject.Subject, error) { return s, nil },
		Repository: func(_ NoConfig, c *suite.Case) bool { return subject.CaseRepo(c) }}
	var model bool
	k.Can, model = subject.CanOf(s)
	if m, ok := s.(subject.Modeled); ok && model {
		spec := m.Model().Info().Spec()
		k.Model = func(NoConfig) subject.ModelNeed { return subject.ModelNeed{Spec: spec} }
	}
	return k
}
