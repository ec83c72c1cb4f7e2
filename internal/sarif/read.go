// Package sarif reads SARIF 2.1.0 files that real tools write (leniently: they break the schema
// in many small ways) into normalised findings, writes strict SARIF 2.1.0, and matches findings
// to cases.
//
// The reader walks the document with jsonparser into its own small structs (decode.go) rather
// than go-sarif's types. go-sarif v3.3.1 does read the ten shared files, but it decodes every
// field of the schema (code flows, fixes, graphs), so it is slower than the 50 MB/s the reader
// must reach, and its typed fields reject values real files get wrong (a line or index written
// as a string, properties.cwe as a string where another tool writes a list). Here only what a
// finding needs is decoded, everything else is skipped unread, and each of those fields accepts
// null, a string or a number. encoding/json is used only to name the line of a syntax error.
package sarif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/buger/jsonparser"
	"github.com/vulnbench/vulnbench/internal/jsonkeys"
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Log is what the reader understood of a SARIF file.
type Log struct {
	Runs []Run `json:"runs"`
	// BOM says the file began with a UTF-8 byte-order mark (accepted, dropped).
	BOM bool `json:"bom,omitempty"`
}

// Run is one run of a tool: its name, version, how many results it reported and the finding made
// of each, in the file's order (one finding per result, also for results without a location).
type Run struct {
	Tool     string            `json:"tool"`
	Version  string            `json:"version"`
	Results  int               `json:"results"`
	Findings []verdict.Finding `json:"findings"`
}

// ReadFile reads the SARIF file at path as rd says (nil: strictly): a byte-order mark is noted,
// and bytes that are not UTF-8 are a FILE:LINE problem unless rd is lossy.
func ReadFile(path string, rd *lineerr.Reading) (*Log, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read SARIF: %w", err)
	}
	b, bom, err := rd.File(path, b)
	if err != nil {
		return nil, err
	}
	if e := jsonkeys.Check(b); e != nil {
		return nil, &lineerr.Error{File: path, Line: e.Line, Err: e}
	}
	l, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	l.BOM = l.BOM || bom
	return l, nil
}

// Parse reads a SARIF document. It fails only when the bytes are not a JSON object with a runs
// array; everything inside a run is read as well as it can be, and what cannot be read is skipped.
func Parse(b []byte) (*Log, error) {
	b = bytes.TrimSpace(b)
	hasBOM := bytes.HasPrefix(b, []byte("\xef\xbb\xbf"))
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	if len(b) == 0 || b[0] != '{' {
		return nil, errors.New("not a SARIF file: it is not a JSON object (is this the tool's SARIF output?)")
	}
	runs, typ, _, err := jsonparser.Get(b, "runs")
	if err != nil || typ != jsonparser.Array {
		if e := syntaxError(b); e != "" {
			return nil, fmt.Errorf("not a SARIF file: %s", e)
		}
		return nil, errors.New("not a SARIF file: no \"runs\" array (is this the tool's SARIF output?)")
	}
	l := &Log{Runs: []Run{}, BOM: hasBOM}
	var perr error
	_, err = jsonparser.ArrayEach(runs, func(v []byte, t jsonparser.ValueType, _ int, _ error) {
		if perr != nil || t != jsonparser.Object {
			return
		}
		var r rawRun
		if perr = r.decode(v); perr == nil {
			l.Runs = append(l.Runs, convertRun(&r))
		}
	})
	if err == nil {
		err = perr
	}
	if err != nil {
		if e := syntaxError(b); e != "" {
			return nil, fmt.Errorf("not a SARIF file: %s", e)
		}
		return nil, fmt.Errorf("not a SARIF file: malformed JSON in runs[%d]: %w", len(l.Runs), err)
	}
	return l, nil
}

// syntaxError names the line of the first JSON syntax error in b, or is "" when b is JSON. It
// runs only once reading failed.
func syntaxError(b []byte) string {
	var v struct{}
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset <= int64(len(b)) {
		return fmt.Sprintf("malformed JSON at line %d: %v", bytes.Count(b[:se.Offset], []byte("\n"))+1, err)
	}
	return ""
}

// The raw structs hold only what a finding needs; decode.go fills them with jsonparser, which
// skips everything else without decoding it.

type rawRun struct {
	Driver     rawComponent
	Extensions []rawComponent
	Taxonomies []rawComponent
	Artifacts  []string // each artifact's location.uri
	Results    []rawResult
}

type rawComponent struct {
	Name, Version, SemanticVersion string
	Rules                          []rawRule
	Taxa                           []rawRule
}

type rawRule struct {
	ID, Name       string
	DefaultLevel   string
	MessageStrings map[string]string
	Properties     rawProperties
	Relationships  []rawReference // their targets
}

