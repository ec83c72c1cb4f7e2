// Package prompt holds the plain-LLM prompts: embedded text/template files for the four prompting
// strategies of JitVul (vanilla, cot, fs, cot+fs), the ten few-shot example pairs, and the parser
// that turns a model's reply into an Answer.
//
// The prompts ask for one small JSON object as the answer:
//
//	{"vulnerable": true, "cwe": "CWE-787", "confidence": 0.9, "reason": "one sentence"}
//
// with the reasoning before it under chain of thought. Parse also accepts JitVul's answer markers
// (@@VULNERABLE@@, @@NOT VULNERABLE@@, @@CWE: X@@) as a fallback, but the prompts do not mention
// them: offering two answer formats invites replies that use both and disagree, and the markers add
// nothing over the JSON object except for outputs produced by other prompt sets (JitVul's own),
// which Parse therefore still reads.
package prompt

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"text/template"

	"github.com/vulnbench/vulnbench/internal/suite"
)

//go:embed templates/*.tmpl fewshot/*.yaml
var files embed.FS

// Strategy is a prompting strategy.
type Strategy string

// The four prompting strategies of JitVul.
const (
	Vanilla Strategy = "vanilla" // the question alone
	CoT     Strategy = "cot"     // "solve this problem step by step": reasoning before the answer
	FS      Strategy = "fs"      // ten few-shot example pairs before the question
	CoTFS   Strategy = "cot+fs"  // both
)

// Strategies lists the four strategies in a stable order.
func Strategies() []Strategy { return []Strategy{Vanilla, CoT, FS, CoTFS} }

