package grade

import (
	"slices"

	"github.com/vulnbench/vulnbench/internal/cvss"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
	"github.com/vulnbench/vulnbench/internal/taxonomy"
)

// The rubric's automatic parts (detection, CWE, OWASP, severity, false-positive avoidance),
// graded from a subject's answers without a judge.

// Answer is what a subject said about one snippet.
type Answer struct {
	Detected bool
	CWE      string // "CWE-89"; empty when none given
	OWASP    string // "A03:2021"
	Severity string // one of Severities(); case must match
}

// Rubric is one record's result on the rubric's automatic parts. A nil criterion is "not graded": exploit, fix, code
// quality and explanation wait for an LLM judge, and false-positive avoidance needs the answer on
// the secure twin.
//
// Raw is the sum of the graded criteria, out of the full 100 (so it can only reach 100 once every
// criterion is graded); RawPass is Raw >= PassThreshold. GradedMax is the sum of the weights of
// the graded criteria, Normalised is Raw scaled to 100 over GradedMax, and Pass is
// Normalised >= PassThreshold: the verdict on what could be graded.
type Rubric struct {
	Detection              *float64 `json:"detection"`
	CWE                    *float64 `json:"cwe"`
	OWASP                  *float64 `json:"owasp"`
	Severity               *float64 `json:"severity"`
	Exploit                *float64 `json:"exploit"`
	Fix                    *float64 `json:"fix"`
	CodeQuality            *float64 `json:"code_quality"`
	Explanation            *float64 `json:"explanation"`
	FalsePositiveAvoidance *float64 `json:"false_positive_avoidance"`

	Raw        float64 `json:"raw"`
	RawPass    bool    `json:"raw_pass"`
	GradedMax  float64 `json:"graded_max"`
	Normalised float64 `json:"normalised"`
	Pass       bool    `json:"pass"`
}

// Automatic grades the rubric's automatic parts of one record (r its weights, h the CWE
// hierarchy for partial credit, nil: none): it scores the answer on the vulnerable snippet and, when secure is non-nil, the answer on the
// secure twin.
//
//   - detection: full when Detected equals the record's expected_detection.
//   - CWE: full for the exact id, half when one is an ancestor of the other in the hierarchy.
//   - OWASP: full for the exact category.
//   - severity: full for the same band, half one band away.
//   - false-positive avoidance: full when the secure twin is not flagged.
//
// CWE, OWASP and severity are credited only when the weakness was detected: a classification of a
// snippet the subject called safe is not an answer.
func Automatic(r appsec.RubricSpec, h *taxonomy.Hierarchy, rec *appsec.Record, vul Answer, secure *Answer) Rubric {
	var out Rubric
	credit := func(weight, fraction float64) *float64 {
		v := weight * fraction
		out.Raw += v
		out.GradedMax += weight
		return &v
	}
	out.Detection = credit(r.Detection, b2f(vul.Detected == rec.ExpectedDetection))
	detected := vul.Detected && rec.ExpectedDetection
	cwe := 0.0
	switch {
	case !detected:
	case vul.CWE == rec.ExpectedCWE:
		cwe = 1
	case h != nil && h.Related(vul.CWE, rec.ExpectedCWE):
		cwe = 0.5
	}
	out.CWE = credit(r.CWE, cwe)
	out.OWASP = credit(r.OWASP, b2f(detected && vul.OWASP == rec.ExpectedOWASP))
	sev := 0.0
	if detected {
		switch d := bandDistance(vul.Severity, rec.ExpectedSeverity); d {
		case 0:
			sev = 1
		case 1:
			sev = 0.5
		}
	}
	out.Severity = credit(r.Severity, sev)
	if secure != nil {
		out.FalsePositiveAvoidance = credit(r.FalsePositiveAvoidance, b2f(!secure.Detected))
	}
	out.RawPass = out.Raw >= r.PassThreshold
	if out.GradedMax > 0 {
		out.Normalised = out.Raw * 100 / out.GradedMax
	}
	out.Pass = out.Normalised >= r.PassThreshold
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// bandDistance is how many severity bands apart a and b are, or -1 when either is not a band.
func bandDistance(a, b string) int {
	i, j := slices.Index(cvss.Severities(), a), slices.Index(cvss.Severities(), b)
	if i < 0 || j < 0 {
		return -1
	}
	if i > j {
		return i - j
	}
	return j - i
}
