package appsec

// RubricSpec is the weighted rubric every record carries (seed 002 section 6): the weights sum to
// 100 and a graded answer passes at PassThreshold.
type RubricSpec struct {
	Detection              float64 `json:"detection"`
	CWE                    float64 `json:"cwe"`
	OWASP                  float64 `json:"owasp"`
	Severity               float64 `json:"severity"`
	Exploit                float64 `json:"exploit"`
	Fix                    float64 `json:"fix"`
	CodeQuality            float64 `json:"code_quality"`
	Explanation            float64 `json:"explanation"`
	FalsePositiveAvoidance float64 `json:"false_positive_avoidance"`
	PassThreshold          float64 `json:"pass_threshold"`
}

// DefaultRubric is rubric v1: detection 15, CWE 10, OWASP 10, severity 10, exploit 10, fix 20,
// code quality 10, explanation 10, false-positive avoidance 5; pass at 70.
func DefaultRubric() RubricSpec {
	return RubricSpec{
		Detection: 15, CWE: 10, OWASP: 10, Severity: 10, Exploit: 10, Fix: 20,
		CodeQuality: 10, Explanation: 10, FalsePositiveAvoidance: 5, PassThreshold: 70,
	}
}

// Total is the sum of the weights.
func (r RubricSpec) Total() float64 {
	return r.Detection + r.CWE + r.OWASP + r.Severity + r.Exploit + r.Fix + r.CodeQuality +
		r.Explanation + r.FalsePositiveAvoidance
}