// ParseStrategy reads a strategy name as written on the command line.
func ParseStrategy(s string) (Strategy, error) {
	for _, st := range Strategies() {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown prompting strategy %q: use vanilla, cot, fs or cot+fs", s)
}

func (st Strategy) cot() bool     { return st == CoT || st == CoTFS }
func (st Strategy) fewShot() bool { return st == FS || st == CoTFS }

// Roles of the messages Render returns.
const (
	RoleSystem = "system"
	RoleUser   = "user"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// hashVersion is mixed into every Hash: bump it when the Go code that prepares template data
// (fences, language names, example layout) changes what the prompts say.
const hashVersion = "vulnbench-prompt/1"

// Set is the parsed templates and few-shot examples. It is safe for concurrent use.
type Set struct {
	tmpl     *template.Template
	examples []pair
	views    []exampleView
	hashes   map[string]string // file name in the embedded tree -> sha256 hex
}

// New parses every template and loads and checks the few-shot examples.
func New() (*Set, error) { return newSet(files) }

func newSet(fsys fs.FS) (*Set, error) {
	s := &Set{hashes: map[string]string{}}
	tmpls, err := fs.Glob(fsys, "templates/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("prompt: list templates: %w", err)
	}
	if len(tmpls) == 0 {
		return nil, errors.New("prompt: no templates")
	}
	root := template.New("prompt").Option("missingkey=error")
	for _, name := range tmpls {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("prompt: %w", err)
		}
		s.hashes[name] = sum(b)
		if _, err := root.New(path.Base(name)).Parse(string(b)); err != nil {
			return nil, fmt.Errorf("prompt: parse %s: %w", name, err)
		}
	}
	for _, need := range []string{"system", "user_function", "user_jit", "user_appsec", "examples", "cot_system", "cot_user"} {
		if root.Lookup(need) == nil {
			return nil, fmt.Errorf("prompt: no template defines %q", need)
		}
	}
	s.tmpl = root

	shots, err := fs.Glob(fsys, "fewshot/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("prompt: list few-shot examples: %w", err)
	}
	slices.Sort(shots)
	for _, name := range shots {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("prompt: %w", err)
		}
		s.hashes[name] = sum(b)
		p, err := decodePair(b)
		if err != nil {
			return nil, fmt.Errorf("prompt: %s: %w", name, err)
		}
		s.examples = append(s.examples, p)
	}
	if err := checkPairs(s.examples); err != nil {
		return nil, fmt.Errorf("prompt: few-shot examples: %w", err)
	}
	for i, p := range s.examples {
		v, err := p.view(i + 1)
		if err != nil {
			return nil, fmt.Errorf("prompt: few-shot example %s: %w", p.CWE, err)
		}
		s.views = append(s.views, v)
	}
	return s, nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Hashes returns the sha256 (hex) of every template file and few-shot data file, keyed by their
// path in the embedded tree (templates/system.tmpl, fewshot/01-cwe-787.yaml, ...), for a run's
// manifest. The map is a fresh copy.
func (s *Set) Hashes() map[string]string {
	out := make(map[string]string, len(s.hashes))
	for k, v := range s.hashes {
		out[k] = v
	}
	return out
}

// Hash returns one sha256 (hex) over everything strategy st uses: its name, the templates it
// executes and, for few-shot strategies, the few-shot data. It is "" for an unknown strategy.
func (s *Set) Hash(st Strategy) string {
	if _, err := ParseStrategy(string(st)); err != nil {
		return ""
	}
	var names []string
	for name := range s.hashes {
		if usedBy(name, st) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	h := sha256.New()
	fmt.Fprintf(h, "%s\nstrategy %s\n", hashVersion, st)
	for _, name := range names {
		fmt.Fprintf(h, "%s %s\n", s.hashes[name], name)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// usedBy says whether strategy st uses the embedded file name: cot.tmpl only under chain of
// thought, fewshot.tmpl and the few-shot data only under few-shot strategies, the rest always.
func usedBy(name string, st Strategy) bool {
	switch {
	case name == "templates/cot.tmpl":
		return st.cot()
	case name == "templates/fewshot.tmpl", strings.HasPrefix(name, "fewshot/"):
		return st.fewShot()
	}
	return true
}

// data is what the templates see.
type data struct {
	Strategy Strategy
	CoT      bool
	FewShot  bool
	Kind     suite.Kind
	Language string // display name ("C", "Python"); "" when unknown
	Code     string // the case's code, fenced
	Function string // jit: the target function's name
	File     string // jit: the file that defines it, when known
	Examples []exampleView
}

// Render returns the system and user messages that ask about case c under strategy st. It
// renders function, jit and appsec cases; vex cases need an agent and have no plain prompt.
func (s *Set) Render(st Strategy, c *suite.Case) ([]Message, error) {
	if _, err := ParseStrategy(string(st)); err != nil {
		return nil, fmt.Errorf("prompt: %w", err)
	}
	if c == nil {
		return nil, errors.New("prompt: no case")
	}
	d := data{Strategy: st, CoT: st.cot(), FewShot: st.fewShot(), Kind: c.Kind}
	switch c.Kind {
	case suite.KindFunction, suite.KindAppSec:
	case suite.KindJIT:
		if c.Target == nil || strings.TrimSpace(c.Target.Function) == "" {
			return nil, fmt.Errorf("prompt: case %q: a jit case needs target.function", c.ID)
		}
		d.Function = oneLine(c.Target.Function)
		d.File = oneLine(c.Target.File)
	default:
		return nil, fmt.Errorf("prompt: case %q: kind %q has no plain-LLM prompt (only function, jit and appsec do)", c.ID, c.Kind)
	}
	if strings.TrimSpace(c.Code) == "" {
		return nil, fmt.Errorf("prompt: case %q: no code to show", c.ID)
	}
	d.Language = languageName(c.Language)
	d.Code = codeBlock(c.Code, c.Language)
	if d.FewShot {
		d.Examples = s.views
	}
	sys, err := s.exec("system", d)
	if err != nil {
		return nil, fmt.Errorf("prompt: case %q: %w", c.ID, err)
	}
	user, err := s.exec("user_"+string(c.Kind), d)
	if err != nil {
		return nil, fmt.Errorf("prompt: case %q: %w", c.ID, err)
	}
	return []Message{{Role: RoleSystem, Content: sys}, {Role: RoleUser, Content: user}}, nil
}

func (s *Set) exec(name string, d data) (string, error) {
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, d); err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}
