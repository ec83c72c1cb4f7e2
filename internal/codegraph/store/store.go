// Package store persists code graphs: an index is one file of unsigned varints with a string
// table and a checksum, read back with few allocations, and written through a rename so that
// readers see a whole file or none. It also keeps a snapshot's parse results per file content,
// from which an index of a sibling snapshot reuses what did not change.
package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"

	"github.com/vulnbench/vulnbench/internal/binfile"
	"github.com/vulnbench/vulnbench/internal/codegraph/graph"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// The persisted index is one file of unsigned varints: a string table, then files, functions,
// calls and skipped entries that refer to strings and files by number, then a CRC-32C of all
// that precedes it. Strings are decoded as slices of one string, so loading allocates little.
const indexMagic = "vulnbench-codegraph\n"

// FormatVersion changes whenever the layout of the persisted index or parse results changes.
const FormatVersion = 3

type encoder struct {
	buf  []byte
	strs map[string]uint64
	tab  []string
}

func (e *encoder) u(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) i(v int)    { e.buf = binary.AppendUvarint(e.buf, uint64(v)) }
func (e *encoder) s(v string) {
	id, ok := e.strs[v]
	if !ok {
		id = uint64(len(e.tab))
		e.strs[v] = id
		e.tab = append(e.tab, v)
	}
	e.u(id)
}

// encodeIndex writes ix (without its root, which is where it is opened from).
func encodeIndex(ix *graph.Index) []byte {
	// Sized once: growing a 4 MB buffer by doubling copies it and faults in every page again.
	body := &encoder{
		buf:  make([]byte, 0, 16*len(ix.Calls)+24*len(ix.Funcs)+32*len(ix.Files)+64*len(ix.Skipped)+64),
		strs: make(map[string]uint64, len(ix.Funcs)+len(ix.Files)),
		tab:  make([]string, 1, 1+len(ix.Funcs)+len(ix.Files)), // "" first
	}
	body.strs[""] = 0
	fileNo := make(map[string]int, len(ix.Files))
	body.s(ix.Hash)
	st := ix.Stats
	for _, v := range []int{st.Files, st.Functions, st.Macros, st.CallSites, st.Unresolved, st.References, st.Skipped, st.SyntaxErrors, st.Partial} {
		body.i(v)
	}
	body.u(uint64(st.Bytes))
	body.i(len(ix.Files))
	for i, f := range ix.Files {
		fileNo[f.Path] = i
		body.s(f.Path)
		lp := uint64(f.Lang) << 1
		if f.Partial {
			lp |= 1
		}
		body.u(lp)
		body.u(uint64(f.Size))
	}
	body.i(len(ix.Funcs))
	for _, f := range ix.Funcs {
		body.s(f.Name)
		body.s(f.QualName)
		flags := uint64(f.Kind) << 1
		if f.Static {
			flags |= 1
		}
		body.u(flags)
		body.i(fileNo[f.File])
		body.u(uint64(f.Lang))
		body.i(f.StartLine)
		body.i(f.EndLine - f.StartLine)
		body.i(f.StartByte)
		body.i(f.EndByte - f.StartByte)
		body.s(f.Signature)
	}
	body.i(len(ix.Calls))
	for _, c := range ix.Calls {
		body.s(c.Callee)
		body.s(c.Qualifier)
		body.s(c.Expr)
		body.u(uint64(c.Kind))
		body.i(fileNo[c.File])
		body.i(c.Line)
		body.i(c.Col)
		body.i(c.Caller + 1)
	}
	body.i(len(ix.Skipped))
	for _, s := range ix.Skipped {
		body.s(s.Path)
		body.s(s.Reason)
	}

	return frame(indexMagic, body)
}

// frame puts together a persisted file: magic, format version, string table, body, CRC-32C.
func frame(magic string, body *encoder) []byte {
	size := len(body.buf) + len(magic) + 32
	for _, s := range body.tab {
		size += len(s) + binary.MaxVarintLen64
	}
	out := &encoder{buf: make([]byte, 0, size)}
	out.buf = append(out.buf, magic...)
	out.u(FormatVersion)
	out.i(len(body.tab))
	for _, s := range body.tab {
		out.i(len(s))
	}
	for _, s := range body.tab {
		out.buf = append(out.buf, s...)
	}
	out.buf = append(out.buf, body.buf...)
	return binary.LittleEndian.AppendUint32(out.buf, crc32.Checksum(out.buf, crc32.MakeTable(crc32.Castagnoli)))
}

// decoder reads a persisted file's body with its string table.
type decoder struct {
	binfile.Reader
	tab []string
}

func (d *decoder) i() int { return d.N(1 << 40) }

