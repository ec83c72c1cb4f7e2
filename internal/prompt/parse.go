package prompt

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/textnorm"
)

// How an Answer was read.
const (
	ViaJSON    = "json"
	ViaMarkers = "markers"
)

// Answer is a model's reply as Parse understood it.
type Answer struct {
	Vulnerable bool
	CWE        []string // normalised to CWE-123, invalid ones dropped; nil when none
	Confidence *float64 // in [0,1]; nil when absent or out of range
	Reason     string
	Via        string // ViaJSON or ViaMarkers
}

// maxDecodeBytes bounds the bytes the JSON decoder may read over all candidate objects of one
// reply, so that adversarial input (deeply nested or unterminated objects) stays linear.
const maxDecodeBytes = 32 << 20

// Parse reads the verdict out of a model's reply.
//
// It takes the last JSON object that has a "vulnerable" field, bare or in a ```json fence,
// surrounded by prose or not. "vulnerable" may be a boolean or one of the strings yes, no, true,
// false (any case); "cwe" a string or a list, normalised to CWE-123 form; "confidence" a number
// in [0,1]. When that last object's "vulnerable" is something else (null, "maybe") Parse does not
// fall back to an earlier object, which would more likely be an example the reply quoted than an
// answer, but it still tries the markers.
//
// Without such an object it reads JitVul's markers: the last of @@VULNERABLE@@ and
// @@NOT VULNERABLE@@ decides (any case, spaces allowed, trailing @@ optional, but the leading @@
// is required so that prose such as "is it vulnerable?" is never read as an answer), and every
// @@CWE: X@@ gives CWEs.
//
// Objects and markers inside a fenced block tagged with a programming language (```c, ```python)
// are ignored: that is the reply quoting code, which may contain anything.
//
// The error, when nothing parses, is a short reason for the caller to store with the raw text.
// Parse never panics.
func Parse(text string) (Answer, error) {
	if strings.TrimSpace(text) == "" {
		return Answer{}, errors.New("empty answer")
	}
	skip := quotedCode(text)
	a, _, ok, jsonErr := parseJSON(text, skip)
	if ok {
		return a, nil
	}
	if a, ok := parseMarkers(text, skip); ok {
		return a, nil
	}
	if jsonErr != nil {
		return Answer{}, jsonErr
	}
	return Answer{}, errors.New("no JSON answer object and no @@VULNERABLE@@ / @@NOT VULNERABLE@@ marker")
}

// span is a byte range [start, end) of the reply.
type span struct{ start, end int }

// spans are sorted and disjoint.
type spans []span

func (ss spans) contain(pos int) bool {
	i := sort.Search(len(ss), func(i int) bool { return ss[i].end > pos })
	return i < len(ss) && ss[i].start <= pos
}

// quotedCode finds the closed fenced blocks whose info string names a programming language
// (anything but json, text, markdown and the like): code the reply quotes rather than its answer.
// An unclosed fence is not skipped, so a reply that forgets to close one is still read.
func quotedCode(text string) spans {
	var out spans
	var (
		open    bool
		char    byte
		length  int
		start   int
		foreign bool
	)
	for pos := 0; pos < len(text); {
		next := len(text)
		if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		line := strings.TrimLeft(strings.TrimRight(text[pos:next], "\r\n"), " \t")
		c, n := fenceRun(line)
		switch {
		case !open && n >= 3:
			info := strings.TrimSpace(line[n:])
			if c == '`' && strings.IndexByte(info, '`') >= 0 {
				break // inline code such as ```x```, not a fence
			}
			open, char, length, start, foreign = true, c, n, pos, quotesCode(info)
		case open && c == char && n >= length && strings.TrimSpace(line[n:]) == "":
			open = false
			if foreign {
				out = append(out, span{start, next})
			}
		}
		pos = next
	}
	return out
}

// fenceRun returns the fence character line starts with and how many times it repeats.
func fenceRun(line string) (byte, int) {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return 0, 0
	}
	n := 1
	for n < len(line) && line[n] == line[0] {
		n++
	}
	return line[0], n
}

