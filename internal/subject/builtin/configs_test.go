package builtin_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/subject/builtin"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
)

var update = flag.Bool("update", false, "rewrite testdata/kinds.golden")

// textValues reads flags from their text as the CLI hands them over (every flag set, defaults
// included).
type textValues map[string]string

func (v textValues) String(n string) string          { return v[n] }
func (v textValues) Int(n string) int                { i, _ := strconv.Atoi(v[n]); return i }
func (v textValues) Int64(n string) int64            { i, _ := strconv.ParseInt(v[n], 10, 64); return i }
func (v textValues) Float(n string) float64          { f, _ := strconv.ParseFloat(v[n], 64); return f }
func (v textValues) Bool(n string) bool              { b, _ := strconv.ParseBool(v[n]); return b }
func (v textValues) Duration(n string) time.Duration { d, _ := time.ParseDuration(v[n]); return d }

// TestKindsAsRecorded: what the registry declares of every kind (version, case kinds,
// languages, flags with their defaults and resume rules) and the config a run's manifest records
// for it from the flags' defaults, as JSON. A change here changes what runs record or accept:
// it must be on purpose (go test -update rewrites the file).
func TestKindsAsRecorded(t *testing.T) {
	t.Setenv(sast.NodePrefixEnv, "/vulnbench-node") // eslint's path, which names it
	var b strings.Builder
	for _, f := range builtin.Registry().Factories() {
		fmt.Fprintf(&b, "%s version %s kinds %v languages %v arg %v needs %+v\n", f.Usage, f.Version, f.Kinds, f.Languages, f.ArgReq, f.Needs)
		fmt.Fprintf(&b, "  declares: repository %v advisories %v model %v steps %v settings %v scrub %v can %+v\n", f.Repository != nil,
			f.Advisories != nil, f.Model != nil, f.Steps != nil, f.Settings != nil, f.Scrub != nil, f.Can)
		vals := textValues{"model": "openai:m", "advisories": "adv"}
		for _, fl := range f.Flags {
			fmt.Fprintf(&b, "  --%s %T %v resumable=%v hidden=%v scrub=%v\n", fl.Name, fl.Default, fl.Default, fl.Resumable, fl.Hidden, fl.Scrub != nil)
			if _, ok := vals[fl.Name]; !ok {
				vals[fl.Name] = fmt.Sprint(fl.Default)
			}
		}
		arg := ""
		if f.ArgReq {
			arg = "vul"
		}
		cfg, err := f.Configure(arg, vals)
		if err != nil {
			fmt.Fprintf(&b, "  config: error %v\n", err)
			continue
		}
		js, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "  config: %s\n", js)
		set, err := json.Marshal(f.SettingsOf(f.Recorded(cfg)))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "  settings: %s\n", set)
	}
	const golden = "testdata/kinds.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), b.String()); d != "" {
		t.Errorf("kinds (-%s +now):\n%s", golden, d)
	}
}

// TestKindsDeclareWhatTheyDo: every kind declares exactly what its subject type implements of
// subject's capability interfaces (Describe, Request, UseBatch, Close, a model it calls): the
// runner, preflight, estimate and batch wiring read the declaration alone, so a capability used
// and not declared would be silently skipped.
func TestKindsDeclareWhatTheyDo(t *testing.T) {
	for _, f := range builtin.Registry().Factories() {
		if err := f.Declared(); err != nil {
			t.Error(err)
		}
	}
}
