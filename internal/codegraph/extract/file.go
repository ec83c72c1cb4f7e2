package extract

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
	"github.com/vulnbench/vulnbench/internal/codegraph/prep"
)

// Version changes whenever the extractors change what they record; it is part of the name of
// every persisted index and parse result.
const Version = 7

// Limits bound what parsing one file may cost. The zero value takes the defaults.
type Limits struct {
	// ParseTimeout abandons a file whose parse takes longer. Default 30 s; negative means none.
	ParseTimeout time.Duration
	// MaxNodes abandons a file whose syntax tree has more named nodes. Default 20 million.
	MaxNodes int
}

const (
	defaultParseTimeout = 30 * time.Second
	defaultMaxNodes     = 20_000_000
)

// WithDefaults fills in the defaults of the zero fields.
func (l Limits) WithDefaults() Limits {
	if l.ParseTimeout == 0 {
		l.ParseTimeout = defaultParseTimeout
	}
	if l.ParseTimeout < 0 {
		l.ParseTimeout = 0
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = defaultMaxNodes
	}
	return l
}

// FileIndexer indexes one file at a time: it is the entry point the repository indexer's workers
// use. It owns tree-sitter parsers and C memory: Close it. It is not safe for concurrent use.
type FileIndexer struct {
	p       *parser
	intern  map[string]string
	timeout time.Duration
	scratch []byte // memory for the prepared texts, reused from file to file

	oldScratch []byte // the same for the previous contents of edited files (IndexEdited)
	regions    bool   // record FileResult.Regions (SetRegions)
}

// SetRegions makes the indexer record each file's top-level units (FileResult.Regions), which
// IndexEdited needs of a file's previous content. Off by default: they cost about 3 % of the
// CPU of an index, and only parse results kept for a later incremental index use them.
func (fi *FileIndexer) SetRegions(on bool) { fi.regions = on }

// New returns a FileIndexer with the limits lim. gs, from LoadGrammars, may be shared by many
// indexers; nil loads them.
func New(gs *Grammars, lim Limits) (*FileIndexer, error) {
	if err := layoutOK(); err != nil {
		return nil, err
	}
	if gs == nil {
		var err error
		if gs, err = LoadGrammars(); err != nil {
			return nil, err
		}
	}
	lim = lim.WithDefaults()
	return &FileIndexer{
		p:       newParser(gs, lim.MaxNodes),
		intern:  make(map[string]string, 1024),
		timeout: lim.ParseTimeout,
	}, nil
}

// Close releases the parsers.
func (fi *FileIndexer) Close() {
	if fi.p != nil {
		fi.p.Close()
		fi.p = nil
	}
}

// IndexFile indexes src, the content of the file at path (slash-separated, relative to the
// repository root); the language follows from the file name. A file that the content rules
// skip (binary, generated) or that cannot be parsed within the limits comes back with Skip
// set; syntax errors are tolerated and counted. The error is for faults of the indexer itself.
func (fi *FileIndexer) IndexFile(path string, src []byte) (*graph.FileResult, error) {
	return fi.IndexFileAs(lang.Of(path, false), path, src)
}

