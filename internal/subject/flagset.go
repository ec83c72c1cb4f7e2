package subject

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// The registry's flags on a command line (vulnbench run, probe memory): registered once, described
// under the kinds that read them, read back as text, checked against the kind given and a resume.

// TextValues reads flag values from their text, as a manifest keeps them; a missing or
// unreadable value reads as the zero value (the flag's default was recorded when the run started).
type TextValues map[string]string

// String implements Values.
func (v TextValues) String(name string) string { return v[name] }

// Int implements Values.
func (v TextValues) Int(name string) int { n, _ := strconv.Atoi(v[name]); return n }

// Int64 implements Values.
func (v TextValues) Int64(name string) int64 { n, _ := strconv.ParseInt(v[name], 10, 64); return n }

// Float implements Values.
func (v TextValues) Float(name string) float64 { f, _ := strconv.ParseFloat(v[name], 64); return f }

// Bool implements Values.
func (v TextValues) Bool(name string) bool { b, _ := strconv.ParseBool(v[name]); return b }

// Duration implements Values.
func (v TextValues) Duration(name string) time.Duration {
	d, _ := time.ParseDuration(v[name])
	return d
}

// AddFlags registers every flag the kinds read on fs, each once and hidden: Help describes them
// under their kinds, so the command's general flag list leaves them out.
func (r *Registry) AddFlags(fs *pflag.FlagSet) {
	for _, fl := range r.Flags() {
		AddFlag(fs, fl)
		_ = fs.MarkHidden(fl.Name)
	}
}

// AddFlag registers fl on fs, typed by its Default.
func AddFlag(fs *pflag.FlagSet, fl Flag) {
	switch d := fl.Default.(type) {
	case string:
		fs.String(fl.Name, d, fl.Usage)
	case int:
		fs.Int(fl.Name, d, fl.Usage)
	case int64:
		fs.Int64(fl.Name, d, fl.Usage)
	case float64:
		fs.Float64(fl.Name, d, fl.Usage)
	case bool:
		fs.Bool(fl.Name, d, fl.Usage)
	case time.Duration:
		fs.Duration(fl.Name, d, fl.Usage)
	default:
		panic(fmt.Sprintf("subject flag --%s: unsupported default %T", fl.Name, d))
	}
}

// Help lists the kinds, each with the flags it reads: a flag is described under the first kind
// that reads it and named under the others.
func (r *Registry) Help() string {
	var b strings.Builder
	described := map[string]bool{}
	for _, f := range r.factories {
		fmt.Fprintf(&b, "  %-20s %s\n", f.Usage, f.Summary)
		own := pflag.NewFlagSet(f.Name, pflag.ContinueOnError)
		var again []string
		for _, fl := range f.Flags {
			switch {
			case fl.Hidden:
			case described[fl.Name]:
				again = append(again, "--"+fl.Name)
			default:
				described[fl.Name] = true
				AddFlag(own, fl)
			}
		}
		for _, line := range strings.SplitAfter(own.FlagUsagesWrapped(0), "\n") {
			if line != "" {
				b.WriteString("      " + line)
			}
		}
		if len(again) > 0 {
			fmt.Fprintf(&b, "        also reads (see above): %s\n", strings.Join(again, " "))
		}
	}
	return b.String()
}

// ValuesOf are the values of f's flags on fs as text: as the manifest keeps them (Scrub removes
// secrets) and as the kind reads them.
func (f Factory) ValuesOf(fs *pflag.FlagSet) (stored, live TextValues) {
	stored, live = TextValues{}, TextValues{}
	for _, fl := range f.Flags {
		v := fs.Lookup(fl.Name).Value.String()
		live[fl.Name] = v
		if fl.Scrub != nil {
			v = fl.Scrub(v)
		}
		stored[fl.Name] = v
	}
	return stored, live
}

// Foreign refuses a kind's flag given (changed) to f, a kind that does not read it: a typo'd
// subject or a forgotten --subject would otherwise run with the flag silently ignored.
func (r *Registry) Foreign(f Factory, changed func(name string) bool) error {
	own := map[string]bool{}
	for _, fl := range f.Flags {
		own[fl.Name] = true
	}
	for _, fl := range r.Flags() {
		if !changed(fl.Name) || own[fl.Name] {
			continue
		}
		var users []string
		for _, k := range r.factories {
			if _, ok := k.Flag(fl.Name); ok {
				users = append(users, k.Name)
			}
		}
		return fmt.Errorf("--%s does not apply to subject %s (it is read by: %s)", fl.Name, f.Name, strings.Join(users, ", "))
	}
	return nil
}

// Fixed refuses, on a resume, a flag given (changed) that cannot change: the kinds' flags that
// are not resumable, and the run's own named in also.
func (r *Registry) Fixed(changed func(name string) bool, also ...string) error {
	fixed := also
	for _, fl := range r.Flags() {
		if !fl.Resumable {
			fixed = append(fixed, fl.Name)
		}
	}
	sort.Strings(fixed)
	for _, name := range fixed {
		if changed(name) {
			return fmt.Errorf("--%s cannot change on --resume: the run keeps the settings it started with (vulnbench runs --db DB shows them)", name)
		}
	}
	return nil
}
