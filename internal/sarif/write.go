package sarif

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/primevul"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// SchemaURI is the SARIF 2.1.0 schema the writer's output validates against.
const SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// RunMeta describes the vulnbench run whose verdicts are written: it becomes the SARIF run's
// tool and its properties.
type RunMeta struct {
	Vulnbench string         // vulnbench's version
	RunID     string         // the run id
	Subject   string         // as the run was started, e.g. llm
	Model     string         // --model, "" for a subject without one
	Prompt    string         // --prompt, "" for a subject without one
	Extra     map[string]any // more tool properties (the subject's version and description)
}

// Write writes one run's verdicts as strict SARIF 2.1.0 that GitHub code scanning accepts
// (CheckGitHub): every finding of a vul verdict becomes a result at its location (a file given
// relative to the repository; a finding without a file is placed in the case's target file), a
// vul verdict without findings one result at the case's target file and lines; a case without a
// file (a function case) is the artifact vulnbench-cases/ID over its code's lines, with its
// function as a logical location; every result has a partial fingerprint of its own (case, repeat, rule, place); CWEs are rule tags (external/cwe/cwe-N), rule relationships and result
// taxa of a CWE taxonomy; the message is the finding's, else the verdict's explanation. Verdicts
// with status error become tool execution notifications. cases gives each verdict's case.
func Write(w io.Writer, meta RunMeta, cases map[string]*suite.Case, vs []verdict.Verdict) error {
	b := builder{ruleIndex: map[string]int{}, taxonIndex: map[string]int{}, results: []wResult{}, prints: map[string]int{}}
	inv := wInvocation{ExecutionSuccessful: true, ToolExecutionNotifications: []wNotification{}}
	for i := range vs {
		v := &vs[i]
		c := cases[v.CaseID]
		switch {
		case v.Status == verdict.Error:
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, wNotification{Level: "error",
				Message: wMessage{Text: fmt.Sprintf("case %s (repeat %d): %s", v.CaseID, v.Repeat, nonEmpty(v.Reason, "error"))}})
		case v.Label != suite.Vul:
		case len(v.Findings) == 0:
			f := verdict.Finding{CWE: v.CWE}
			b.add(v, c, f)
		default:
			for _, f := range v.Findings {
				if len(f.CWE) == 0 {
					f.CWE = v.CWE
				}
				b.add(v, c, f)
			}
		}
	}
	props := map[string]any{"run": meta.RunID, "subject": meta.Subject}
	if meta.Model != "" {
		props["model"] = meta.Model
	}
	if meta.Prompt != "" {
		props["prompt"] = meta.Prompt
	}
	for k, v := range meta.Extra {
		if _, taken := props[k]; !taken {
			props[k] = v
		}
	}
	doc := wLog{Schema: SchemaURI, Version: "2.1.0", Runs: []wRun{{
		Tool: wTool{Driver: wComponent{Name: "vulnbench", Version: meta.Vulnbench, InformationURI: "https://github.com/vulnbench/vulnbench",
			Rules: b.rules, Properties: props}},
		Taxonomies:        []wComponent{{Name: "CWE", Organization: "MITRE", InformationURI: "https://cwe.mitre.org/", Taxa: b.taxa}},
		AutomationDetails: &wAutomation{ID: "vulnbench/" + meta.RunID + "/"},
		Invocations:       []wInvocation{inv},
		Results:           b.results,
	}}}
	if doc.Runs[0].Tool.Driver.Version == "" {
		doc.Runs[0].Tool.Driver.Version = "unknown"
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("write SARIF: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write SARIF: %w", err)
	}
	return nil
}

type builder struct {
	rules      []wRule
	ruleIndex  map[string]int
	taxa       []wTaxon
	taxonIndex map[string]int
	results    []wResult
	prints     map[string]int // fingerprints given, and how often
}

