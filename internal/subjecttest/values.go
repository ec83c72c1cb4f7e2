package subjecttest

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/subject"
)

// values are a kind's flags as the CLI hands them to Configure: every flag the kind reads, set
// to the value given or else to its default. A value that its flag's type cannot read, or a
// flag the kind does not read, fails the test (the CLI refuses both).
type values map[string]string

func flagValues(t testing.TB, f subject.Factory, given map[string]string) values {
	t.Helper()
	v := values{}
	for _, fl := range f.Flags {
		v[fl.Name] = fmt.Sprint(fl.Default)
	}
	for name, s := range given {
		i := -1
		for j, fl := range f.Flags {
			if fl.Name == name {
				i = j
			}
		}
		if i < 0 {
			t.Fatalf("subject %s reads no flag --%s", f.Name, name)
		}
		if err := parses(f.Flags[i].Default, s); err != nil {
			t.Fatalf("--%s %q: %v", name, s, err)
		}
		v[name] = s
	}
	return v
}

// parses checks that s reads as a value of def's type.
func parses(def any, s string) error {
	var err error
	switch def.(type) {
	case int:
		_, err = strconv.Atoi(s)
	case int64:
		_, err = strconv.ParseInt(s, 10, 64)
	case float64:
		_, err = strconv.ParseFloat(s, 64)
	case bool:
		_, err = strconv.ParseBool(s)
	case time.Duration:
		_, err = time.ParseDuration(s)
	}
	return err
}

func (v values) String(name string) string          { return v[name] }
func (v values) Int(name string) int                { n, _ := strconv.Atoi(v[name]); return n }
func (v values) Int64(name string) int64            { n, _ := strconv.ParseInt(v[name], 10, 64); return n }
func (v values) Float(name string) float64          { f, _ := strconv.ParseFloat(v[name], 64); return f }
func (v values) Bool(name string) bool              { b, _ := strconv.ParseBool(v[name]); return b }
func (v values) Duration(name string) time.Duration { d, _ := time.ParseDuration(v[name]); return d }
