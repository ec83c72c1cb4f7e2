package advisory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"time"

	"github.com/google/osv-scalibr/semantic"

	"github.com/vulnbench/vulnbench/internal/jsonkeys"
	"github.com/vulnbench/vulnbench/internal/lineerr"
)

// shape is what Open checks of every record: the fields vulnbench reads, with the types the OSV
// schema gives them. A record of another shape (an "affected" that is not a list, an event that
// is not an object of strings) is a problem of its file, as an unreadable one is, rather than a
// record that later reads as empty.
type shape struct {
	ID        string   `json:"id"`
	Aliases   []string `json:"aliases"`
	Withdrawn string   `json:"withdrawn"`
	Published string   `json:"published"`
	Modified  string   `json:"modified"`
	Summary   string   `json:"summary"`
	Details   string   `json:"details"`
	Affected  []struct {
		Package struct {
			Ecosystem string `json:"ecosystem"`
			Name      string `json:"name"`
			PURL      string `json:"purl"`
		} `json:"package"`
		Ranges []struct {
			Type   string  `json:"type"`
			Repo   string  `json:"repo"`
			Events []event `json:"events"`
		} `json:"ranges"`
		Versions          []string  `json:"versions"`
		EcosystemSpecific rawObject `json:"ecosystem_specific"`
		DatabaseSpecific  rawObject `json:"database_specific"`
	} `json:"affected"`
	References []struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	} `json:"references"`
	DatabaseSpecific rawObject `json:"database_specific"`
}

// event is one range event: the schema wants exactly one of its fields.
type event struct {
	Introduced   *string `json:"introduced"`
	Fixed        *string `json:"fixed"`
	LastAffected *string `json:"last_affected"`
	Limit        *string `json:"limit"`
}

// rawObject is a JSON object left unread, or null.
type rawObject struct{}

func (rawObject) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '{' || string(b) == "null") {
		return nil
	}
	return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeOf(map[string]any{})}
}

// jsonKind names the kind of the JSON value b, as encoding/json's type errors do.
func jsonKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "value"
	case b[0] == '[':
		return "array"
	case b[0] == '"':
		return "string"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	}
	return "number"
}

// semverRE is SemVer 2.0 (a leading "v" tolerated, as Go's module versions carry one).
var semverRE = regexp.MustCompile(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// The versions of ecosystems osv-scalibr parses without complaint whatever they are ("latest",
// "the next one"): those of semverEcosystems are numbers first, as GitHub's records write them
// ("0.10", "0.24.2-beta.rc1"); those of numberedEcosystems start with a number (after a "v")
// and hold no space; a Maven version holds a digit and no space.
var (
	looseSemverRE = regexp.MustCompile(`^v?\d+(\.\d+)*([-+~][0-9A-Za-z.+~-]*)?$`)
	numberedRE    = regexp.MustCompile(`^[vV]?\d[0-9A-Za-z.+!_~:-]*$`)
	mavenRE       = regexp.MustCompile(`^[^\s]*\d[^\s]*$`)

	semverEcosystems   = map[string]bool{"Go": true, "npm": true, "crates.io": true, "Hex": true}
	numberedEcosystems = map[string]bool{"PyPI": true, "RubyGems": true, "NuGet": true, "Packagist": true, "Pub": true}
)

// check decodes b as a record of the OSV schema's shape and checks what the schema says of its
// ranges and dates; a problem is a *lineerr.Error naming source, the line and the field.
func check(source string, b []byte) (*shape, error) {
	var s shape
	if err := json.Unmarshal(b, &s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return nil, nil // a JSON file that is not an object: not a record
		}
		return nil, jsonProblem(source, b, err)
	}
	if e := jsonkeys.Check(b); e != nil {
		return nil, &lineerr.Error{File: source, Line: e.Line, Err: e}
	}
	if s.ID == "" {
		return nil, &lineerr.Error{File: source, Line: 1, Err: errors.New(`not an OSV record: no "id"`)}
	}
	bad := func(field, value, format string, a ...any) error {
		line := 0
		if value != "" {
			if i := bytes.Index(b, []byte(strconv.Quote(value))); i >= 0 {
				line = lineOf(b, int64(i))
			}
		}
		return &lineerr.Error{File: source, Line: line, Err: fmt.Errorf("not a valid OSV record: field %s: "+format, append([]any{field}, a...)...)}
	}
	for _, d := range []struct{ name, v string }{{"published", s.Published}, {"modified", s.Modified}, {"withdrawn", s.Withdrawn}} {
		if d.v == "" {
			continue
		}
		if _, err := time.Parse(time.RFC3339Nano, d.v); err != nil {
			return nil, bad(d.name, d.v, "%q is not an RFC 3339 time", d.v)
		}
	}
	for i, af := range s.Affected {
		eco := af.Package.Ecosystem
		for j, r := range af.Ranges {
			at := fmt.Sprintf("affected[%d].ranges[%d]", i, j)
			switch r.Type {
			case "GIT":
				if r.Repo == "" {
					return nil, bad(at+".repo", "", `a GIT range names no "repo"`)
				}
			case "SEMVER", "ECOSYSTEM":
			default:
				return nil, bad(at+".type", r.Type, "%q is not SEMVER, ECOSYSTEM or GIT", r.Type)
			}
			if len(r.Events) == 0 {
				return nil, bad(at+".events", "", "a range has no events")
			}
			for k, ev := range r.Events {
				kind, v, err := oneEvent(ev)
				if err != nil {
					return nil, bad(fmt.Sprintf("%s.events[%d]", at, k), "", "%v", err)
				}
				if r.Type == "GIT" || (kind == "introduced" && v == "0") {
					continue
				}
				if err := checkVersion(r.Type, eco, v); err != nil {
					return nil, bad(fmt.Sprintf("%s.events[%d].%s", at, k, kind), v, "%v", err)
				}
			}
		}
	}
	return &s, nil
}

// oneEvent is an event's one kind and version.
func oneEvent(ev event) (kind, v string, err error) {
	for _, k := range []struct {
		name string
		v    *string
	}{{"introduced", ev.Introduced}, {"fixed", ev.Fixed}, {"last_affected", ev.LastAffected}, {"limit", ev.Limit}} {
		if k.v == nil {
			continue
		}
		if kind != "" {
			return "", "", fmt.Errorf("an event has both %q and %q", kind, k.name)
		}
		kind, v = k.name, *k.v
	}
	switch {
	case kind == "":
		return "", "", errors.New(`an event has none of "introduced", "fixed", "last_affected", "limit"`)
	case v == "":
		return "", "", fmt.Errorf("%q is empty", kind)
	}
	return kind, v, nil
}

// checkVersion says why v is not a version of a range of type typ in ecosystem eco (nil when it
// is, or when the ecosystem is one osv-scalibr does not know).
func checkVersion(typ, eco, v string) error {
	switch {
	case typ == "SEMVER":
		if !semverRE.MatchString(v) {
			return fmt.Errorf("%q is not a SemVer version", v)
		}
		return nil
	case semverEcosystems[eco] && !looseSemverRE.MatchString(v),
		numberedEcosystems[eco] && !numberedRE.MatchString(v),
		eco == "Maven" && !mavenRE.MatchString(v):
		return fmt.Errorf("%q is not a %s version", v, eco)
	case semverEcosystems[eco] || numberedEcosystems[eco] || eco == "Maven":
		return nil
	}
	if _, err := semantic.Parse(v, eco); err != nil && !errors.Is(err, semantic.ErrUnsupportedEcosystem) {
		return fmt.Errorf("%q is not a %s version: %v", v, eco, err)
	}
	return nil
}
