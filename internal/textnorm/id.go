package textnorm

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxID is the longest id accepted, in bytes.
const MaxID = 512

// CheckID reports why id cannot name a case or a run: empty, longer than MaxID, not UTF-8, or
// holding a character that is not printable (control characters such as a terminal escape,
// format characters such as bidi controls, line breaks). Spaces and any printable character,
// "/" and ".." among them, are allowed: links escape them (PathSegment).
func CheckID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("empty id")
	case len(id) > MaxID:
		return fmt.Errorf("id is %d bytes, over the %d-byte limit", len(id), MaxID)
	case !utf8.ValidString(id):
		return fmt.Errorf("id %q is not valid UTF-8", id)
	}
	for i, r := range id {
		if r != ' ' && (!unicode.IsPrint(r) || unicode.Is(unicode.Cf, r)) {
			return fmt.Errorf("id %q holds the non-printable character %U at byte %d", id, r, i)
		}
	}
	return nil
}

// PathSegment is id escaped as one segment of a URL path: "/" and "%" escaped, and "." and ".."
// (which a browser would resolve) written as %2E, so that the link names id and nothing else.
func PathSegment(id string) string {
	if strings.Trim(id, ".") == "" && id != "" {
		return strings.Repeat("%2E", len(id))
	}
	return url.PathEscape(id)
}

// Clip is s cut to at most n bytes (n > 3) at a character boundary, ending in "..." when cut:
// how a message quotes a value it refuses, valid UTF-8 whatever s holds.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n - 3
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return strings.ToValidUTF8(s[:k], "\uFFFD") + "..."
}
