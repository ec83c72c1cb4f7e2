// Package lang names the languages the code graph reads and tells a file's language from its
// name. It is the leaf every code-graph package shares.
package lang

import (
	"fmt"
	"path"
	"strings"
)

// Lang is a programming language the code graph parses.
type Lang uint8

// The languages, in the order the issue lists them. NoLang marks a file no grammar reads.
const (
	NoLang Lang = iota
	C
	CPP
	Java
	Python
	Go
	JavaScript
	Count // how many Lang values there are, NoLang included
)

func (l Lang) String() string {
	switch l {
	case NoLang:
		return ""
	case C:
		return "c"
	case CPP:
		return "cpp"
	case Java:
		return "java"
	case Python:
		return "python"
	case Go:
		return "go"
	case JavaScript:
		return "javascript"
	}
	return fmt.Sprintf("lang(%d)", uint8(l))
}

// All lists the supported languages.
func All() []Lang { return []Lang{C, CPP, Java, Python, Go, JavaScript} }

// Parse reads a language name as String prints it ("c", "cpp", ...).
func Parse(s string) (Lang, error) {
	for l := C; l < Count; l++ {
		if l.String() == s {
			return l, nil
		}
	}
	return NoLang, fmt.Errorf("unknown language %q (want one of c, cpp, java, python, go, javascript)", s)
}

// Of returns the language of a file by its name. A ".h" header is C unless cppHeaders is set
// (the indexer sets it for repositories with more C++ than C sources).
func Of(name string, cppHeaders bool) Lang {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".c":
		return C
	case ".h":
		if cppHeaders {
			return CPP
		}
		return C
	case ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tcc", ".inl":
		return CPP
	case ".java":
		return Java
	case ".py", ".pyw":
		return Python
	case ".go":
		return Go
	case ".js", ".mjs", ".cjs", ".jsx":
		return JavaScript
	}
	return NoLang
}

// MarshalText writes the language's name, for JSON.
func (l Lang) MarshalText() ([]byte, error) { return []byte(l.String()), nil }
