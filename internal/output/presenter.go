package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/vulnbench/vulnbench/internal/report"
)

// Presenter writes a report model in one format. It computes nothing and reads nothing but rep:
// what a format shows (figures, spend, ROC curves, verdicts for export) is in the model already.
type Presenter interface {
	// Name is the format's name, as --format takes it.
	Name() string
	// Present writes rep to w. An error says why rep cannot be shown in this format (it lacks
	// what the format needs) or that w failed.
	Present(w io.Writer, rep *report.Report) error
}

// Summarizer is a Presenter that says in one line what it writes, for help texts.
type Summarizer interface {
	Summary() string
}

// Registry is an explicit list of presenters, in the order help texts show them: a format is
// one entry in the list its command builds (internal/output/formats).
type Registry struct {
	ps []Presenter
}

// NewRegistry is the registry of ps; two presenters of one name are an error.
func NewRegistry(ps ...Presenter) (*Registry, error) {
	seen := map[string]bool{}
	for _, p := range ps {
		if p.Name() == "" || seen[p.Name()] {
			return nil, fmt.Errorf("presenter registry: name %q is empty or given twice", p.Name())
		}
		seen[p.Name()] = true
	}
	return &Registry{ps: ps}, nil
}

// Names are the formats' names, in order.
func (r *Registry) Names() []string {
	ns := make([]string, len(r.ps))
	for i, p := range r.ps {
		ns[i] = p.Name()
	}
	return ns
}

// Presenters are the registry's presenters, in order.
func (r *Registry) Presenters() []Presenter { return append([]Presenter(nil), r.ps...) }

// Lookup finds a format by name; an unknown name is an *UnknownFormatError.
func (r *Registry) Lookup(name string) (Presenter, error) {
	for _, p := range r.ps {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, &UnknownFormatError{Name: name, Known: r.Names()}
}

// Present writes rep to w in the format named.
func (r *Registry) Present(w io.Writer, name string, rep *report.Report) error {
	p, err := r.Lookup(name)
	if err != nil {
		return err
	}
	return p.Present(w, rep)
}

// UnknownFormatError is a format name no presenter of a registry has.
type UnknownFormatError struct {
	Name  string
	Known []string
}

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown format %q: use one of %s", e.Name, strings.Join(e.Known, ", "))
}
