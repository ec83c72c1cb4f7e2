package subject

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/progs"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Registry is the explicit list of subject kinds.
type Registry struct {
	factories []Factory
}

// NewRegistry lists the given factories.
func NewRegistry(fs ...Factory) *Registry { return &Registry{factories: fs} }

// Factories returns every factory in registration order.
func (r *Registry) Factories() []Factory { return r.factories }

// Flags returns every flag the kinds read, each once, in registration order.
func (r *Registry) Flags() []Flag {
	var out []Flag
	seen := map[string]bool{}
	for _, f := range r.factories {
		for _, fl := range f.Flags {
			if !seen[fl.Name] {
				seen[fl.Name] = true
				out = append(out, fl)
			}
		}
	}
	return out
}

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
		if _, err := progs.Find(b.Name); err != nil {
			return fmt.Errorf("subject %s: %v; install it with: %s", f.Name, err, b.Install)
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

// Unsupported says why f cannot judge c, or "" when it can.
func (f Factory) Unsupported(c *suite.Case) string {
	if !f.Supports(c.Kind) {
		return fmt.Sprintf("subject %s cannot judge %s cases (it judges %s)", f.Name, c.Kind, joinKinds(f.Kinds))
	}
	if f.Languages != nil && c.Language != "" && !slices.Contains(f.Languages, strings.ToLower(c.Language)) {
		return fmt.Sprintf("subject %s cannot judge %s code (it judges %s)", f.Name, c.Language, strings.Join(f.Languages, ", "))
	}
	return ""
}

func joinKinds(ks []suite.Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// Flag is the flag of f named name.
func (f Factory) Flag(name string) (Flag, bool) {
	for _, fl := range f.Flags {
		if fl.Name == name {
			return fl, true
		}
	}
	return Flag{}, false
}
