package store

import (
	"fmt"
	"os"

	"github.com/vulnbench/vulnbench/internal/binfile"
	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

const parsedMagic = "vulnbench-codegraph-parsed\n"

// Key names one file content as parsed: its sha256 and the language it was read as.
type Key struct {
	Hash [32]byte
	Lang lang.Lang
}

// Parsed is the parse result of one file content, before the snapshot-wide resolution (every
// reference the extractors saw is kept). Its Path and the File of its definitions and calls are
// not saved: they read back empty, to be filled in with the path of each file of that content.
type Parsed struct {
	Key    Key
	Result *graph.FileResult
}

// WriteParsed saves the parse results in the file name.
func WriteParsed(name string, ps []Parsed) error {
	n := 0
	for _, p := range ps {
		n += len(p.Result.Funcs)*24 + len(p.Result.Calls)*12 + 48
	}
	e := &encoder{buf: make([]byte, 0, n), strs: map[string]uint64{"": 0}, tab: make([]string, 1, 1024)}
	e.i(len(ps))
	for _, p := range ps {
		r := p.Result
		e.buf = append(e.buf, p.Key.Hash[:]...)
		lp := uint64(p.Key.Lang) << 1
		if r.Partial {
			lp |= 1
		}
		e.u(lp)
		e.i(r.SyntaxErrors)
		e.s(r.Skip)
		e.i(len(r.Funcs))
		for _, f := range r.Funcs {
			e.s(f.Name)
			e.s(f.QualName)
			flags := uint64(f.Kind) << 1
			if f.Static {
				flags |= 1
			}
			e.u(flags)
			e.i(f.StartLine)
			e.i(f.EndLine - f.StartLine)
			e.i(f.StartByte)
			e.i(f.EndByte - f.StartByte)
			e.s(f.Signature)
		}
		e.i(len(r.Calls))
		for _, c := range r.Calls {
			e.s(c.Callee)
			e.s(c.Qualifier)
			e.s(c.Expr)
			e.u(uint64(c.Kind))
			e.i(c.Line)
			e.i(c.Col)
			e.i(c.Caller + 1)
		}
		// Regions: nil (0) or 1 + the number of pairs, each pair as its gap from the last
		// unit's end and its extent.
		if r.Regions == nil {
			e.i(0)
		} else {
			e.i(1 + len(r.Regions)/2)
		}
		prevEnd := uint32(0)
		for k := 0; k+1 < len(r.Regions); k += 2 {
			const flags = graph.RegionUnsafe | graph.RegionErrors
			first, flag := r.Regions[k]&^flags, r.Regions[k]&flags
			e.i(int(first-prevEnd)<<2 | int(flag>>30))
			e.i(int(r.Regions[k+1] - first))
			prevEnd = r.Regions[k+1]
		}
		e.i(len(r.DroppedRefs))
		for _, c := range r.DroppedRefs {
			e.s(c.Callee)
			e.i(c.Line)
			e.i(c.Col)
		}
	}
	if err := binfile.WriteAtomic(name, frame(parsedMagic, e)); err != nil {
		return fmt.Errorf("save parse results: %w", err)
	}
	return nil
}

// ReadParsed reads the parse results saved in the file name, by content.
func ReadParsed(name string) (map[Key]*graph.FileResult, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	out, err := decodeParsed(b)
	if err != nil {
		return nil, fmt.Errorf("read parse results %s: %w", name, err)
	}
	return out, nil
}

func decodeParsed(b []byte) (map[Key]*graph.FileResult, error) {
	d, err := unframe(b, parsedMagic)
	if err != nil {
		return nil, err
	}
	limit := len(d.Data)
	n := d.N(limit)
	out := make(map[Key]*graph.FileResult, n)
	for range n {
		var k Key
		copy(k.Hash[:], d.Take(32))
		if d.Err != nil {
			break
		}
		lp := d.N(int(lang.Count) << 1)
		k.Lang = lang.Lang(lp >> 1)
		r := &graph.FileResult{Lang: k.Lang, Partial: lp&1 == 1, SyntaxErrors: d.i(), Skip: d.s()}
		if nf := d.N(limit); nf > 0 {
			r.Funcs = make([]graph.Func, nf)
		}
		for i := range r.Funcs {
			f := &r.Funcs[i]
			f.Name, f.QualName = d.s(), d.s()
			flags := d.U()
			f.Kind, f.Static, f.Lang = graph.FuncKind(flags>>1), flags&1 == 1, k.Lang
			f.StartLine = d.i()
			f.EndLine = f.StartLine + d.i()
			f.StartByte = d.i()
			f.EndByte = f.StartByte + d.i()
			f.Signature = d.s()
		}
		if nc := d.N(limit); nc > 0 {
			r.Calls = make([]graph.Call, nc)
		}
		for i := range r.Calls {
			c := &r.Calls[i]
			c.Callee, c.Qualifier, c.Expr = d.s(), d.s(), d.s()
			c.Kind = graph.CallKind(d.N(int(graph.Reference) + 1))
			c.Line, c.Col = d.i(), d.i()
			c.Caller = d.N(len(r.Funcs)+1) - 1
		}
		if nr := d.N(limit); nr > 0 {
			r.Regions = make([]uint32, 0, 2*(nr-1))
			prevEnd := 0
			for range nr - 1 {
				v := d.i()
				first := prevEnd + v>>2
				last := first + d.i()
				if last >= graph.RegionErrors {
					d.Err = fmt.Errorf("corrupt parse results: region past line %d", graph.RegionErrors)
					break
				}
				r.Regions = append(r.Regions, uint32(first)|uint32(v&3)<<30, uint32(last))
				prevEnd = last
			}
		}
		if nd := d.N(limit); nd > 0 {
			r.DroppedRefs = make([]graph.Call, nd)
			for i := range r.DroppedRefs {
				r.DroppedRefs[i] = graph.Call{Callee: d.s(), Kind: graph.Reference, Line: d.i(), Col: d.i(), Caller: -1}
			}
		}
		out[k] = r
	}
	if d.Err != nil {
		return nil, d.Err
	}
	if d.Off != len(d.Data) {
		return nil, fmt.Errorf("corrupt parse results: trailing data")
	}
	return out, nil
}