// quotesCode says whether a fence's info string marks code rather than an answer.
func quotesCode(info string) bool {
	lang := info
	if i := strings.IndexAny(lang, " \t{"); i >= 0 {
		lang = lang[:i]
	}
	switch strings.ToLower(lang) {
	case "", "json", "jsonc", "json5", "text", "txt", "plaintext", "plain", "markdown", "md",
		"answer", "output", "result", "verdict", "none":
		return false
	}
	return true
}

// countingReader counts the bytes the JSON decoder reads.
type countingReader struct {
	s *strings.Reader
	n int
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.s.Read(p)
	r.n += n
	return n, err
}

// parseJSON finds the last JSON object with a "vulnerable" field outside quoted code. ok is
// false when there is none; err says why the last such object was unusable.
func parseJSON(text string, skip spans) (a Answer, obj map[string]json.RawMessage, ok bool, err error) {
	// The answer object contains the key, so it starts before the key's last occurrence.
	end := lastIndexFold(text, `"vulnerable"`)
	if end < 0 {
		return Answer{}, nil, false, nil
	}
	budget := maxDecodeBytes
	for budget > 0 {
		i := strings.LastIndexByte(text[:end], '{')
		if i < 0 {
			break
		}
		end = i
		if !startsObject(text[i+1:]) || skip.contain(i) {
			continue
		}
		cr := &countingReader{s: strings.NewReader(text[i:])}
		dec := json.NewDecoder(cr)
		dec.UseNumber()
		var obj map[string]json.RawMessage
		derr := dec.Decode(&obj)
		budget -= cr.n
		if derr != nil {
			continue
		}
		raw, found := field(obj, "vulnerable")
		if !found {
			continue
		}
		v, valid := boolish(raw)
		if !valid {
			return Answer{}, nil, false, fmt.Errorf("the answer object's \"vulnerable\" is %s, not true or false", textnorm.Clip(string(raw), 43))
		}
		a := Answer{Vulnerable: v, Via: ViaJSON}
		for _, k := range []string{"cwe", "cwes", "cwe_id", "cwe_ids"} {
			if raw, found := field(obj, k); found {
				a.CWE = jsonCWEs(raw)
				break
			}
		}
		if raw, found := field(obj, "confidence"); found {
			a.Confidence = confidence(raw)
		}
		for _, k := range []string{"reason", "explanation", "reasoning", "rationale"} {
			if raw, found := field(obj, k); found {
				var s string
				if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
					a.Reason = strings.TrimSpace(s)
					break
				}
			}
		}
		return a, obj, true, nil
	}
	return Answer{}, nil, false, nil
}

// startsObject says whether s (what follows a '{') can continue a JSON object: a key or '}'.
func startsObject(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	return s != "" && (s[0] == '"' || s[0] == '}')
}

// field looks key up exactly, then ignoring case.
func field(obj map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	if v, ok := obj[key]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(strings.TrimSpace(k), key) {
			return v, true
		}
	}
	return nil, false
}

// boolish reads true, false, or the strings yes/no/true/false in any case.
func boolish(raw json.RawMessage) (bool, bool) {
	switch strings.TrimSpace(string(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "yes", "true":
		return true, true
	case "no", "false":
		return false, true
	}
	return false, false
}

// jsonCWEs reads "cwe" as a string, a number or a list of either.
func jsonCWEs(raw json.RawMessage) []string {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	var out []string
	var add func(v any)
	add = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, extractCWEs(x)...)
		case json.Number:
			out = append(out, extractCWEs(x.String())...)
		case []any:
			for _, e := range x {
				if _, nested := e.([]any); !nested {
					add(e)
				}
			}
		}
	}
	add(v)
	return dedup(out)
}

// confidence reads a number (or numeric string) in [0,1].
func confidence(raw json.RawMessage) *float64 {
	s := strings.TrimSpace(string(raw))
	var str string
	if json.Unmarshal(raw, &str) == nil {
		s = strings.TrimSpace(str)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return nil
	}
	return &f
}