type rawReference struct {
	ID                 string
	Index              lint
	ToolComponentName  string
	ToolComponentIndex lint
}

type rawProperties struct {
	Tags    []string
	CWE     []byte // the raw value of properties.cwe
	CWEType jsonparser.ValueType
}

type rawMessage struct {
	Text, ID  string
	Arguments []string
}

type rawResult struct {
	RuleID     string
	RuleIndex  lint
	Rule       rawReference
	Level      string
	Message    rawMessage
	HasLoc     bool
	URI        string
	URIIndex   lint
	StartLine  lint
	EndLine    lint
	Taxa       []rawReference
	Properties rawProperties
}

// lint is an integer that also accepts a string of digits or a float; get returns -1 when it
// was absent or unreadable (SARIF's "no index").
type lint struct {
	v   int
	set bool
}

func (n lint) get() int {
	if !n.set {
		return -1
	}
	return n.v
}

func convertRun(r *rawRun) Run {
	drv := &r.Driver
	out := Run{Tool: drv.Name, Version: drv.Version, Results: len(r.Results),
		Findings: make([]verdict.Finding, 0, len(r.Results))}
	if out.Version == "" {
		out.Version = drv.SemanticVersion
	}
	byID := make(map[string]*rawRule, len(drv.Rules))
	for i := range drv.Rules {
		if id := drv.Rules[i].ID; id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = &drv.Rules[i]
			}
		}
	}
	cweTaxonomies := map[int]bool{}
	for i, t := range r.Taxonomies {
		if strings.EqualFold(t.Name, "CWE") {
			cweTaxonomies[i] = true
		}
	}
	for i := range r.Results {
		out.Findings = append(out.Findings, convertResult(r, &r.Results[i], byID, cweTaxonomies))
	}
	return out
}

// rule finds the reporting descriptor of a result: by index (in the driver or the extension the
// result names), else by id in the driver.
func rule(r *rawRun, res *rawResult, byID map[string]*rawRule) *rawRule {
	rules := r.Driver.Rules
	if tc := res.Rule.ToolComponentIndex.get(); tc >= 0 && tc < len(r.Extensions) {
		rules = r.Extensions[tc].Rules
	}
	id := ruleID(res)
	for _, idx := range []int{res.RuleIndex.get(), res.Rule.Index.get()} {
		if idx >= 0 && idx < len(rules) && (id == "" || rules[idx].ID == id) {
			return &rules[idx]
		}
	}
	if id == "" {
		return nil
	}
	if rr := byID[id]; rr != nil {
		return rr
	}
	// Hierarchical ids ("A/B") may name a rule "A".
	if i := strings.IndexByte(id, '/'); i > 0 {
		return byID[id[:i]]
	}
	return nil
}

func ruleID(res *rawResult) string {
	if res.RuleID != "" {
		return res.RuleID
	}
	return res.Rule.ID
}

func convertResult(r *rawRun, res *rawResult, byID map[string]*rawRule, cweTax map[int]bool) verdict.Finding {
	rr := rule(r, res, byID)
	f := verdict.Finding{Rule: ruleID(res), Severity: res.Level}
	if f.Rule == "" && rr != nil {
		f.Rule = rr.ID
	}
	if f.Severity == "" && rr != nil {
		f.Severity = rr.DefaultLevel
	}
	if f.Severity == "" {
		f.Severity = "warning" // SARIF's default level
	}
	f.Message = message(&res.Message, rr)
	if res.HasLoc {
		uri := res.URI
		if uri == "" {
			if i := res.URIIndex.get(); i >= 0 && i < len(r.Artifacts) {
				uri = r.Artifacts[i]
			}
		}
		f.File = NormalizePath(uri)
		if s := res.StartLine.get(); s > 0 {
			f.StartLine = s
			f.EndLine = s
			if e := res.EndLine.get(); e >= s {
				f.EndLine = e
			}
		}
	}
	var c cweSet
	if rr != nil {
		c.tags(rr.Properties.Tags)
		c.property(rr.Properties)
		for i := range rr.Relationships {
			c.reference(&rr.Relationships[i], r, cweTax)
		}
	}
	c.tags(res.Properties.Tags)
	c.property(res.Properties)
	for i := range res.Taxa {
		c.reference(&res.Taxa[i], r, cweTax)
	}
	if len(c.list) == 0 {
		c.text(f.Message)
	}
	f.CWE = c.list
	return f
}

