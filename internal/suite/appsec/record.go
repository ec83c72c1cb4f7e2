package appsec

// Record is one AppSecBench record: the 33 required fields of SPEC section 3 and the two optional
// OWASP mappings. The JSON names are the contract; RequiredFields lists them.
type Record struct {
	BenchmarkID         string     `json:"benchmark_id"`
	Title               string     `json:"title"`
	VulnerabilityName   string     `json:"vulnerability_name"`
	Category            string     `json:"category"`
	Language            string     `json:"language"`
	Framework           string     `json:"framework"`
	Difficulty          Difficulty `json:"difficulty"`
	SourceType          string     `json:"source_type"`
	FilePath            string     `json:"file_path"`
	VulnerableCode      string     `json:"vulnerable_code"`
	SecureCode          string     `json:"secure_code"`
	VulnerableLines     []int      `json:"vulnerable_lines"`
	ExpectedDetection   bool       `json:"expected_detection"`
	ExpectedCWE         string     `json:"expected_cwe"`
	ExpectedCWEName     string     `json:"expected_cwe_name"`
	ExpectedOWASP       string     `json:"expected_owasp"`
	ExpectedOWASPAPI    string     `json:"expected_owasp_api,omitempty"`
	ExpectedOWASPLLM    string     `json:"expected_owasp_llm,omitempty"`
	ExpectedSeverity    string     `json:"expected_severity"`
	ExpectedCVSS        string     `json:"expected_cvss"`
	ExpectedCVSSScore   float64    `json:"expected_cvss_score"`
	ExpectedConfidence  string     `json:"expected_confidence"`
	Explanation         string     `json:"explanation"`
	ExploitScenario     string     `json:"exploit_scenario"`
	AttackPreconditions []string   `json:"attack_preconditions"`
	FixDescription      string     `json:"fix_description"`
	RemediationSteps    []string   `json:"remediation_steps"`
	References          []string   `json:"references"`
	Tags                []string   `json:"tags"`
	FalsePositivePrior  float64    `json:"false_positive_prior"`
	FalseNegativePrior  float64    `json:"false_negative_prior"`
	EvaluationRubric    RubricSpec `json:"evaluation_rubric"`
	Split               string     `json:"split"`
	Version             string     `json:"version"`
	Metadata            RecordMeta `json:"metadata"`
}

// RecordMeta repeats the labels a record's consumers index by, plus its provenance; Validate
// checks that it agrees with the record.
type RecordMeta struct {
	Archetype  string  `json:"archetype"`
	Generator  string  `json:"generator"`
	Seed       int     `json:"seed"`
	CWE        string  `json:"cwe"`
	CVSSVector string  `json:"cvss_vector"`
	CVSSScore  float64 `json:"cvss_score"`
}

// RequiredFields returns the JSON names of the 33 required fields, in record order.
func RequiredFields() []string {
	return []string{
		"benchmark_id", "title", "vulnerability_name", "category", "language", "framework",
		"difficulty", "source_type", "file_path", "vulnerable_code", "secure_code",
		"vulnerable_lines", "expected_detection", "expected_cwe", "expected_cwe_name",
		"expected_owasp", "expected_severity", "expected_cvss", "expected_cvss_score",
		"expected_confidence", "explanation", "exploit_scenario", "attack_preconditions",
		"fix_description", "remediation_steps", "references", "tags", "false_positive_prior",
		"false_negative_prior", "evaluation_rubric", "split", "version", "metadata",
	}
}

// Difficulty is a record's level (seed 002 section 5).
type Difficulty string

// The difficulty levels, easiest first.
const (
	Beginner            Difficulty = "beginner"
	Intermediate        Difficulty = "intermediate"
	Advanced            Difficulty = "advanced"
	Expert              Difficulty = "expert"
	RealWorldEnterprise Difficulty = "real-world-enterprise"
)

// Difficulties returns the levels, easiest first.
func Difficulties() []Difficulty {
	return []Difficulty{Beginner, Intermediate, Advanced, Expert, RealWorldEnterprise}
}

// Confidences returns the expected_confidence enum.
func Confidences() []string { return []string{"high", "medium", "low"} }

// SourceTypes returns the source_type enum. Every generated record is "original-synthetic":
// written for vulnbench, copied from no dataset.
func SourceTypes() []string { return []string{"original-synthetic"} }

// Splits returns the split enum.
func Splits() []string { return []string{"train", "validation", "test"} }

// Version is the version written into every record.
const Version = "1.0.0"
