// Package probe holds the parts of the memorisation probe (`vulnbench probe memory`, issue 24
// item 5; VEX-Bench's contamination check) that need no model: cutting a case's code into a
// prefix shown to the model and the continuation it must not know, checking an answer for an
// exact continuation, the shuffled control that gives the share expected by chance, and the
// table per year of the cases' dates (FromRun: from a stored run's cases and verdicts). The run
// that asks a model (resumable, cached, priced) is the memory-probe subject kind,
// internal/subject/memprobe, run by the runner like any other.
package probe

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"
)

// Defaults of Options.
const (
	DefaultTokens    = 10
	DefaultFraction  = 0.5
	DefaultMinPrefix = 20
)

// Options say where code is cut and how much of the continuation must match.
type Options struct {
	Tokens    int     // tokens of the continuation an answer must reproduce exactly; default 10
	Fraction  float64 // the cut is at the line boundary nearest this share of the code's lines; default 0.5
	MinPrefix int     // tokens the prefix has at least; default 20
}

func (o Options) withDefaults() Options {
	if o.Tokens <= 0 {
		o.Tokens = DefaultTokens
	}
	if o.Fraction <= 0 || o.Fraction >= 1 {
		o.Fraction = DefaultFraction
	}
	if o.MinPrefix <= 0 {
		o.MinPrefix = DefaultMinPrefix
	}
	return o
}

// Probe is one case cut for the probe.
type Probe struct {
	CaseID string
	Year   string   // the year of the case's date; "" when undated
	Lang   string   // the case's language, named in the prompt; set by the caller
	Prefix string   // the code up to the cut: whole lines, ending with a newline
	Want   []string // the first Tokens tokens after the cut
}

// prompt is what decides the prompt the model sees: cases that share it (the two halves of a
// pair whose change comes after the cut) get the same question, and the same answer.
func (p Probe) prompt() string { return strings.ToLower(p.Lang) + "\x00" + p.Prefix }

// ErrTooShort says a case's code is too short to cut: fewer than MinPrefix tokens before any
// line boundary that leaves Tokens tokens after it.
type ErrTooShort struct{ CaseID string }

func (e *ErrTooShort) Error() string {
	return fmt.Sprintf("case %s: the code is too short to cut for the memorisation probe", e.CaseID)
}

// Cut cuts code at a line boundary: the one nearest opts.Fraction of its lines that leaves at
// least MinPrefix tokens before it and Tokens tokens after it.
func Cut(caseID, date, code string, opts Options) (Probe, error) {
	opts = opts.withDefaults()
	lines := strings.SplitAfter(code, "\n")
	before := make([]int, len(lines)+1) // tokens in lines[:i]
	for i, l := range lines {
		before[i+1] = before[i] + len(Tokens(l))
	}
	total := before[len(lines)]
	target := int(float64(len(lines))*opts.Fraction + 0.5)
	best := -1
	for i := 1; i < len(lines); i++ {
		if before[i] < opts.MinPrefix || total-before[i] < opts.Tokens {
			continue
		}
		if best < 0 || abs(i-target) < abs(best-target) {
			best = i
		}
	}
	if best < 0 {
		return Probe{}, &ErrTooShort{CaseID: caseID}
	}
	p := Probe{CaseID: caseID, Prefix: strings.Join(lines[:best], "")}
	if len(date) >= 4 {
		p.Year = date[:4]
	}
	p.Want = Tokens(strings.Join(lines[best:], ""))[:opts.Tokens]
	return p, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Tokens splits code into lexical tokens, white space dropped: identifiers and numbers
// (letters, digits, underscores), string and character literals whole, and every other
// character alone. It is the unit "the next ten tokens" counts in: the same for every model,
// whatever its own tokenizer.
func Tokens(code string) []string {
	var out []string
	rs := []rune(code)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i + 1
			for j < len(rs) && (rs[j] == '_' || unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			out = append(out, string(rs[i:j]))
			i = j
		case r == '"' || r == '\'' || r == '`':
			j := i + 1
			for j < len(rs) && rs[j] != r && rs[j] != '\n' {
				if rs[j] == '\\' && r != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(rs))
			out = append(out, string(rs[i:j]))
			i = j
		default:
			out = append(out, string(r))
			i++
		}
	}
	return out
}

// MaxPreamble is how many lines an answer without a code fence may put before the code.
const MaxPreamble = 2

// Rule states how Continues reads an answer, for the probe's report.
const Rule = "an answer continues a case when, read from its first Markdown code fence if it has one (else from the start of any of its first three non-blank lines: a preamble of up to two lines is skipped), and after a repetition of the prefix's last line, its first tokens are the case's next tokens exactly (lexical tokens, white space ignored)"

// Continues reports whether answer continues the probe exactly, by Rule: its first len(want)
// tokens are want's, read from the first code fence's contents when it has a fence, else from the
// start of one of its first MaxPreamble+1 non-blank lines ("Here is the rest of the file:" and
// the like before the code), after any repetition of the prefix's last line.
func Continues(answer string, prefix string, want []string) bool {
	last := lastLine(prefix)
	for _, got := range starts(answer) {
		// A model may repeat the prefix's last line before continuing: skip it when it does.
		if last != nil && len(got) >= len(last) && equal(got[:len(last)], last) && !equal(last, want[:min(len(last), len(want))]) {
			got = got[len(last):]
		}
		if len(got) >= len(want) && equal(got[:len(want)], want) {
			return true
		}
	}
	return false
}

