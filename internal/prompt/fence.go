package prompt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fence returns the backtick fence for code: one backtick longer than the longest run of
// backticks anywhere in code, and at least three. No line of code can then close the block (a
// closing fence must be at least as long as the opening one), so a case's code (or a tool's
// observation, in the agent loop) cannot end its block early and have the rest of it read as
// instructions or as an answer.
func Fence(code string) string {
	return strings.Repeat("`", max(3, longestRun(code, '`')+1))
}

// longestRun is the length of the longest run of consecutive c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// codeBlock fences code verbatim, with language's tag as the info string.
func codeBlock(code, language string) string {
	f := Fence(code)
	var b strings.Builder
	b.Grow(len(code) + 2*len(f) + 16)
	b.WriteString(f)
	b.WriteString(fenceTag(language))
	b.WriteByte('\n')
	b.WriteString(code)
	if !strings.HasSuffix(code, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(f)
	return b.String()
}

// canonicalLanguage maps the spellings a suite may use to one key.
func canonicalLanguage(language string) string {
	l := strings.ToLower(strings.TrimSpace(language))
	switch l {
	case "c++", "cxx", "cc", "hpp":
		return "cpp"
	case "h":
		return "c"
	case "py", "python3":
		return "python"
	case "js", "node", "nodejs":
		return "javascript"
	case "ts":
		return "typescript"
	case "golang":
		return "go"
	case "c#", "cs":
		return "csharp"
	case "rb":
		return "ruby"
	case "sh", "shell":
		return "bash"
	case "tf", "terraform":
		return "hcl"
	case "yml":
		return "yaml"
	case "kt":
		return "kotlin"
	case "rs":
		return "rust"
	}
	return l
}

// fenceTag is the info string for language: its canonical key, keeping only characters that
// cannot end or disturb a fence line (no backticks, spaces or newlines). "" when unknown.
func fenceTag(language string) string {
	l := canonicalLanguage(language)
	var b strings.Builder
	for _, r := range l {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || strings.ContainsRune("+#._-", r) {
			b.WriteRune(r)
		}
	}
	t := b.String()
	if len(t) > 24 {
		t = t[:24]
	}
	return t
}

// languageName is language as prose names it ("C++", "JavaScript"), or "" when empty.
func languageName(language string) string {
	switch canonicalLanguage(language) {
	case "":
		return ""
	case "c":
		return "C"
	case "cpp":
		return "C++"
	case "python":
		return "Python"
	case "javascript":
		return "JavaScript"
	case "typescript":
		return "TypeScript"
	case "java":
		return "Java"
	case "go":
		return "Go"
	case "php":
		return "PHP"
	case "csharp":
		return "C#"
	case "ruby":
		return "Ruby"
	case "bash":
		return "shell"
	case "hcl":
		return "Terraform"
	case "yaml":
		return "YAML"
	case "kotlin":
		return "Kotlin"
	case "rust":
		return "Rust"
	case "swift":
		return "Swift"
	case "scala":
		return "Scala"
	case "dockerfile":
		return "Dockerfile"
	}
	return oneLine(language)
}

// oneLine makes a name from a case safe to put in prose: one line, no backticks or control
// characters, at most 200 bytes.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '`':
			return '\''
		case unicode.IsControl(r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}
