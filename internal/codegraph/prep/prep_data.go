package prep

import (
	"bytes"
	"strings"
)

// The prepare passes for runs of table rows in any language; the overview is in prep.go.

// minDataRun is how many consecutive data lines blankData needs before it blanks them.
const minDataRun = 16

// blankData returns src with long runs of pure data lines (table rows such as
// "  [0x0eab] = 0x6568, [0x0eac] = 0x6569," or "{ .start = 0x4040, .idx = -16448 },")
// replaced by spaces, keeping every newline, so offsets and line numbers do not move. Such a
// line ends with a comma, has balanced braces and no parenthesis, semicolon, open comment or
// preprocessor sign outside its string literals and closed /* */ comments, and the run follows the opening of a list or a
// comma: removing it leaves the list valid, and it can hold no definition and no call. Big generated tables parse many
// times faster without them. src itself is returned when there is nothing to blank.
func blankData(src, scratch []byte) []byte {
	var out []byte
	runStart, runEnd, run := -1, -1, 0
	flush := func() {
		if run >= minDataRun && inList(src[:runStart]) {
			if out == nil {
				out = append(scratch[:0], src...)
			}
			for k := runStart; k < runEnd; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
		}
		runStart, run = -1, 0
	}
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		switch line := src[start:end]; {
		case isDataLine(line):
			if runStart < 0 {
				runStart = start
			}
			runEnd = end
			run++
		case runStart >= 0 && isCommentLine(line):
			runEnd = end // "/* 0x5AC0 */" between rows: part of the run
		default:
			flush()
		}
		start = end + 1
	}
	flush()
	if out == nil {
		return src
	}
	return out
}

// inList reports whether the code before a run of data lines ends inside a list: with an opening
// brace, bracket or parenthesis, a comma, an equals sign or the end of a comment. Preprocessor
// lines in between (tables often hold #if blocks) are passed over.
func inList(before []byte) bool {
	for {
		t := bytes.TrimRight(before, " \t\r\n")
		if len(t) == 0 {
			return false
		}
		ls := bytes.LastIndexByte(t, '\n') + 1
		if line := trimBlanksLeft(t[ls:]); len(line) > 0 && line[0] == '#' {
			before = t[:ls]
			continue
		}
		return strings.IndexByte("{[(,=/", t[len(t)-1]) >= 0
	}
}

// isCommentLine reports whether a line holds nothing but one closed block comment.
func isCommentLine(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) >= 4 && bytes.HasPrefix(t, []byte("/*")) && bytes.Index(t, []byte("*/")) == len(t)-2
}

func isDataLine(line []byte) bool {
	// Cheap rejections first: most lines of code end with ';', '{', ')' or nothing.
	t := trimBlanksRight(line)
	if len(t) < 2 || t[len(t)-1] != ',' {
		return false
	}
	depth, inStr, values := 0, false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !inStr && inSet(c, dataBytesLo, dataBytesHi) {
			continue
		}
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr, values = true, true
		case c == '/' && i+1 < len(t) && t[i+1] == '*':
			e := bytes.Index(t[i+2:], []byte("*/"))
			if e < 0 {
				return false
			}
			i += e + 3
		case c >= '0' && c <= '9':
			values = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth < 0 {
				return false
			}
		default:
			return false
		}
	}
	return !inStr && depth == 0 && values
}

// dataBytesLo and dataBytesHi are the bytes a data line may hold that isDataLine passes over
// (letters, '_', '.', ',', blanks, '[', ']', '=', '-', '+', ':'), as a set for inSet.
const (
	dataBytesLo = 1<<'.' | 1<<',' | 1<<' ' | 1<<'\t' | 1<<'=' | 1<<'-' | 1<<'+' | 1<<':'
	dataBytesHi = (1<<26-1)<<('A'-64) | (1<<26-1)<<('a'-64) | 1<<('_'-64) | 1<<('['-64) | 1<<(']'-64)
)
