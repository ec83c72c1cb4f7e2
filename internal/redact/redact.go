// Package redact is the one scrubber of secrets for every message, error, trace and stored
// reason: the values of the environment variables that hold keys (KeyEnvs), the passwords of
// the user-info of URLs and DSNs (and libpq's password=), Authorization and x-api-key values, and anything shaped like a
// provider's key (sk-..., sk-ant-..., AIza..., ghp_..., AKIA..., hf_...).
package redact

import (
	"io"
	"regexp"
	"slices"
	"strings"
)

// Mark replaces what is scrubbed.
const Mark = "[redacted]"

// KeyEnvs are the environment variables whose values are secrets wherever they appear: the keys
// the llm stack and the agent CLIs read, and cloud credentials. (VULNBENCH_DB is an address: a
// password in it is scrubbed by its shape, the rest is kept, as a file path must be.)
func KeyEnvs() []string {
	return []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY",
		"OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "TOGETHER_API_KEY", "XAI_API_KEY",
		"AZURE_OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "HF_TOKEN", "GITHUB_TOKEN", "GH_TOKEN",
		"PGPASSWORD"}
}

// shapes are the secrets recognised by their form (never taking a quote or a backslash, so that
// scrubbed JSON stays JSON); each match is replaced by Mark between its groups 1 and 2 (what to
// keep around it). Each shape names the literals one of which every match holds (lower case
// when the shape ignores case): text holding none is not searched, which keeps the scrubbing of
// every stored reply and cached response cheap (the regexps cost a third of a plain-LLM run's CPU).
var shapes = []shape{
	// the password of a URL's or DSN's user-info: scheme://user:password@host (a user name
	// alone is kept; a token in its place is caught by its shape or as a known value)
	{regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s@"'<>\\:]*:)[^/\s@"'<>\\]+(@)`), false, []string{"://"}},
	// libpq keyword DSNs and query parameters: password=..., sslpassword=...
	{regexp.MustCompile(`(?i)(\b(?:ssl)?password\s*=\s*)(?:'[^']*'|[^\s&'"\\]+)`), true, []string{"password"}},
	// headers, in HTTP, JSON or a dump: Authorization: Bearer x, "x-api-key": "x", api_key=x
	{regexp.MustCompile(`(?i)((?:proxy-)?authorization"?\s*[:=]\s*"?(?:bearer\s+|basic\s+|token\s+)?)[^\s"',;{}\\[]+`), true, []string{"authorization"}},
	{regexp.MustCompile(`(?i)((?:x-api-key|x-goog-api-key|api[_-]?key|access[_-]?token)"?\s*[:=]\s*"?)[^\s"',;{}&\\[]+`), true, []string{"api_key", "api-key", "apikey", "access_token", "access-token", "accesstoken"}},
	// provider key shapes
	{regexp.MustCompile(`()\bsk-ant-[A-Za-z0-9_-]{8,}`), false, []string{"sk-ant-"}},
	{regexp.MustCompile(`()\bsk-[A-Za-z0-9_-]{16,}`), false, []string{"sk-"}},
	{regexp.MustCompile(`()\bAIza[0-9A-Za-z_-]{30,}`), false, []string{"AIza"}},
	{regexp.MustCompile(`()\b(?:ghp|gho|ghs|ghu|github_pat)_[A-Za-z0-9_]{20,}`), false, []string{"ghp_", "gho_", "ghs_", "ghu_", "github_pat_"}},
	{regexp.MustCompile(`()\bAKIA[0-9A-Z]{16}\b`), false, []string{"AKIA"}},
	{regexp.MustCompile(`()\bhf_[A-Za-z0-9]{20,}`), false, []string{"hf_"}},
	{regexp.MustCompile(`()\bxox[abprs]-[A-Za-z0-9-]{10,}`), false, []string{"xox"}},
}

// shape is a secret's form and the literals one of which each of its matches holds.
type shape struct {
	re   *regexp.Regexp
	fold bool     // the regexp ignores case: lits are lower case, searched in the lowered text
	lits []string // nil: always searched
}

// mayMatch says whether s (and lower, s in lower case when it is ASCII, else "") can hold a match.
// Text that is not ASCII is always searched where case is ignored: Unicode folds some
// non-ASCII letters to ASCII ones (K, the Kelvin sign, is k) that strings.ToLower keeps.
func (sh shape) mayMatch(s, lower string) bool {
	in := s
	if sh.fold {
		if lower == "" {
			return true
		}
		in = lower
	}
	for _, l := range sh.lits {
		if strings.Contains(in, l) {
			return true
		}
	}
	return len(sh.lits) == 0
}

// Scrubber scrubs text of known secrets and of secret-shaped strings.
type Scrubber struct {
	known []string // longest first, so that a key containing another goes whole
}

// minKnown is the shortest known value scrubbed (shorter ones would eat ordinary words).
const minKnown = 6

// New is a scrubber of the known values (and of every shape).
func New(known ...string) *Scrubber {
	s := &Scrubber{}
	for _, k := range known {
		if k = strings.TrimSpace(k); len(k) >= minKnown && !slices.Contains(s.known, k) {
			s.known = append(s.known, k)
		}
	}
	slices.SortFunc(s.known, func(a, b string) int { return len(b) - len(a) })
	return s
}

// FromEnv is a scrubber of the values of KeyEnvs read through getenv, and of the password of a
// DSN held in one of them.
func FromEnv(getenv func(string) string) *Scrubber {
	var known []string
	for _, name := range KeyEnvs() {
		if v := getenv(name); v != "" {
			known = append(known, v)
		}
	}
	return New(known...)
}

// String is s scrubbed.
func (sc *Scrubber) String(s string) string {
	if sc != nil {
		for _, k := range sc.known {
			s = strings.ReplaceAll(s, k, Mark)
		}
	}
	lower := ""
	if isASCII(s) {
		lower = strings.ToLower(s)
	}
	for _, sh := range shapes {
		if sh.mayMatch(s, lower) {
			s = sh.replace(s)
		}
	}
	return s
}

// replace puts Mark in place of each secret the shape matches in s, between its groups 1 and
// 2; a documented placeholder in that place (export OPENAI_API_KEY=..., --db
// postgres://vb:SECRET@host) is no secret and is kept.
func (sh shape) replace(s string) string {
	ms := sh.re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		from, to := m[3], m[1] // after group 1; before group 2, or the match's end
		if len(m) > 5 && m[4] >= 0 {
			to = m[4]
		}
		if placeholder(s[from:to]) {
			continue
		}
		b.WriteString(s[last:from])
		b.WriteString(Mark)
		last = to
	}
	b.WriteString(s[last:])
	return b.String()
}

