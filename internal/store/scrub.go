package store

import (
	"os"

	redaction "github.com/vulnbench/vulnbench/internal/redact"
)

// scrub is text with secrets removed (package redact: the keys in the environment, DSN passwords, URL
// user-info, Authorization values, provider-key shapes), for every reason, raw reply,
// explanation and trace event text stored: a provider error echoing a key stores none of it.
func (s *Store) scrub(text string) string {
	if text == "" {
		return ""
	}
	s.scrubOnce.Do(func() { s.scrubber = redaction.FromEnv(os.Getenv) })
	return s.scrubber.String(text)
}