// IndexFileAs is IndexFile with the language given.
func (fi *FileIndexer) IndexFileAs(l lang.Lang, path string, src []byte) (*graph.FileResult, error) {
	res := &graph.FileResult{Path: path, Lang: l}
	if l == lang.NoLang || l >= lang.Count {
		res.Skip = "no grammar for this file type"
		return res, nil
	}
	if fi.p == nil {
		return nil, errors.New("codegraph: FileIndexer used after Close")
	}
	if why := contentSkip(l, src); why != "" {
		res.Skip = why
		return res, nil
	}
	text, gaps := prep.Prepare(l, src, fi.scratch)
	if len(text) > 0 && &text[0] != &src[0] {
		fi.scratch = text[:0] // the next file's prepared text reuses this memory
	}
	nodes, err := fi.p.parse(l, text, gaps, fi.timeout)
	if errors.Is(err, errParseTimeout) {
		res.Skip = fmt.Sprintf("parse timeout (over %v)", fi.timeout)
		return res, nil
	}
	if err != nil {
		res.Skip = "not parsed: " + err.Error()
		return res, nil
	}
	if len(fi.intern) > 1<<20 {
		clear(fi.intern)
	}
	x := extractor{g: fi.p.gs[l], src: src, n: nodes, intern: fi.intern, res: res}
	x.run()
	var cuts []unclosed
	if (l == lang.C || l == lang.CPP) && res.SyntaxErrors > 0 {
		cuts = findUnclosed(res, text)
	}
	if fi.regions && len(cuts) == 0 && !x.wide && regionLang(l) && closed(text, l) {
		res.Regions = x.regions(text, res.Funcs)
	}
	if len(cuts) > 0 {
		if !ranToEnd(res, text, cuts) {
			if fi.regions && !x.wide && regionLang(l) && closed(text, l) { // the units the cuts leave alone stay reusable
				res.Regions = withoutCut(x.regions(text, res.Funcs), res, cuts)
			}
			capDefs(res, cuts) // cut, without a second parse: the parser found the code after them
		} else {
			closeUnclosed(res, text, cuts, func(blanked []byte) *graph.FileResult {
				nodes, err := fi.p.parse(l, blanked, prep.SkipGaps(blanked), fi.timeout)
				if err != nil {
					return nil // the first parse stands, cut
				}
				second := &graph.FileResult{Path: path, Lang: l}
				x := extractor{g: fi.p.gs[l], src: src, n: nodes, intern: fi.intern, res: second}
				x.run()
				return second
			})
		}
	}
	return res, nil
}

// binarySniff is how much of a file the binary test reads, as git does.
const binarySniff = 8000

// contentSkip applies the content rules: binary files, generated files (a marker near the top),
// minified JavaScript.
func contentSkip(l lang.Lang, src []byte) string {
	if bytes.IndexByte(src[:min(len(src), binarySniff)], 0) >= 0 {
		return "binary file (NUL byte)"
	}
	if m := generatedMarker(src[:min(len(src), 2048)]); m != "" {
		return fmt.Sprintf("generated file (marker %q)", m)
	}
	if l == lang.JavaScript && len(src) > 16<<10 {
		lines := bytes.Count(src, []byte{'\n'})
		if src[len(src)-1] != '\n' {
			lines++
		}
		if len(src)/lines > 500 {
			return fmt.Sprintf("generated file (minified: %d bytes a line)", len(src)/lines)
		}
	}
	return ""
}

// generatedMarker returns the marker that says head belongs to a generated file, or "".
func generatedMarker(head []byte) string {
	for _, m := range []string{"DO NOT EDIT", "@generated"} {
		if bytes.Contains(head, []byte(m)) {
			return m
		}
	}
	if !containsFold(head, "generated") && !containsFold(head, "do not edit") {
		return "" // every marker below holds one of the two; most heads hold neither
	}
	var buf [2048]byte
	lower := append(buf[:0], head...)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	for _, m := range []string{"do not edit this file", "this file is automatically generated", "this file was automatically generated",
		"this file is generated", "this file was generated", "automatically generated by", "auto-generated by", "autogenerated by"} {
		if bytes.Contains(lower, []byte(m)) {
			return m
		}
	}
	return ""
}

// containsFold reports whether b contains word (lower-case ASCII) in any mix of ASCII case, as
// b lower-cased would. It finds the first letter's occurrences with IndexByte, where lowering a
// copy of every file's head cost a pass over its bytes.
func containsFold(b []byte, word string) bool {
	first := word[0]
	for _, c := range [2]byte{first, first - 'a' + 'A'} {
		for i := 0; i+len(word) <= len(b); {
			j := bytes.IndexByte(b[i:len(b)-len(word)+1], c)
			if j < 0 {
				break
			}
			i += j
			if equalFoldASCII(b[i+1:i+len(word)], word[1:]) {
				return true
			}
			i++
		}
	}
	return false
}

// equalFoldASCII reports whether b equals word (lower-case ASCII) after lowering b's A-Z.
func equalFoldASCII(b []byte, word string) bool {
	for k := range len(word) {
		c := b[k]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[k] {
			return false
		}
	}
	return true
}
