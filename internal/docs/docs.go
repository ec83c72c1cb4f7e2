// Package docs reads the shell blocks of vulnbench's Markdown documentation (README.md and
// docs/*.md), so that a test runs every one of them (docs as tests:
// every documented command runs) or finds it marked illustrative with the reason.
//
// A fenced block's opening fence names its language (```sh, ```text, ```go ...). The line before
// a shell block's fence marks it, as an HTML comment a reader of the rendered page does not see:
//
//	<!-- doc: NAME -->                 run by a journey (testdata/docs/*.txtar) as `doc NAME`
//	<!-- illustrative: REASON -->      not run, for REASON (it needs a paid key, ...)
//
// A block's commands are its lines with continuation lines (a trailing backslash) joined, blank
// and comment-only lines left out, numbered from 1.
package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Block is one fenced code block of a Markdown file.
type Block struct {
	File string // as given to Read
	Line int    // the opening fence's line, from 1
	Lang string // the fence's info string's first word
	// Name is the block's name when marked <!-- doc: NAME -->; Illustrative the reason when
	// marked <!-- illustrative: REASON -->.
	Name, Illustrative string
	Text               string // the block's lines, verbatim
}

// Shell reports whether the block is a shell block.
func (b Block) Shell() bool {
	switch b.Lang {
	case "sh", "bash", "shell", "console":
		return true
	}
	return false
}

// Where is FILE:LINE of the block's fence.
func (b Block) Where() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

// Command is one command of a shell block: its text (continuation lines kept), its line in the
// file and its number in the block (from 1).
type Command struct {
	N    int
	Line int
	Text string
}

// Commands lists the block's commands.
func (b Block) Commands() []Command {
	var out []Command
	lines := strings.Split(b.Text, "\n")
	for i := 0; i < len(lines); i++ {
		start := i
		cmd := lines[i]
		for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
			i++
			cmd += "\n" + lines[i]
		}
		t := strings.TrimSpace(cmd)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, Command{N: len(out) + 1, Line: b.Line + 1 + start, Text: cmd})
	}
	return out
}

var (
	fence  = regexp.MustCompile("^(```+|~~~+)(.*)$")
	marker = regexp.MustCompile(`^<!--\s*(doc|illustrative):\s*(.*?)\s*-->\s*$`)
)

// Read reads the fenced blocks of a Markdown file. An opening fence without a language, a fence
// never closed, and a marker that is not followed by a shell block are errors.
func Read(path string) ([]Block, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var (
		out     []Block
		cur     *Block
		close   string
		body    []string
		prev    string // the line before the current one
		prevNum int
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if cur != nil {
			if strings.TrimSpace(line) == close {
				cur.Text = strings.Join(body, "\n")
				out = append(out, *cur)
				cur, body = nil, nil
			} else {
				body = append(body, line)
			}
			prev, prevNum = line, n
			continue
		}
		if m := fence.FindStringSubmatch(line); m != nil {
			info := strings.Fields(m[2])
			if len(info) == 0 {
				return nil, fmt.Errorf("%s:%d: a fenced block without a language: say ```sh for commands, ```text for output", path, n)
			}
			cur = &Block{File: path, Line: n, Lang: info[0]}
			close = m[1]
			if mm := marker.FindStringSubmatch(strings.TrimSpace(prev)); mm != nil {
				if mm[2] == "" {
					return nil, fmt.Errorf("%s:%d: the %s marker names nothing: <!-- doc: NAME --> or <!-- illustrative: REASON -->", path, prevNum, mm[1])
				}
				if mm[1] == "doc" {
					cur.Name = mm[2]
				} else {
					cur.Illustrative = mm[2]
				}
				if !cur.Shell() {
					return nil, fmt.Errorf("%s:%d: a %s marker before a %s block: only shell blocks are run", path, prevNum, mm[1], cur.Lang)
				}
			}
		} else if mm := marker.FindStringSubmatch(strings.TrimSpace(prev)); mm != nil {
			return nil, fmt.Errorf("%s:%d: a %s marker not followed by a fenced block", path, prevNum, mm[1])
		}
		prev, prevNum = line, n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the block is never closed", path, cur.Line)
	}
	return out, nil
}

// Files are the documentation files of the module at root: README.md and docs/*.md, relative
// to root.
func Files(root string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	out := []string{"README.md"}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		out = append(out, rel)
	}
	slices.Sort(out[1:])
	return out, nil
}

// Spans are the inline code spans of a Markdown file outside its fenced blocks, with their
// lines: `--flag`, `vulnbench run ...`. A span may run over a line break.
func Spans(path string) ([]Span, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	in := ""
	for i, line := range lines {
		if m := fence.FindStringSubmatch(line); m != nil && (in == "" || strings.TrimSpace(line) == in) {
			if in == "" {
				in = m[1]
			} else {
				in = ""
			}
			lines[i] = ""
			continue
		}
		if in != "" {
			lines[i] = ""
		}
	}
	prose := strings.Join(lines, "\n")
	var out []Span
	for _, m := range inlineCode.FindAllStringSubmatchIndex(prose, -1) {
		text := strings.Join(strings.Fields(prose[m[4]:m[5]]), " ")
		out = append(out, Span{Line: 1 + strings.Count(prose[:m[0]], "\n"), Text: text})
	}
	return out, nil
}

// Span is an inline code span, its white space folded.
type Span struct {
	Line int
	Text string
}

var inlineCode = regexp.MustCompile("(`+)([^`]+)`+")

// Simple splits a shell command into its simple commands' words, as far as a documentation
// check needs: quotes ('...', "...") kept together and removed, a backslash-newline joined,
// a comment (# after a blank) cut, and the operators |, ||, &&, ;, & and ) ending a simple
// command; a $(...) substitution is a word of its command, and its own commands are listed after. A leading VAR=value or a prompt (`host$ `) is dropped. Expansions are not made:
// "$VB_DB" is the word $VB_DB.
func Simple(cmd string) [][]string {
	var (
		out   [][]string
		words []string
		word  strings.Builder
		inW   bool
		inner [][]string // the commands of $(...) substitutions
	)
	flushWord := func() {
		if inW {
			words = append(words, word.String())
			word.Reset()
			inW = false
		}
	}
	flushCmd := func() {
		flushWord()
		for len(words) > 0 && (assignment.MatchString(words[0]) || strings.HasSuffix(words[0], "$")) {
			words = words[1:]
		}
		if len(words) > 0 {
			out = append(out, words)
		}
		words = nil
	}
	s := strings.ReplaceAll(cmd, "\\\n", " ")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				j = len(s) - i - 1
			}
			word.WriteString(s[i+1 : i+1+j])
			inW = true
			i += j + 1
		case c == '\\' && i+1 < len(s):
			word.WriteByte(s[i+1])
			inW = true
			i++
		case c == '#' && !inW:
			i = len(s)
		case c == ' ' || c == '\t' || c == '\n':
			flushWord()
		case c == '|' || c == '&' || c == ';' || c == ')' || c == '<' || c == '>':
			flushCmd()
			if c == '>' || c == '<' { // a redirection's target is no word of a command
				for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '&' || s[i+1] == ' ') {
					i++
				}
				for i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\n' {
					i++
				}
			}
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			depth, j := 1, i+2
			for ; j < len(s) && depth > 0; j++ {
				switch s[j] {
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			inner = append(inner, Simple(s[i+2:max(i+2, j-1)])...)
			word.WriteString(s[i:j]) // the substitution is one word of its command
			inW = true
			i = j - 1
		default:
			word.WriteByte(c)
			inW = true
		}
	}
	flushCmd()
	return append(out, inner...)
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