// message is the result's text, else its rule's message string, with {N} arguments filled in.
func message(m *rawMessage, rr *rawRule) string {
	text := m.Text
	if text == "" && m.ID != "" && rr != nil {
		text = rr.MessageStrings[m.ID]
	}
	if len(m.Arguments) == 0 || !strings.Contains(text, "{") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '{' {
			if j := strings.IndexByte(text[i:], '}'); j > 1 {
				if n, err := strconv.Atoi(text[i+1 : i+j]); err == nil && n >= 0 && n < len(m.Arguments) {
					b.WriteString(m.Arguments[n])
					i += j
					continue
				}
			}
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// NormalizePath turns an artifact URI into a slash-separated path: percent-decoded, without a
// file: scheme, with Windows drive letters kept ("file:///C:/x/y.c" → "C:/x/y.c") and without a
// leading "./". A relative URI stays relative (its uriBaseId, e.g. %SRCROOT%, is dropped).
func NormalizePath(uri string) string {
	if uri == "" {
		return ""
	}
	p := uri
	if strings.HasPrefix(strings.ToLower(p), "file:") {
		p = p[len("file:"):]
		if strings.HasPrefix(p, "//") {
			p = p[2:]
			// file://host/path: drop a host other than localhost.
			if i := strings.IndexByte(p, '/'); i > 0 && !isDrive(p[:i]) {
				p = p[i:]
			}
		}
		if len(p) >= 3 && p[0] == '/' && isDrive(p[1:3]) {
			p = p[1:]
		}
	}
	if strings.Contains(p, "%") {
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
	}
	p = strings.ReplaceAll(p, `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

func isDrive(s string) bool {
	return len(s) == 2 && s[1] == ':' && (s[0]|0x20) >= 'a' && (s[0]|0x20) <= 'z'
}

// cweSet collects CWE ids in the order found, each once, as "CWE-N".
type cweSet struct {
	list []string
}

func (c *cweSet) add(n string) {
	n = strings.TrimLeft(n, "0")
	if n == "" {
		return
	}
	id := "CWE-" + n
	for _, x := range c.list {
		if x == id {
			return
		}
	}
	c.list = append(c.list, id)
}

var (
	// external/cwe/cwe-79 (CodeQL, Bandit, njsscan) and "CWE-327: ..." (Semgrep).
	tagRE = regexp.MustCompile(`(?i)^(?:external/cwe/)?cwe[-_ ]?(\d+)\b`)
	// A CWE named anywhere in a text.
	textRE = regexp.MustCompile(`(?i)\bcwe[-_ ]?(\d+)\b`)
)

func (c *cweSet) tags(tags []string) {
	for _, t := range tags {
		if m := tagRE.FindStringSubmatch(t); m != nil {
			c.add(m[1])
		}
	}
}

// property reads properties.cwe: "CWE-798: ...", "79", 79, or a list of those.
func (c *cweSet) property(p rawProperties) {
	one := func(v []byte, t jsonparser.ValueType) {
		s := scalar(v, t)
		if digits(s) {
			c.add(s)
			return
		}
		for _, m := range textRE.FindAllStringSubmatch(s, -1) {
			c.add(m[1])
		}
	}
	switch p.CWEType {
	case jsonparser.Array:
		_, _ = jsonparser.ArrayEach(p.CWE, func(v []byte, t jsonparser.ValueType, _ int, _ error) { one(v, t) })
	case jsonparser.String, jsonparser.Number:
		one(p.CWE, p.CWEType)
	}
}

// reference reads a relationship target or a result's taxon when it points into a CWE taxonomy
// (by the component's name or by its index among the run's taxonomies).
func (c *cweSet) reference(ref *rawReference, r *rawRun, cweTax map[int]bool) {
	isCWE := strings.EqualFold(ref.ToolComponentName, "CWE") || cweTax[ref.ToolComponentIndex.get()]
	id := ref.ID
	if !isCWE {
		// An id written "CWE-N" says so itself.
		if m := tagRE.FindStringSubmatch(id); m != nil {
			c.add(m[1])
		}
		return
	}
	if id == "" {
		if i, t := ref.Index.get(), ref.ToolComponentIndex.get(); t >= 0 && t < len(r.Taxonomies) && i >= 0 && i < len(r.Taxonomies[t].Taxa) {
			id = r.Taxonomies[t].Taxa[i].ID
		}
	}
	if m := tagRE.FindStringSubmatch(id); m != nil {
		c.add(m[1])
	} else if digits(id) {
		c.add(id)
	}
}

// digits reports whether s is a number as a CWE id is written: ASCII digits only. (strconv.Atoi
// also takes a sign, which made "CWE--79" of properties.cwe -79.)
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// text is the last resort: CWEs named in the message.
func (c *cweSet) text(s string) {
	if !strings.Contains(strings.ToLower(s), "cwe") {
		return
	}
	for _, m := range textRE.FindAllStringSubmatch(s, -1) {
		c.add(m[1])
	}
}
