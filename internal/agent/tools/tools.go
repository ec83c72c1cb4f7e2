// Package tools are the agents' tools, as the model sees them (name, description, the JSON
// Schema of the arguments) and with the observations they answer, plain text, bounded, saying
// when they were cut: over a case's snapshot (list_dir, read_file, search), over its code graph
// (get_callers, get_callees, get_definition) and over its dependencies and the offline
// advisories (find_dependency, get_advisory). An agent picks the ones it offers. read_file and
// search stream files whatever their size (snapshot.Stream), so line counts and matches cover
// the whole file; when the unit's read budget runs out mid-file they say how much was read.
package tools

import (
	"encoding/json"
	"strconv"
	"strings"
)

// MaxSites bounds the call sites one observation lists.
const MaxSites = 100

// Args are the tools' arguments; line may come as a string (DESIGN: every argument a JSON string)
// or as a number. (An alias: the model reads the unexported name in its type errors, as before.)
type Args = args

type args struct {
	Function string          `json:"function"`
	File     string          `json:"file"`
	Line     json.RawMessage `json:"line"`
	Path     string          `json:"path"`
	Pattern  string          `json:"pattern"`
	Start    json.RawMessage `json:"start_line"`
	End      json.RawMessage `json:"end_line"`
}

func parseArgs(raw json.RawMessage) (args, string) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, "The arguments could not be read: " + err.Error()
	}
	return a, ""
}

// Number reads an optional integer given as a JSON number or string; 0 when absent.
func Number(raw json.RawMessage) (int, bool) {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	if s == "" || s == "null" {
		return 0, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}
