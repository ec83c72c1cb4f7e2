package sast

import (
	"encoding/xml"
	"fmt"

	"github.com/vulnbench/vulnbench/internal/verdict"
)

// CppcheckInstall is how to get the binary.
const CppcheckInstall = "apt-get install cppcheck"

// cppcheckSelf reports whether id is about cppcheck's own trouble with the input, not a weakness.
func cppcheckSelf(id string) bool {
	switch id {
	case "syntaxError", "internalAstError", "missingInclude", "missingIncludeSystem", "unknownMacro", "checkersReport",
		"toomanyconfigs", "normalCheckLevelMaxBranches", "preprocessorErrorDirective", "cppcheckError", "internalError":
		return true
	}
	return false
}

// ParseCppcheckXML reads cppcheck's --xml-version=2 report: one finding per error, at its first
// location, with its CWE.
func ParseCppcheckXML(b []byte) ([]verdict.Finding, error) {
	var doc struct {
		XMLName xml.Name `xml:"results"`
		Version string   `xml:"version,attr"`
		Errors  []struct {
			ID       string `xml:"id,attr"`
			Severity string `xml:"severity,attr"`
			Msg      string `xml:"msg,attr"`
			CWE      string `xml:"cwe,attr"`
			Location []struct {
				File string `xml:"file,attr"`
				Line int    `xml:"line,attr"`
			} `xml:"location"`
		} `xml:"errors>error"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("cppcheck output is not its XML report (%v): %s", err, firstLine(string(b)))
	}
	if doc.Version != "2" {
		return nil, fmt.Errorf("cppcheck output: XML version %q, want 2 (--xml-version=2)", doc.Version)
	}
	var out []verdict.Finding
	for _, e := range doc.Errors {
		f := verdict.Finding{Rule: e.ID, Severity: e.Severity, Message: e.Msg}
		if e.CWE != "" && e.CWE != "0" {
			f.CWE = []string{"CWE-" + e.CWE}
		}
		if len(e.Location) > 0 {
			f.File, f.StartLine, f.EndLine = e.Location[0].File, e.Location[0].Line, e.Location[0].Line
		}
		out = append(out, f)
	}
	return out, nil
}