// starts are the token sequences an answer's continuation may begin with (see Continues).
func starts(answer string) [][]string {
	if code, ok := fenced(answer); ok {
		return [][]string{Tokens(code)}
	}
	var out [][]string
	rest := answer
	for len(out) <= MaxPreamble && strings.TrimSpace(rest) != "" {
		rest = strings.TrimLeft(rest, " \t\r\n")
		out = append(out, Tokens(rest))
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
	}
	return out
}

// fenced is the contents of the answer's first Markdown code fence (to its closing fence or the
// end), and whether it has one.
func fenced(s string) (string, bool) {
	i := strings.Index(s, "```")
	if i < 0 || strings.TrimSpace(s[:i]) != "" && !strings.Contains(s[:i], "\n") {
		return "", false // no fence, or one inside a line of prose
	}
	t := s[i+3:]
	j := strings.IndexByte(t, '\n')
	if j < 0 {
		return "", true
	}
	t = t[j+1:]
	if k := strings.Index(t, "```"); k >= 0 {
		t = t[:k]
	}
	return t, true
}

func lastLine(prefix string) []string {
	lines := strings.Split(strings.TrimRight(prefix, "\n"), "\n")
	t := Tokens(lines[len(lines)-1])
	if len(t) == 0 {
		return nil
	}
	return t
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Result is one prompt's outcome: the cases that share it (their ids in order; the two halves of
// a pair cut before their change are asked the same), whether the answer continued one of
// their codes, and whether it continued the code of the prompt the shuffled control gave it.
type Result struct {
	CaseID    string   // the first of Cases
	Cases     []string // every case asked this prompt
	Year      string
	Memorised bool
	Control   bool
}

// Score checks every prompt's answer (answers by case id; a prompt none of whose cases has one
// is left out; the first case's answer is taken) against its cases' continuations, and against
// the continuations of another prompt drawn by a seeded derangement: the control. A model that
// continues code from its prefix alone, without having seen the case, matches its own
// continuation about as often as a foreign one; the control's share is what the probe's share
// is compared with. Cases sharing a prompt count once.
func Score(probes []Probe, answers map[string]string, seed uint64) []Result {
	type group struct {
		probes []Probe
		answer string
	}
	var groups []*group
	by := map[string]*group{}
	sorted := append([]Probe(nil), probes...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CaseID < sorted[j].CaseID })
	for _, p := range sorted { // each prompt's answer: its first case's that has one
		if a, ok := answers[p.CaseID]; ok && by[p.prompt()] == nil {
			g := &group{answer: a}
			by[p.prompt()] = g
			groups = append(groups, g)
		}
	}
	for _, p := range sorted {
		if g := by[p.prompt()]; g != nil {
			g.probes = append(g.probes, p)
		}
	}
	continues := func(a string, g *group) bool {
		for _, p := range g.probes {
			if Continues(a, p.Prefix, p.Want) {
				return true
			}
		}
		return false
	}
	other := derangement(len(groups), seed)
	out := make([]Result, len(groups))
	for i, g := range groups {
		r := Result{CaseID: g.probes[0].CaseID, Year: g.probes[0].Year, Memorised: continues(g.answer, g)}
		for _, p := range g.probes {
			r.Cases = append(r.Cases, p.CaseID)
		}
		if other != nil {
			r.Control = continues(g.answer, groups[other[i]])
		}
		out[i] = r
	}
	return out
}

// derangement is a seeded permutation of 0..n-1 with no fixed point (nil when n < 2).
func derangement(n int, seed uint64) []int {
	if n < 2 {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	p := r.Perm(n)
	// a random cyclic shift of a random order has no fixed point
	shift := 1 + r.IntN(n-1)
	out := make([]int, n)
	for i := range p {
		out[p[i]] = p[(i+shift)%n]
	}
	return out
}

// Row is one year's (or the whole suite's) counts, over prompts (cases sharing one count once).
type Row struct {
	Year         string  `json:"year"`    // "all" for the total, "(none)" for undated cases
	Prompts      int     `json:"prompts"` // prompts answered
	Cases        int     `json:"cases"`   // the cases they stand for
	Memorised    int     `json:"memorised"`
	Share        float64 `json:"share"` // Memorised / Prompts
	Control      int     `json:"control"`
	ControlShare float64 `json:"control_share"`
}

// Table counts results per year of the cases' dates, oldest first, and in all.
func Table(results []Result) []Row {
	by := map[string]*Row{}
	total := &Row{Year: "all"}
	for _, r := range results {
		y := r.Year
		if y == "" {
			y = "(none)"
		}
		row := by[y]
		if row == nil {
			row = &Row{Year: y}
			by[y] = row
		}
		for _, x := range []*Row{row, total} {
			x.Prompts++
			x.Cases += max(1, len(r.Cases))
			if r.Memorised {
				x.Memorised++
			}
			if r.Control {
				x.Control++
			}
		}
	}
	var out []Row
	for _, r := range by {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Year < out[j].Year })
	out = append(out, *total)
	for i := range out {
		if out[i].Prompts > 0 {
			out[i].Share = float64(out[i].Memorised) / float64(out[i].Prompts)
			out[i].ControlShare = float64(out[i].Control) / float64(out[i].Prompts)
		}
	}
	return out
}