// placeholder reports whether a secret's place holds a documented stand-in, not a value:
// dots (...), <angle brackets>, a $VARIABLE, or an upper-case word naming a key, token, secret
// or password (YOUR_API_KEY, SECRET).
func placeholder(v string) bool {
	v = strings.Trim(v, `"'`)
	switch {
	case v == "":
		return false
	case strings.Trim(v, ".…") == "":
		return true
	case strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">"):
		return true
	case envReference.MatchString(v):
		return true
	}
	return len(v) <= 24 && upperWord.MatchString(v) &&
		(strings.Contains(v, "KEY") || strings.Contains(v, "TOKEN") || strings.Contains(v, "SECRET") || strings.Contains(v, "PASSWORD"))
}

var (
	envReference = regexp.MustCompile(`^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$`)
	upperWord    = regexp.MustCompile(`^[A-Z][A-Z_]*$`)
)

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Writer is w with everything written through it scrubbed (each Write on its own: callers write
// whole lines, as fmt.Fprintf does).
func (sc *Scrubber) Writer(w io.Writer) io.Writer { return writer{w: w, sc: sc} }

type writer struct {
	w  io.Writer
	sc *Scrubber
}

// Fd is the underlying writer's file descriptor (^0 when it has none), so that a terminal
// behind the scrubber is still seen as one.
func (w writer) Fd() uintptr {
	if f, ok := w.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

func (w writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.sc.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