// parseMarkers reads @@VULNERABLE@@, @@NOT VULNERABLE@@ and @@CWE: X@@ outside quoted code.
func parseMarkers(text string, skip spans) (Answer, bool) {
	const (
		none = iota
		vul
		ben
	)
	verdict := none
	var cwes []string
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "@@")
		if j < 0 {
			break
		}
		p := i + j
		i = p + 1 // the closing @@ of one marker may open the next one
		if skip.contain(p) {
			continue
		}
		rest := strings.TrimLeft(text[p+2:], " \t")
		switch {
		case hasPrefixFold(rest, "not"):
			r := strings.TrimLeft(rest[3:], " \t_-")
			if v, ok := markerWord(r); ok && v {
				verdict = ben
			}
		case hasPrefixFold(rest, "cwe") && !wordByte(rest, 3):
			body := strings.TrimLeft(rest[3:], " \t:=-_#")
			if k := strings.IndexAny(body, "@\n"); k >= 0 {
				body = body[:k]
			}
			cwes = append(cwes, extractCWEs(textnorm.Clip(body, 203))...)
		default:
			if v, ok := markerWord(rest); ok {
				if v {
					verdict = vul
				} else {
					verdict = ben
				}
			}
		}
	}
	if verdict == none {
		return Answer{}, false
	}
	return Answer{Vulnerable: verdict == vul, CWE: dedup(cwes), Via: ViaMarkers}, true
}

// markerWord reads "vulnerable" at the start of s, as a whole word. It is true unless a value
// follows it that says otherwise ("VULNERABLE: no"). ok is false when s is not such a marker.
func markerWord(s string) (v, ok bool) {
	if !hasPrefixFold(s, "vulnerable") || wordByte(s, len("vulnerable")) {
		return false, false
	}
	r := strings.TrimLeft(s[len("vulnerable"):], " \t")
	if r == "" || (r[0] != ':' && r[0] != '=') {
		return true, true
	}
	r = strings.TrimLeft(r[1:], " \t")
	switch {
	case hasPrefixFold(r, "yes") && !wordByte(r, 3), hasPrefixFold(r, "true") && !wordByte(r, 4):
		return true, true
	case hasPrefixFold(r, "no") && !wordByte(r, 2), hasPrefixFold(r, "false") && !wordByte(r, 5):
		return false, true
	}
	return false, false
}

// extractCWEs finds CWE identifiers in s: every "CWE-123" (also "cwe 123", "CWE_123",
// "CWE:123"), or, when there is none, s itself as a list of bare numbers ("787", "787, 120").
func extractCWEs(s string) []string {
	var out []string
	for i := 0; i+3 <= len(s); {
		if !hasPrefixFold(s[i:], "cwe") || (i > 0 && wordByte(s, i-1)) {
			i++
			continue
		}
		j := i + 3
		for j < len(s) && strings.IndexByte("-_ :#", s[j]) >= 0 {
			j++
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k > j && !wordByte(s, k) {
			if id, ok := cweID(s[j:k]); ok {
				out = append(out, id)
			}
		}
		i = max(k, i+3)
	}
	if len(out) > 0 {
		return out
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \t,;/|", r) })
	for _, f := range fields {
		id, ok := cweID(f)
		if !ok {
			return nil
		}
		out = append(out, id)
	}
	return out
}

// cweID makes CWE-123 of the digits "123" (or "0123"); false unless digits is a positive number.
func cweID(digits string) (string, bool) {
	if digits == "" || len(digits) > 7 {
		return "", false
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return "", false
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 {
		return "", false
	}
	return "CWE-" + strconv.Itoa(n), true
}

func dedup(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// wordByte says whether s[i] exists and is a letter, digit or underscore.
func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	b := s[i]
	return isDigit(b) || b == '_' || (b|0x20 >= 'a' && b|0x20 <= 'z')
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case only (no Unicode folding, so that
// the Kelvin sign is not a k); prefix must be lower-case ASCII.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lower(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

// lastIndexFold is strings.LastIndex ignoring ASCII case; substr must be lower-case ASCII. It
// compares byte by byte, so positions stay those of text whatever its encoding.
func lastIndexFold(text, substr string) int {
	for i := len(text) - len(substr); i >= 0; i-- {
		if hasPrefixFold(text[i:], substr) {
			return i
		}
	}
	return -1
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// clip shortens s to at most n bytes for a message, on a UTF-8 boundary.
