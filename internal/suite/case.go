// Package suite defines the benchmark case, the suite file format (JSONL, one case a line)
// and the checks a suite must pass.
package suite

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/vulnbench/vulnbench/internal/textnorm"
)

// Kind says what a case asks a subject to judge.
type Kind string

// The kinds of case.
const (
	KindFunction Kind = "function" // one function's code (PrimeVul)
	KindJIT      Kind = "jit"      // a repository at a commit and a target function (JitVul)
	KindAppSec   Kind = "appsec"   // a snippet with full ground truth (AppSecBench)
	KindVEX      Kind = "vex"      // a project at a commit and a CVE in a dependency (VEX-Bench)
)

// Kinds lists every kind in a stable order.
var Kinds = []Kind{KindFunction, KindJIT, KindAppSec, KindVEX}

// Label is a case's ground truth or a subject's answer.
type Label string

// The two labels.
const (
	Vul Label = "vul"
	Ben Label = "ben"
)

// Valid reports whether l is one of the two labels.
func (l Label) Valid() bool { return l == Vul || l == Ben }

// Opposite returns the other label.
func (l Label) Opposite() Label {
	if l == Vul {
		return Ben
	}
	return Vul
}

// Splits a case may belong to.
var Splits = []string{"train", "valid", "test"}

// Case is one unit to judge: one line of a suite.
type Case struct {
	ID       string         `json:"id"`
	Kind     Kind           `json:"kind"`
	Label    Label          `json:"label,omitempty"` // "" only in an unlabelled suite (CheckUnlabelled)
	Pair     string         `json:"pair,omitempty"`
	Split    string         `json:"split,omitempty"`
	Project  string         `json:"project,omitempty"`
	Commit   string         `json:"commit,omitempty"`
	Date     string         `json:"date,omitempty"`
	Language string         `json:"language,omitempty"`
	CWE      []string       `json:"cwe,omitempty"`
	CVE      string         `json:"cve,omitempty"`
	Code     string         `json:"code,omitempty"`
	Repo     *Repo          `json:"repo,omitempty"`
	Target   *Target        `json:"target,omitempty"`
	VEX      *VEX           `json:"vex,omitempty"`
	AppSec   map[string]any `json:"appsec,omitempty"`
	Source   map[string]any `json:"source,omitempty"`
	Meta     map[string]any `json:"meta,omitempty"`
}

// Repo locates a repository snapshot.
type Repo struct {
	URL    string `json:"url,omitempty"`
	Commit string `json:"commit,omitempty"`
	Path   string `json:"path,omitempty"`
}

// Target names the function a jit case is about.
type Target struct {
	File     string `json:"file,omitempty"`
	Function string `json:"function,omitempty"`
	Line     int    `json:"line,omitempty"`
	EndLine  int    `json:"end_line,omitempty"` // the function's last line, when known
}

// VEX holds a vex case's ground truth and the dependency in question.
type VEX struct {
	Category  string `json:"category,omitempty"`
	Package   string `json:"package,omitempty"`
	Ecosystem string `json:"ecosystem,omitempty"`
	Advisory  string `json:"advisory,omitempty"`
	// Alternatives are other categories that annotators found acceptable for the case (a
	// labelled suite's, label export): lenient scoring counts an answer among them as right.
	Alternatives []string `json:"alternatives,omitempty"`
}

// SourceIdx returns the original dataset's integer index (PrimeVul's idx) when the case has one.
func (c *Case) SourceIdx() (string, bool) {
	v, ok := c.Source["idx"]
	if !ok {
		return "", false
	}
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case string:
		return x, true
	}
	return "", false
}

