// Package sast runs classic static analysers on a case's code and turns their findings into
// verdicts.
package sast

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/trace"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Flawfinder runs David Wheeler's flawfinder on each case's code. A case is vul when some hit
// reaches MinLevel; the score is the highest hit level divided by 5; the CWEs are those of the
// highest-level hits.
type Flawfinder struct {
	MinLevel int
	Binary   string // defaults to "flawfinder"
	version  string
}

// NewFlawfinder checks the level and asks the binary for its version.
func NewFlawfinder(ctx context.Context, minLevel int) (*Flawfinder, error) {
	if minLevel < 0 || minLevel > 5 {
		return nil, fmt.Errorf("flawfinder: --min-level %d is outside 0..5", minLevel)
	}
	f := &Flawfinder{MinLevel: minLevel, Binary: "flawfinder"}
	out, err := exec.CommandContext(ctx, f.Binary, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("flawfinder --version: %w (install it with: apt-get install flawfinder)", err)
	}
	f.version = strings.TrimSpace(string(out))
	return f, nil
}

// FlawfinderVersion is the version of the flawfinder subject (how hits become verdicts).
const FlawfinderVersion = "1"

// FlawfinderLanguages are the languages flawfinder reads.
var FlawfinderLanguages = []string{"c", "cpp", "c++"}

// FlawfinderConfig is the flawfinder subject's configuration.
type FlawfinderConfig struct {
	MinLevel int `json:"min_level"`
}

// Validate implements subject.Config.
func (c FlawfinderConfig) Validate() error {
	if c.MinLevel < 0 || c.MinLevel > 5 {
		return fmt.Errorf("flawfinder: --min-level %d is outside 0..5", c.MinLevel)
	}
	return nil
}

// Describe is what the run's manifest records beyond the config: the tool and its version.
func (f *Flawfinder) Describe() map[string]any {
	return map[string]any{"tool": "flawfinder", "version": f.version, "min_level": f.MinLevel}
}

// Assess implements subject.Subject.
func (f *Flawfinder) Assess(ctx context.Context, u subject.Unit, env *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	if c.Code == "" {
		return verdict.Verdict{}, fmt.Errorf("flawfinder: case %s has no code to scan", c.ID)
	}
	dir, err := os.MkdirTemp("", "vulnbench-flawfinder-")
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("flawfinder: %w", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "case"+Extension(c.Language))
	if err := os.WriteFile(file, []byte(c.Code), 0o600); err != nil {
		return verdict.Verdict{}, fmt.Errorf("flawfinder: %w", err)
	}
	cmd := exec.CommandContext(ctx, f.Binary, "--csv", "--minlevel=0", "--quiet", "--dataonly", file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return verdict.Verdict{}, fmt.Errorf("flawfinder: %w", ctx.Err())
		}
		return verdict.Verdict{}, fmt.Errorf("flawfinder failed: %v: %s", err, firstLine(stderr.String()))
	}
	hits, err := ParseFlawfinderCSV(&stdout)
	if err != nil {
		return verdict.Verdict{}, err
	}
	env.Trace.Record(trace.Event{Kind: trace.Note, Name: "flawfinder", Content: fmt.Sprintf("flawfinder %s: %d hits", f.version, len(hits))})
	return f.verdictOf(hits), nil
}

func (f *Flawfinder) verdictOf(hits []Hit) verdict.Verdict {
	max := -1
	for _, h := range hits {
		if h.Level > max {
			max = h.Level
		}
	}
	v := verdict.Verdict{Status: verdict.OK, Label: suite.Ben, Score: verdict.Float(0), ScoreSource: verdict.FromTool}
	for _, h := range hits {
		v.Findings = append(v.Findings, verdict.Finding{StartLine: h.Line, EndLine: h.Line, Rule: h.Name,
			CWE: h.CWEs, Severity: strconv.Itoa(h.Level), Message: fmt.Sprintf("%s (level %d)", h.Name, h.Level)})
	}
	if max < 0 {
		v.Explanation = "no hits"
		return v
	}
	v.Score = verdict.Float(float64(max) / 5)
	if max >= f.MinLevel {
		v.Label = suite.Vul
	}
	seen := map[string]bool{}
	var notes []string
	for _, h := range hits {
		if h.Level != max {
			continue
		}
		notes = append(notes, fmt.Sprintf("line %d: %s (level %d)", h.Line, h.Name, h.Level))
		for _, w := range h.CWEs {
			if !seen[w] {
				seen[w] = true
				v.CWE = append(v.CWE, w)
			}
		}
	}
	v.Explanation = fmt.Sprintf("%d hits; highest level %d: %s", len(hits), max, strings.Join(notes, "; "))
	return v
}

// Hit is one flawfinder finding.
type Hit struct {
	Line  int
	Level int
	Name  string
	CWEs  []string
}

var cweRE = regexp.MustCompile(`CWE-\d+`)

// ParseFlawfinderCSV reads flawfinder's --csv output.
func ParseFlawfinderCSV(r io.Reader) ([]Hit, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("flawfinder output: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range []string{"Line", "Level", "Name", "CWEs"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("flawfinder output: no %q column in header %q (is this flawfinder 2.x?)", need, strings.Join(header, ","))
		}
	}
	var hits []Hit
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return hits, nil
		}
		if err != nil {
			return nil, fmt.Errorf("flawfinder output: %w", err)
		}
		get := func(name string) string {
			if i := col[name]; i < len(rec) {
				return rec[i]
			}
			return ""
		}
		line, err1 := strconv.Atoi(get("Line"))
		level, err2 := strconv.Atoi(get("Level"))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("flawfinder output: bad line or level in %q", strings.Join(rec, ","))
		}
		hits = append(hits, Hit{Line: line, Level: level, Name: get("Name"), CWEs: cweRE.FindAllString(get("CWEs"), -1)})
	}
}

// Extension returns the file extension tools expect for a case's language.
func Extension(language string) string {
	switch strings.ToLower(language) {
	case "cpp", "c++", "cxx":
		return ".cpp"
	case "java":
		return ".java"
	case "python", "py":
		return ".py"
	case "go":
		return ".go"
	case "javascript", "js":
		return ".js"
	case "typescript", "ts":
		return ".ts"
	case "php":
		return ".php"
	case "ruby", "rb":
		return ".rb"
	case "csharp", "c#", "cs":
		return ".cs"
	case "bash", "shell", "sh":
		return ".sh"
	}
	return ".c"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
