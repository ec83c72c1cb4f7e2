package output

import (
	"fmt"
	"io"
	"strings"
)

// Presenter writes documents in one format. It computes nothing and reads nothing but the
// document: what a format shows (figures, spend, ROC curves, verdicts for export) is in it already.
type Presenter interface {
	// Name is the format's name, as --format takes it.
	Name() string
	// Presents reports whether the format writes documents like d (of d's type; d may be a
	// zero value, as help texts ask before any document exists).
	Presents(d Document) bool
	// Present writes d to w. An error says why d cannot be shown in this format (it lacks what
	// the format needs, or the format does not write such documents: *UnsupportedError) or that
	// w failed.
	Present(w io.Writer, d Document) error
}

// Summarizer is a Presenter that says in one line what it writes, for help texts.
type Summarizer interface {
	Summary() string
}

// Registry is an explicit list of presenters, in the order help texts show them: a format is
// one entry of the list internal/output/formats builds, and each command offers the formats that
// write its document (For).
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

// Present writes d to w in the format named, refusing one that does not write d.
func (r *Registry) Present(w io.Writer, name string, d Document) error {
	if err := r.Check(name, d); err != nil {
		return err
	}
	p, _ := r.Lookup(name)
	return p.Present(w, d)
}

// UnknownFormatError is a format name no presenter of a registry has.
type UnknownFormatError struct {
	Name  string
	Known []string
}

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown format %q: use one of %s", e.Name, strings.Join(e.Known, ", "))
}