func (b *builder) add(v *verdict.Verdict, c *suite.Case, f verdict.Finding) {
	id := f.Rule
	if id == "" && len(f.CWE) > 0 {
		id = f.CWE[0]
	}
	if id == "" {
		id = "vulnerable"
	}
	ri, ok := b.ruleIndex[id]
	if !ok {
		ri = len(b.rules)
		b.ruleIndex[id] = ri
		text := ruleText(id, f.CWE)
		r := wRule{ID: id, ShortDescription: &wMessage{Text: text}, FullDescription: &wMessage{Text: text},
			Help: &wMessage{Text: helpText(f.CWE)}, Properties: &wRuleProps{Tags: []string{"security"}}}
		for _, w := range f.CWE {
			if len(r.Properties.Tags) < GitHubMaxTagsPerRule {
				r.Properties.Tags = append(r.Properties.Tags, "external/cwe/"+strings.ToLower(w))
			}
			r.Relationships = append(r.Relationships, wRelationship{Target: b.taxonRef(w), Kinds: []string{"relevant"}})
		}
		b.rules = append(b.rules, r)
	}
	res := wResult{RuleID: id, RuleIndex: ri, Level: level(f.Severity), Message: wMessage{Text: nonEmpty(f.Message, v.Explanation, "vulnerable")},
		Locations: []wLocation{}, Properties: wResultProps{CaseID: v.CaseID, Repeat: v.Repeat, Label: string(v.Label), Score: v.Score, Confidence: v.Confidence}}
	if f.Message != "" && v.Explanation != "" && f.Message != v.Explanation {
		res.Properties.Explanation = v.Explanation
	}
	for _, w := range f.CWE {
		res.Taxa = append(res.Taxa, b.taxonRef(w))
	}
	loc := locationOf(f, c, v.CaseID)
	res.Locations = append(res.Locations, loc)
	fp := fingerprint(v.CaseID, v.Repeat, id, loc)
	if n := b.prints[fp]; n > 0 { // a second result at the same place and rule of one answer
		b.prints[fp]++
		fp = fingerprint(v.CaseID, v.Repeat, fmt.Sprintf("%s\x00%d", id, n), loc)
	}
	b.prints[fp]++
	res.PartialFingerprints = map[string]string{FingerprintKey: fp}
	b.results = append(b.results, res)
}

func (b *builder) taxonRef(cwe string) wReference {
	i, ok := b.taxonIndex[cwe]
	if !ok {
		i = len(b.taxa)
		b.taxonIndex[cwe] = i
		b.taxa = append(b.taxa, wTaxon{ID: cwe})
	}
	return wReference{ID: cwe, Index: i, ToolComponent: wComponentRef{Name: "CWE", Index: 0}}
}

// locationOf places a finding: its own file and lines, else the case's target file and lines,
// else (a function case: code without a file) the case id as the artifact, over the lines of
// the case's code. Where the case names its function (its target, or the name before the
// code's first parenthesis) the location also holds it as a logical location.
func locationOf(f verdict.Finding, c *suite.Case, caseID string) wLocation {
	file, start, end := f.File, f.StartLine, f.EndLine
	if file == "" && c != nil {
		if s, ok := CaseSpan(c); ok {
			file = s.File
			if start == 0 {
				start, end = s.Start, s.End
			}
		}
	}
	if file == "" {
		file = CaseArtifact(caseID)
		if start == 0 {
			start, end = 1, 1
			if c != nil && c.Code != "" {
				end = strings.Count(strings.TrimRight(c.Code, "\n"), "\n") + 1
			}
		}
	}
	if start <= 0 {
		start, end = 1, 0 // a file without lines: from its first (code scanning needs a line)
	}
	loc := wLocation{PhysicalLocation: wPhysical{ArtifactLocation: wArtifact{URI: (&url.URL{Path: NormalizePath(file)}).String()}}}
	r := &wRegion{StartLine: start}
	if end > start {
		r.EndLine = end
	}
	loc.PhysicalLocation.Region = r
	if fn := functionOf(f, c); fn != "" {
		loc.LogicalLocations = []wLogical{{Name: fn, FullyQualifiedName: fn, Kind: "function"}}
	}
	return loc
}

// CaseArtifact is the artifact a result on a case without a file names: the case id, under a
// directory of its own so that it never collides with a repository path.
func CaseArtifact(caseID string) string { return "vulnbench-cases/" + caseID }

// functionOf names the function a result is in: the finding's, the case's target, or the name
// before the first parenthesis of a function case's code.
func functionOf(f verdict.Finding, c *suite.Case) string {
	switch {
	case f.Function != "":
		return f.Function
	case c == nil:
		return ""
	case c.Target != nil && c.Target.Function != "":
		return c.Target.Function
	case c.Kind == suite.KindFunction:
		return primevul.FunctionName(c.Code)
	}
	return ""
}

// FingerprintKey names the partial fingerprint every result carries (GitHub code scanning
// matches results across uploads by partialFingerprints; without one, an API upload shows
// duplicates).
const FingerprintKey = "vulnbenchCaseRule/v1"

