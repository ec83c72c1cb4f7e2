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
	for _, need := range []string{"system", "user_function", "user_jit", "user_appsec", "examples", "cot_system", "cot_user",
		"user_jit_depaug", "user_jit_agent", "agent_system"} {
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
func (s *Set) Hash(st Strategy) string { return s.HashMode(st, Plain) }

// HashMode is Hash for the jit prompt of mode: Dep-Aug and agent prompts also hash the
// template that defines them (and name the mode); Plain is Hash.
func (s *Set) HashMode(st Strategy, mode Mode) string {
	if _, err := ParseStrategy(string(st)); err != nil {
		return ""
	}
	var names []string
	for name := range s.hashes {
		if usedBy(name, st, mode) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	h := sha256.New()
	fmt.Fprintf(h, "%s\nstrategy %s\n", hashVersion, st)
	if mode != Plain {
		fmt.Fprintf(h, "mode %s\n", mode)
	}
	for _, name := range names {
		fmt.Fprintf(h, "%s %s\n", s.hashes[name], name)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// usedBy says whether strategy st uses the embedded file name: cot.tmpl only under chain of
// thought, fewshot.tmpl and the few-shot data only under few-shot strategies, jit_context.tmpl
// only by the Dep-Aug and agent prompts, the rest always.
func usedBy(name string, st Strategy, mode Mode) bool {
	switch {
	case name == "templates/jit_context.tmpl":
		return mode != Plain
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
	AppSec   bool   // an appsec case: the full structured answer is asked for
	Language string // display name ("C", "Python"); "" when unknown
	Code     string // the case's code, fenced
	Function string // jit: the target function's name
	File     string // jit: the file that defines it, when known
	Examples []exampleView
	Callers  []relatedView // jit, Dep-Aug: the most similar callers
	Callees  []relatedView // jit, Dep-Aug: the most similar callees
}

// relatedView is a caller or callee as the Dep-Aug template shows it.
type relatedView struct {
	Name, File string
	Start, End int
	Code       string // fenced
}

// Related is a function shown as context of a jit case's target (Dep-Aug).
type Related struct {
	Name, File, Language string
	StartLine, EndLine   int
	Code                 string
}

// Mode is what a jit prompt shows besides the target function.
type Mode string

// The modes of a jit prompt.
const (
	Plain  Mode = ""       // the target function alone (the llm subject)
	DepAug Mode = "depaug" // the target and its most similar callers and callees, in one prompt
	Agent  Mode = "agent"  // the target, with tools to explore the repository
)

// Render returns the system and user messages that ask about case c under strategy st. It
// renders function, jit and appsec cases; vex cases need an agent and have no plain prompt.
func (s *Set) Render(st Strategy, c *suite.Case) ([]Message, error) {
	return s.render(st, c, Plain, nil, nil)
}

// RenderDepAug returns the messages that ask about jit case c with the given callers and callees
// of its target function as context (JitVul's Dep-Aug LLM).
func (s *Set) RenderDepAug(st Strategy, c *suite.Case, callers, callees []Related) ([]Message, error) {
	return s.render(st, c, DepAug, callers, callees)
}

// RenderAgent returns the messages that ask an agent about jit case c: the system message says
// that tools explore the repository (the agent loop adds how to call them).
func (s *Set) RenderAgent(st Strategy, c *suite.Case) ([]Message, error) {
	return s.render(st, c, Agent, nil, nil)
}

func (s *Set) render(st Strategy, c *suite.Case, mode Mode, callers, callees []Related) ([]Message, error) {
	if _, err := ParseStrategy(string(st)); err != nil {
		return nil, fmt.Errorf("prompt: %w", err)
	}
	if c == nil {
		return nil, errors.New("prompt: no case")
	}
	d := data{Strategy: st, CoT: st.cot(), FewShot: st.fewShot(), Kind: c.Kind, AppSec: c.Kind == suite.KindAppSec}
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
	if mode != Plain && c.Kind != suite.KindJIT {
		return nil, fmt.Errorf("prompt: case %q: the %s prompt is for jit cases, not %s", c.ID, mode, c.Kind)
	}
	for _, r := range callers {
		d.Callers = append(d.Callers, relatedOf(r, c.Language))
	}
	for _, r := range callees {
		d.Callees = append(d.Callees, relatedOf(r, c.Language))
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
	userTmpl := "user_" + string(c.Kind)
	switch mode {
	case DepAug:
		userTmpl = "user_jit_depaug"
	case Agent:
		userTmpl = "user_jit_agent"
		more, err := s.exec("agent_system", d)
		if err != nil {
			return nil, fmt.Errorf("prompt: case %q: %w", c.ID, err)
		}
		sys += "\n\n" + more
	}
	user, err := s.exec(userTmpl, d)
	if err != nil {
		return nil, fmt.Errorf("prompt: case %q: %w", c.ID, err)
	}
	return []Message{{Role: RoleSystem, Content: sys}, {Role: RoleUser, Content: user}}, nil
}

func relatedOf(r Related, caseLang string) relatedView {
	lang := r.Language
	if lang == "" {
		lang = caseLang
	}
	return relatedView{Name: oneLine(r.Name), File: oneLine(r.File), Start: r.StartLine, End: r.EndLine, Code: codeBlock(r.Code, lang)}
}

func (s *Set) exec(name string, d data) (string, error) {
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, d); err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}
