// Package jsonkeys refuses JSON objects whose keys collide: a key given twice, or two keys that
// differ only in case. encoding/json accepts both silently (the last value wins, and "Label"
// fills the field label), so `{"label":"vul","label":"ben"}` would be read as ben; every JSON
// input vulnbench reads (suites, predictions, task files, advisories, SARIF) is checked here
// first, as the case schema refuses such lines.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a collision: Key is the later key, First the earlier one of the same object (equal
// for a repeated key); Line is the later key's line (1-based, counted in the bytes checked) and
// Path the object's place in the document ("$", "$.runs[0].results[3]").
type Error struct {
	Line  int
	Path  string
	Key   string
	First string
}

func (e *Error) Error() string {
	if e.Key == e.First {
		return fmt.Sprintf("key %q appears twice in the object at %s (a JSON reader keeps only one of the two values)", e.Key, e.Path)
	}
	return fmt.Sprintf("keys %q and %q of the object at %s differ only in case (a JSON reader may take either for the other)", e.First, e.Key, e.Path)
}

// frame is one open object or array.
type frame struct {
	object bool
	index  int      // arrays: the element being read
	key    []byte   // objects: the key being read
	keys   [][]byte // objects: the keys so far (searched with bytes.EqualFold while few)
	set    map[string][]byte
}

// manyKeys is the size past which an object's keys are kept in a map.
const manyKeys = 12

// Check returns the first collision in the JSON text b, or nil. Text that is not JSON is not
// its business: it stops at the first byte it cannot read and reports what it saw before (the
// decoder that follows names the syntax error).
func Check(b []byte) *Error {
	var stack []*frame
	var free []*frame
	line := 1
	expectKey := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '\n':
			line++
		case ' ', '\t', '\r', ':':
		case '{', '[':
			var f *frame
			if n := len(free); n > 0 {
				f, free = free[n-1], free[:n-1]
				*f = frame{keys: f.keys[:0]}
			} else {
				f = &frame{}
			}
			f.object = c == '{'
			stack = append(stack, f)
			expectKey = f.object
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			free = append(free, stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			expectKey = false
		case ',':
			if len(stack) == 0 {
				return nil
			}
			top := stack[len(stack)-1]
			if top.object {
				expectKey = true
			} else {
				top.index++
			}
		case '"':
			j, esc := endOfString(b, i)
			if j < 0 {
				return nil
			}
			if expectKey && len(stack) > 0 {
				key := b[i+1 : j]
				if esc {
					var k string
					if err := json.Unmarshal(b[i:j+1], &k); err != nil {
						return nil
					}
					key = []byte(k)
				}
				top := stack[len(stack)-1]
				if first, ok := top.add(key); !ok {
					return &Error{Line: line, Path: path(stack[:len(stack)-1]), Key: string(key), First: string(first)}
				}
				top.key = key
				expectKey = false
			}
			i = j
		default:
			// numbers, true, false, null: up to the next delimiter
			for i+1 < len(b) && !delimiter(b[i+1]) {
				i++
			}
		}
	}
	return nil
}

func delimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ']', '}', ':':
		return true
	}
	return false
}

// endOfString is the index of the quote that closes the string opened at b[i], and whether it
// holds an escape; -1 when it does not close.
func endOfString(b []byte, i int) (int, bool) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			esc = true
			j++
		case '"':
			return j, esc
		case '\n':
			return -1, esc
		}
	}
	return -1, esc
}

// add records key in the object; false with the earlier key when one folds to the same.
func (f *frame) add(key []byte) ([]byte, bool) {
	if f.set != nil {
		k := fold(string(key))
		if first, ok := f.set[k]; ok {
			return first, false
		}
		f.set[k] = key
		return nil, true
	}
	for _, x := range f.keys {
		if bytes.EqualFold(x, key) {
			return x, false
		}
	}
	f.keys = append(f.keys, key)
	if len(f.keys) > manyKeys {
		f.set = make(map[string][]byte, 2*manyKeys)
		for _, x := range f.keys {
			f.set[fold(string(x))] = x
		}
	}
	return nil, true
}

// fold maps every rune of s to the smallest rune of its case-folding orbit, so that two keys
// fold alike exactly when strings.EqualFold says they are equal (K, k and the Kelvin sign too).
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s) // the orbits of ASCII letters outside ASCII (K, S) are folded below
	}
	var b strings.Builder
	for _, r := range s {
		m := r
		for x := unicode.SimpleFold(r); x != r; x = unicode.SimpleFold(x) {
			m = min(m, x)
		}
		if m < utf8.RuneSelf {
			m = unicode.ToLower(m)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// path names an object by the keys and indexes that lead to it.
func path(parents []*frame) string {
	var b strings.Builder
	b.WriteString("$")
	for _, p := range parents {
		if p.object {
			if k := string(p.key); isIdent(k) {
				b.WriteString("." + k)
			} else {
				b.WriteString("[" + strconv.Quote(k) + "]")
			}
		} else {
			b.WriteString("[" + strconv.Itoa(p.index) + "]")
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}