// Check reports the first structural problem of a case: the checks every reader makes.
// Suite-wide checks (unique ids, pairs) are done by Checker.
func (c *Case) Check() error {
	switch {
	case c.ID == "":
		return fmt.Errorf("missing field \"id\"")
	case textnorm.CheckID(c.ID) != nil:
		return fmt.Errorf("field \"id\": %w", textnorm.CheckID(c.ID))
	case c.Kind == "":
		return fmt.Errorf("case %q: missing field \"kind\"", c.ID)
	case !slices.Contains(Kinds, c.Kind):
		return fmt.Errorf("case %q: kind %q is not one of function, jit, appsec, vex", c.ID, c.Kind)
	case c.Label == "" && c.Kind == KindVEX && c.Meta["mined"] != nil:
		return fmt.Errorf("case %q is unlabelled (mined by suite mine vex): label the suite first (vulnbench label init), then use the suite label export writes", c.ID)
	case c.Label == "":
		return fmt.Errorf("case %q: missing field \"label\"", c.ID)
	case !c.Label.Valid():
		return fmt.Errorf("case %q: label %q is not vul or ben", c.ID, c.Label)
	}
	if c.Split != "" && !slices.Contains(Splits, c.Split) {
		return fmt.Errorf("case %q: split %q is not train, valid or test", c.ID, c.Split)
	}
	if c.Date != "" {
		if _, err := time.Parse(time.RFC3339, c.Date); err != nil {
			return fmt.Errorf("case %q: date %q is not RFC 3339 (like 2024-05-01T12:00:00Z)", c.ID, c.Date)
		}
	}
	for _, w := range c.CWE {
		if !ValidCWE(w) {
			return fmt.Errorf("case %q: cwe %q is not like CWE-787", c.ID, w)
		}
	}
	switch c.Kind {
	case KindFunction, KindAppSec:
		if c.Code == "" {
			return fmt.Errorf("case %q: a %s case needs \"code\"", c.ID, c.Kind)
		}
	case KindJIT:
		if c.Target == nil || c.Target.Function == "" {
			return fmt.Errorf("case %q: a jit case needs \"target.function\"", c.ID)
		}
	case KindVEX:
		if c.CVE == "" {
			return fmt.Errorf("case %q: a vex case needs \"cve\"", c.ID)
		}
		if c.VEX != nil && c.VEX.Category != "" {
			if !ValidVEXCategory(c.VEX.Category) {
				return fmt.Errorf("case %q: vex.category %q is not one of VEX-Bench's twelve categories", c.ID, c.VEX.Category)
			}
			if (c.VEX.Category == VEXVulnerable) != (c.Label == Vul) {
				return fmt.Errorf("case %q: vex.category %q contradicts label %q (only \"vulnerable\" is vul)", c.ID, c.VEX.Category, c.Label)
			}
		}
		if c.VEX != nil {
			for _, a := range c.VEX.Alternatives {
				switch {
				case !ValidVEXCategory(a):
					return fmt.Errorf("case %q: vex.alternatives: %q is not one of VEX-Bench's twelve categories", c.ID, a)
				case c.VEX.Category == "":
					return fmt.Errorf("case %q: vex.alternatives without a vex.category", c.ID)
				case a == c.VEX.Category:
					return fmt.Errorf("case %q: vex.alternatives repeats the category %q", c.ID, a)
				}
			}
		}
	}
	return nil
}

// CheckUnlabelled is Check for a suite that is to be labelled: a vex case may have no label
// yet (and then no category either); every other check stands.
func (c *Case) CheckUnlabelled() error {
	if c.Label != "" || c.Kind != KindVEX {
		return c.Check()
	}
	if c.VEX != nil && (c.VEX.Category != "" || len(c.VEX.Alternatives) > 0) {
		return fmt.Errorf("case %q: vex.category without a label", c.ID)
	}
	x := *c
	x.Label, x.Meta = Ben, nil // any label: the rest is what is checked
	return x.Check()
}

// ValidCWE reports whether s looks like CWE-123 (or NVD's placeholders NVD-CWE-Other / NVD-CWE-noinfo).
func ValidCWE(s string) bool {
	if s == "NVD-CWE-Other" || s == "NVD-CWE-noinfo" {
		return true
	}
	if len(s) < 5 || s[:4] != "CWE-" {
		return false
	}
	for _, r := range s[4:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