// fingerprint identifies a result across runs: its case, rule and place, and its repeat (a
// run's repeats are distinct results of one log; repeat 0's fingerprint is a one-repeat run's).
func fingerprint(caseID string, repeat int, rule string, loc wLocation) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", caseID, rule, loc.PhysicalLocation.ArtifactLocation.URI)
	if r := loc.PhysicalLocation.Region; r != nil {
		fmt.Fprintf(h, "\x00%d", r.StartLine)
	}
	if repeat > 0 {
		fmt.Fprintf(h, "\x00repeat %d", repeat)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func helpText(cwes []string) string {
	if len(cwes) == 0 {
		return "A vulnerability reported by a vulnbench subject."
	}
	return "A vulnerability reported by a vulnbench subject: " + strings.Join(cwes, ", ") + " (https://cwe.mitre.org/)."
}

func ruleText(id string, cwes []string) string {
	if len(cwes) == 0 || (len(cwes) == 1 && cwes[0] == id) {
		return id
	}
	return id + " (" + strings.Join(cwes, ", ") + ")"
}

// level maps a finding's severity to a SARIF level; unknown ones are warnings.
func level(sev string) string {
	switch strings.ToLower(sev) {
	case "critical", "high", "error":
		return "error"
	case "low", "note", "info", "information", "style":
		return "note"
	}
	return "warning"
}

func nonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// The written document: only what is written, every field the schema's.

type wLog struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []wRun `json:"runs"`
}

type wRun struct {
	Tool              wTool         `json:"tool"`
	Taxonomies        []wComponent  `json:"taxonomies"`
	AutomationDetails *wAutomation  `json:"automationDetails,omitempty"`
	Invocations       []wInvocation `json:"invocations"`
	Results           []wResult     `json:"results"`
}

type wTool struct {
	Driver wComponent `json:"driver"`
}

type wComponent struct {
	Name           string         `json:"name"`
	Version        string         `json:"version,omitempty"`
	Organization   string         `json:"organization,omitempty"`
	InformationURI string         `json:"informationUri,omitempty"`
	Rules          []wRule        `json:"rules,omitempty"`
	Taxa           []wTaxon       `json:"taxa,omitempty"`
	Properties     map[string]any `json:"properties,omitempty"`
}

type wRule struct {
	ID               string          `json:"id"`
	ShortDescription *wMessage       `json:"shortDescription,omitempty"`
	FullDescription  *wMessage       `json:"fullDescription,omitempty"`
	Help             *wMessage       `json:"help,omitempty"`
	Relationships    []wRelationship `json:"relationships,omitempty"`
	Properties       *wRuleProps     `json:"properties,omitempty"`
}

type wRuleProps struct {
	Tags []string `json:"tags"`
}

type wRelationship struct {
	Target wReference `json:"target"`
	Kinds  []string   `json:"kinds"`
}

type wTaxon struct {
	ID string `json:"id"`
}

type wReference struct {
	ID            string        `json:"id"`
	Index         int           `json:"index"`
	ToolComponent wComponentRef `json:"toolComponent"`
}

type wComponentRef struct {
	Name  string `json:"name"`
	Index int    `json:"index"`
}

type wAutomation struct {
	ID string `json:"id"`
}

type wInvocation struct {
	ExecutionSuccessful        bool            `json:"executionSuccessful"`
	ToolExecutionNotifications []wNotification `json:"toolExecutionNotifications"`
}

type wNotification struct {
	Level   string   `json:"level"`
	Message wMessage `json:"message"`
}

type wMessage struct {
	Text string `json:"text"`
}

type wResult struct {
	RuleID    string      `json:"ruleId"`
	RuleIndex int         `json:"ruleIndex"`
	Level     string      `json:"level"`
	Message   wMessage    `json:"message"`
	Locations []wLocation `json:"locations"`
	// PartialFingerprints identify the result across uploads (FingerprintKey).
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Taxa                []wReference      `json:"taxa,omitempty"`
	Properties          wResultProps      `json:"properties"`
}

type wResultProps struct {
	CaseID      string   `json:"case_id"`
	Repeat      int      `json:"repeat"`
	Label       string   `json:"label"`
	Score       *float64 `json:"score,omitempty"`
	Confidence  *float64 `json:"confidence,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
}

type wLocation struct {
	PhysicalLocation wPhysical  `json:"physicalLocation"`
	LogicalLocations []wLogical `json:"logicalLocations,omitempty"`
}

type wLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind"`
}

type wPhysical struct {
	ArtifactLocation wArtifact `json:"artifactLocation"`
	Region           *wRegion  `json:"region,omitempty"`
}

type wArtifact struct {
	URI string `json:"uri"`
}

type wRegion struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine,omitempty"`
}
