package jitvul

import (
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/codegraph"
)

// Functions indexes src, the content of the file at p, with the code graph: its definitions,
// or why the file was skipped (binary, generated, over the limits). The result is shared: do
// not change it.
func (s *Session) Functions(p string, src []byte) (funcs []codegraph.Func, skip string, err error) {
	funcs, _, skip, err = s.Parse(p, src)
	return funcs, skip, err
}

// Parse is Functions with the file's call sites (each naming its enclosing definition by its
// index in funcs). The result is shared: do not change it.
func (s *Session) Parse(p string, src []byte) (funcs []codegraph.Func, calls []codegraph.Call, skip string, err error) {
	k := s.cache.key(p, src)
	if x, ok := s.cache.get(k, src); ok {
		return x.funcs, x.calls, x.skip, nil
	}
	funcs, calls, skip, err = s.index(p, src)
	if err == nil {
		s.cache.put(k, src, funcs, calls, skip)
	}
	return funcs, calls, skip, err
}

// index parses src with one of the session's file indexers.
func (s *Session) index(p string, src []byte) (funcs []codegraph.Func, calls []codegraph.Call, skip string, err error) {
	var fi *codegraph.FileIndexer
	select {
	case fi = <-s.pool:
	default:
		if fi, err = codegraph.NewFileIndexer(codegraph.Options{MaxFileSize: s.opts.MaxFileSize}); err != nil {
			return nil, nil, "", fmt.Errorf("start the code graph: %w", err)
		}
	}
	defer func() {
		select {
		case s.pool <- fi:
		default:
			fi.Close()
		}
	}()
	res, err := fi.IndexFile(p, src)
	if err != nil {
		return nil, nil, "", fmt.Errorf("index %s: %w", p, err)
	}
	return res.Funcs, res.Calls, res.Skip, nil
}

// function finds name in src (the file at p) with the code graph and returns its text and line.
func (s *Session) function(p string, src []byte, name string) (text string, line int, skip string, err error) {
	funcs, skip, err := s.Functions(p, src)
	if err != nil || skip != "" {
		return "", 0, skip, err
	}
	f, ok := pick(funcs, name)
	if !ok {
		return "", 0, "", nil
	}
	return string(src[f.StartByte:f.EndByte]), f.StartLine, "", nil
}

// pick chooses the definition of name: by qualified name first, then by name; functions and
// methods before macros; the first in the file among equals.
func pick(fs []codegraph.Func, name string) (codegraph.Func, bool) {
	best, rank := codegraph.Func{}, 0
	for _, f := range fs {
		r := 0
		switch {
		case f.QualName == name:
			r = 4
		case f.Name == name:
			r = 3
		case strings.HasSuffix(f.QualName, "::"+name) || strings.HasSuffix(f.QualName, "."+name):
			r = 2
		}
		if r == 0 {
			continue
		}
		if f.Kind != codegraph.Macro {
			r += 4
		}
		if r > rank {
			best, rank = f, r
		}
	}
	return best, rank > 0
}
