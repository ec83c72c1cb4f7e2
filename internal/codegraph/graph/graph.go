// Package graph is the code graph in memory: definitions, call sites, the files they come from
// and what was skipped, with the lookup tables built by Finish and the queries the agents and
// prompts ask (Definitions, Definition, Callers, Callees, TopK) and the TSV dumps. It parses
// nothing and reads nothing but a definition's source file.
package graph

import (
	"slices"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// File is one indexed file.
type File struct {
	Path string    `json:"path"`
	Lang lang.Lang `json:"lang"`
	Size int64     `json:"size"`
	// Partial: a definition the parser could not close was cut where its braces close and the
	// definitions after it were parsed again; that definition's calls are as the parser read them.
	Partial bool `json:"partial,omitempty"`
}

// Skipped is a file or directory left out, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Stats summarise an index.
type Stats struct {
	Files        int     `json:"files"`     // files parsed
	Functions    int     `json:"functions"` // definitions, macros excluded
	Macros       int     `json:"macros"`
	CallSites    int     `json:"call_sites"`
	Unresolved   int     `json:"unresolved"` // call sites through pointers or expressions
	References   int     `json:"references"` // functions used as values
	Skipped      int     `json:"skipped"`
	SyntaxErrors int     `json:"files_with_syntax_errors"`
	Partial      int     `json:"files_partly_parsed"` // files with a definition the parser could not close (File.Partial)
	Bytes        int64   `json:"bytes"`
	Seconds      float64 `json:"seconds"` // wall time of Open: build or load
	Loaded       bool    `json:"loaded"`  // read from the cache rather than built
	// Parsed counts the distinct file contents this Open parsed, Reused those whose parse
	// results came from the index of a sibling snapshot (codegraph.Options.Base); both are 0
	// for a loaded index.
	Parsed int `json:"parsed"`
	Reused int `json:"reused"`
	// PartParsed counts the parsed contents of which only the changed regions were parsed (an
	// edited file whose previous content Base parsed); ParsedBytes is how many bytes the parser
	// read in all (the whole of each file parsed whole, the changed regions of the others).
	PartParsed  int   `json:"part_parsed"`
	ParsedBytes int64 `json:"parsed_bytes"`
}

// Index is a repository's code graph. It is safe for concurrent queries.
type Index struct {
	Root    string    // the repository directory
	Hash    string    // snapshot hash: sha256 over the sorted (path, size, content sha256) of the files considered
	Files   []File    // sorted by path
	Funcs   []Func    // by file, then position
	Calls   []Call    // by file, then line and column; Caller indexes Funcs
	Skipped []Skipped // sorted by path
	Stats   Stats
	// CacheFile is where the index was loaded from or saved to ("" with NoCache).
	CacheFile string
	// Base is the root of the sibling snapshot whose index this one was built from
	// (codegraph.Options.Base), "" when none or when it was loaded.
	Base string
	// CacheErr is set when the index could not be saved; the index itself is complete.
	CacheErr error

	fileLang map[string]lang.Lang
	byName   map[string][]int32 // Name and QualName to Funcs
	byCallee map[string][]int32 // Callee to Calls (direct and method calls)
	callOff  []int32            // calls of Funcs[i]: callIdx[callOff[i]:callOff[i+1]]
	callIdx  []int32
}

// Finish computes the statistics and the lookup tables from Files, Funcs, Calls and Skipped;
// the queries need them. Whoever fills in an Index calls it once.
func (ix *Index) Finish() {
	st := &ix.Stats
	st.Files = len(ix.Files)
	st.Skipped = len(ix.Skipped)
	st.Functions, st.Macros, st.Unresolved, st.References = 0, 0, 0, 0
	for i := range ix.Funcs {
		if ix.Funcs[i].Kind == Macro {
			st.Macros++
		} else {
			st.Functions++
		}
	}
	ix.fileLang = make(map[string]lang.Lang, len(ix.Files))
	for _, f := range ix.Files {
		ix.fileLang[f.Path] = f.Lang
	}
	ix.byName = make(map[string][]int32, len(ix.Funcs))
	for i := range ix.Funcs {
		f := &ix.Funcs[i]
		ix.byName[f.Name] = append(ix.byName[f.Name], int32(i))
		if f.QualName != f.Name && f.QualName != "" {
			ix.byName[f.QualName] = append(ix.byName[f.QualName], int32(i))
		}
	}
	ix.byCallee = make(map[string][]int32, len(ix.byName))
	counts := make([]int32, len(ix.Funcs)+1)
	for i := range ix.Calls {
		c := &ix.Calls[i]
		switch c.Kind {
		case Reference:
			st.References++
		case Unresolved:
			st.Unresolved++
		}
		if c.Kind != Unresolved {
			ix.byCallee[c.Callee] = append(ix.byCallee[c.Callee], int32(i))
		}
		if c.Caller >= 0 && c.Caller < len(ix.Funcs) {
			counts[c.Caller+1]++
		}
	}
	st.CallSites = len(ix.Calls) - st.References
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	ix.callOff = counts
	ix.callIdx = make([]int32, counts[len(counts)-1])
	fill := slices.Clone(counts[:len(counts)-1])
	for i := range ix.Calls {
		if c := ix.Calls[i].Caller; c >= 0 && c < len(ix.Funcs) {
			ix.callIdx[fill[c]] = int32(i)
			fill[c]++
		}
	}
}