func (d *decoder) s() string {
	id := d.N(len(d.tab))
	if d.Err != nil {
		return ""
	}
	return d.tab[id]
}

// unframe checks a persisted file's magic, checksum and version and reads its string table; the
// decoder is left at the start of the body.
func unframe(b []byte, magic string) (*decoder, error) {
	if len(b) < len(magic)+4 || !bytes.HasPrefix(b, []byte(magic)) {
		return nil, errors.New("not a vulnbench code graph file")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return nil, errors.New("checksum mismatch")
	}
	d := &decoder{Reader: binfile.Reader{Data: string(body), Off: len(magic), What: "index"}}
	if v := d.U(); v != FormatVersion {
		return nil, fmt.Errorf("format %d, want %d", v, FormatVersion)
	}
	nstr := d.N(len(body))
	lens := make([]int, nstr)
	total := 0
	for k := range lens {
		lens[k] = d.N(len(body))
		total += lens[k]
	}
	if d.Err != nil || d.Off+total > len(d.Data) {
		return nil, errors.New("truncated file")
	}
	d.tab = make([]string, nstr)
	for k, l := range lens {
		d.tab[k] = d.Take(l)
	}
	return d, nil
}

func decodeIndex(b []byte) (*graph.Index, error) {
	d, err := unframe(b, indexMagic)
	if err != nil {
		return nil, err
	}
	ix := &graph.Index{}
	ix.Hash = d.s()
	st := &ix.Stats
	for _, p := range []*int{&st.Files, &st.Functions, &st.Macros, &st.CallSites, &st.Unresolved, &st.References, &st.Skipped, &st.SyntaxErrors, &st.Partial} {
		*p = d.i()
	}
	st.Bytes = int64(d.U())
	ix.Files = make([]graph.File, d.N(len(d.Data)))
	for k := range ix.Files {
		p := d.s()
		lp := d.N(int(lang.Count) << 1)
		ix.Files[k] = graph.File{Path: p, Lang: lang.Lang(lp >> 1), Partial: lp&1 == 1, Size: int64(d.U())}
	}
	nf := len(ix.Files)
	ix.Funcs = make([]graph.Func, d.N(len(d.Data)))
	for k := range ix.Funcs {
		f := &ix.Funcs[k]
		f.Name, f.QualName = d.s(), d.s()
		flags := d.U()
		f.Kind, f.Static = graph.FuncKind(flags>>1), flags&1 == 1
		if fi := d.N(max(nf, 1)); nf > 0 {
			f.File = ix.Files[fi].Path
		}
		f.Lang = lang.Lang(d.N(int(lang.Count)))
		f.StartLine = d.i()
		f.EndLine = f.StartLine + d.i()
		f.StartByte = d.i()
		f.EndByte = f.StartByte + d.i()
		f.Signature = d.s()
	}
	nfn := len(ix.Funcs)
	ix.Calls = make([]graph.Call, d.N(len(d.Data)))
	for k := range ix.Calls {
		c := &ix.Calls[k]
		c.Callee, c.Qualifier, c.Expr = d.s(), d.s(), d.s()
		c.Kind = graph.CallKind(d.N(int(graph.Reference) + 1))
		if fi := d.N(max(nf, 1)); nf > 0 {
			c.File = ix.Files[fi].Path
		}
		c.Line, c.Col = d.i(), d.i()
		c.Caller = d.N(nfn+1) - 1
	}
	ix.Skipped = make([]graph.Skipped, d.N(len(d.Data)))
	for k := range ix.Skipped {
		ix.Skipped[k] = graph.Skipped{Path: d.s(), Reason: d.s()}
	}
	if d.Err != nil {
		return nil, d.Err
	}
	if d.Off != len(d.Data) {
		return nil, errors.New("corrupt index: trailing data")
	}
	// Empty lists read back as nil, as the builder leaves them.
	if len(ix.Files) == 0 {
		ix.Files = nil
	}
	if len(ix.Funcs) == 0 {
		ix.Funcs = nil
	}
	if len(ix.Calls) == 0 {
		ix.Calls = nil
	}
	if len(ix.Skipped) == 0 {
		ix.Skipped = nil
	}
	ix.Finish()
	return ix, nil
}

// ReadIndex reads the index saved in the file name.
func ReadIndex(name string) (*graph.Index, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	ix, err := decodeIndex(b)
	if err != nil {
		return nil, fmt.Errorf("read index %s: %w", name, err)
	}
	return ix, nil
}

// WriteIndex saves ix (without its Root, which is where it is opened from) in the file name.
func WriteIndex(name string, ix *graph.Index) error {
	if err := binfile.WriteAtomic(name, encodeIndex(ix)); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	return nil
}
