package graph

import (
	"bufio"
	"io"
	"strconv"
)

// WriteDefs writes one line per definition, in file order: name, file, start line, end line,
// tab-separated. Function-like macros are included.
func (ix *Index) WriteDefs(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	for i := range ix.Funcs {
		f := &ix.Funcs[i]
		line = append(line[:0], tsvField(f.Name)...)
		line = append(line, '\t')
		line = append(line, tsvField(f.File)...)
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(f.StartLine), 10)
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(f.EndLine), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteEdges writes one line per call edge, in file order: caller, callee, file, line,
// tab-separated. References (a function's name used as a value) are edges too, as in cflow;
// calls outside any function and unresolved calls (which have no callee name) are left out.
func (ix *Index) WriteEdges(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	for i := range ix.Calls {
		c := &ix.Calls[i]
		if c.Caller < 0 || c.Kind == Unresolved {
			continue
		}
		line = append(line[:0], tsvField(ix.Funcs[c.Caller].Name)...)
		line = append(line, '\t')
		line = append(line, tsvField(c.Callee)...)
		line = append(line, '\t')
		line = append(line, tsvField(c.File)...)
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(c.Line), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// tsvField keeps a value on its line and in its column: tabs and newlines become spaces.
func tsvField(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\t' || s[i] == '\n' || s[i] == '\r' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] == '\t' || b[j] == '\n' || b[j] == '\r' {
					b[j] = ' '
				}
			}
			return string(b)
		}
	}
	return s
}
