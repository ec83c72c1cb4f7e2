// Package sast runs classic static analysers on a case's code, or on its repository's snapshot,
// and turns their findings into verdicts. The analysers are rows of one table (Scanners).
package sast

import "strings"

// cLanguages are the languages flawfinder and cppcheck read.
func cLanguages() []string { return []string{"c", "cpp", "c++"} }

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
