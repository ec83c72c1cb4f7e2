package extract

/*
#include <stdlib.h>
#include "flat.h"
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
)

// node mirrors cg_node in flat.h; layoutOK checks that the two agree.
type node struct {
	start, end       uint32 // byte offsets
	startRow, endRow uint32 // 0-based
	next             uint32 // index just past the subtree
	parent           int32
	sym, field       uint16
	flags            uint8
	_                [3]byte
}

const nodeMissing = 1 // CG_MISSING

// parseError is the type of the parser's own failures, so that they can be constants.
type parseError string

func (e parseError) Error() string { return string(e) }

const errParseTimeout parseError = "parse took longer than the time limit"

// layoutOK reports whether node has cg_node's layout.
func layoutOK() error {
	var n C.cg_node
	if unsafe.Sizeof(node{}) != unsafe.Sizeof(n) ||
		unsafe.Offsetof(node{}.sym) != unsafe.Offsetof(n.symbol) ||
		unsafe.Offsetof(node{}.flags) != unsafe.Offsetof(n.flags) ||
		unsafe.Offsetof(node{}.parent) != unsafe.Offsetof(n.parent) {
		return fmt.Errorf("codegraph: Go and C node layouts differ (%d and %d bytes)", unsafe.Sizeof(node{}), unsafe.Sizeof(n))
	}
	return nil
}

// useArenaAllocator installs the workers' arena allocator in tree-sitter (see flat.h); outside
// cg_parse_flatten it is C's malloc and free. It is idempotent.
func useArenaAllocator() { C.cg_use_arena_allocator() }

// parser parses files of any language and flattens their trees. It is not safe for concurrent
// use: each indexing worker owns one. Close releases the C buffer and arena.
//
// Parsing goes through the runtime's C API (cg_parse_flatten) rather than go-tree-sitter's
// Parser: its Parse hands the text over through a Go callback that copies every chunk, and its
// tree walks cost several cgo calls per node. Here a file costs one cgo call.
type parser struct {
	gs       *Grammars
	buf      C.cg_buf
	maxNodes uint32
}

func newParser(gs *Grammars, maxNodes int) *parser {
	if maxNodes <= 0 || maxNodes > 1<<31-1 {
		maxNodes = 1<<31 - 1
	}
	return &parser{gs: gs, maxNodes: uint32(maxNodes)}
}

func (p *parser) Close() { C.cg_buf_free(&p.buf) }

// parse parses src as l and returns its named nodes in preorder; they stay valid until the next
// call. A parse that runs longer than timeout (when positive) is abandoned with errParseTimeout.
// gaps, from skipGaps, are byte ranges the parser skips.
func (p *parser) parse(l lang.Lang, src []byte, gaps []uint32, timeout time.Duration) ([]node, error) {
	if int64(len(src)) >= 1<<32-1 {
		return nil, fmt.Errorf("file too large to parse (%d bytes)", len(src))
	}
	var ptr *C.char
	if len(src) > 0 {
		ptr = (*C.char)(unsafe.Pointer(&src[0]))
	}
	var gp *C.uint32_t
	if len(gaps) > 0 {
		gp = (*C.uint32_t)(unsafe.Pointer(&gaps[0]))
	}
	switch C.cg_parse_flatten((*C.TSLanguage)(p.gs[l].ptr), ptr, C.uint32_t(len(src)), gp, C.uint32_t(len(gaps)/4), C.int64_t(timeout), &p.buf, C.uint32_t(p.maxNodes)) {
	case C.CG_OK:
	case C.CG_TIMEOUT:
		return nil, errParseTimeout
	case C.CG_LANG:
		return nil, fmt.Errorf("%v grammar refused by the tree-sitter runtime", l)
	default:
		return nil, fmt.Errorf("syntax tree has more than %d nodes", p.maxNodes)
	}
	if p.buf.len == 0 {
		return nil, nil
	}
	return unsafe.Slice((*node)(unsafe.Pointer(p.buf.nodes)), int(p.buf.len)), nil
}
