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
// the llm stack and the agent CLIs read, and cloud credentials.
func KeyEnvs() []string {
	return []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY",
		"OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "TOGETHER_API_KEY", "XAI_API_KEY",
		"AZURE_OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "HF_TOKEN", "GITHUB_TOKEN", "GH_TOKEN",
		"PGPASSWORD", "VULNBENCH_DB"}
}

// shapes are the secrets recognised by their form (never taking a quote or a backslash, so that
// scrubbed JSON stays JSON); each match is replaced by Mark between its
// groups 1 and 2 (what to keep around it).
var shapes = []*regexp.Regexp{
	// the password of a URL's or DSN's user-info: scheme://user:password@host (a user name
	// alone is kept; a token in its place is caught by its shape or as a known value)
	regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s@"'<>\\:]*:)[^/\s@"'<>\\]+(@)`),
	// libpq keyword DSNs and query parameters: password=..., sslpassword=...
	regexp.MustCompile(`(?i)(\b(?:ssl)?password\s*=\s*)(?:'[^']*'|[^\s&'"\\]+)`),
	// headers, in HTTP, JSON or a dump: Authorization: Bearer x, "x-api-key": "x", api_key=x
	regexp.MustCompile(`(?i)((?:proxy-)?authorization"?\s*[:=]\s*"?(?:bearer\s+|basic\s+|token\s+)?)[^\s"',;}\\[]+`),
	regexp.MustCompile(`(?i)((?:x-api-key|x-goog-api-key|api[_-]?key|access[_-]?token)"?\s*[:=]\s*"?)[^\s"',;}&\\[]+`),
	// provider key shapes
	regexp.MustCompile(`()\bsk-ant-[A-Za-z0-9_-]{8,}`),
	regexp.MustCompile(`()\bsk-[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`()\bAIza[0-9A-Za-z_-]{30,}`),
	regexp.MustCompile(`()\b(?:ghp|gho|ghs|ghu|github_pat)_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`()\bAKIA[0-9A-Z]{16}\b`),
	regexp.MustCompile(`()\bhf_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`()\bxox[abprs]-[A-Za-z0-9-]{10,}`),
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
	for _, re := range shapes {
		s = re.ReplaceAllString(s, "${1}"+Mark+"${2}")
	}
	return s
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
