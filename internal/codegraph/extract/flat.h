// flat.h: the C half of the code graph. cg_parse_flatten parses one file with the tree-sitter
// runtime and walks the syntax tree once, in C, writing its named nodes into a flat preorder
// array that Go then reads without further cgo calls: one cgo call per file, no callbacks.
//
// The tree-sitter declarations used here mirror tree_sitter/api.h of go-tree-sitter v0.25.0
// (ABI 15), whose package compiles and links the runtime; layoutOK in cgo.go checks cg_node
// against its Go mirror. The walk reads the runtime's subtrees directly (tsmirror.h).
#ifndef VULNBENCH_CODEGRAPH_FLAT_H
#define VULNBENCH_CODEGRAPH_FLAT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct TSTree TSTree;
typedef struct TSParser TSParser;
typedef struct TSLanguage TSLanguage;

TSParser *ts_parser_new(void);
void ts_parser_delete(TSParser *self);
bool ts_parser_set_language(TSParser *self, const TSLanguage *language);

// cg_node is one named node. next is the index just past the node's subtree, so the children of
// node i are i+1, nodes[i+1].next, ... up to nodes[i].next; parent is -1 for the root.
typedef struct {
	uint32_t start_byte, end_byte;
	uint32_t start_row, end_row;
	uint32_t next;
	int32_t parent;
	uint16_t symbol, field;
	uint8_t flags; // CG_MISSING
	uint8_t pad[3];
} cg_node;

enum { CG_MISSING = 1 };

// cg_arena is a worker's bump allocator for the tree-sitter runtime (arena.c).
struct cg_chunk;
typedef struct {
	struct cg_chunk *used, *spare;
	size_t bytes; // allocated from the C library, kept or in use
} cg_arena;

// cg_buf is owned by one worker and reused from file to file.
typedef struct {
	cg_arena arena;
	cg_node *nodes;
	uint32_t len, cap;
	struct cg_frame *stack; // the walk's subtrees being gone through (flat.c)
	uint32_t stack_cap;
} cg_buf;

enum { CG_OK = 0, CG_TIMEOUT = 1, CG_LIMIT = 2, CG_LANG = 3 };

// cg_parse_flatten parses src[0:len] as lang with a new parser, flattens the tree into buf and
// releases both. Files up to CG_ARENA_MAX bytes are parsed in buf's arena (arena.c), which is
// reset afterwards instead of freeing the tree block by block. gaps holds ngaps (start byte, end
// byte, start row, end row) quadruples, sorted, each starting and ending at a line start: the
// parser skips them (included ranges). A parse that runs longer than timeout_ns (when positive)
// is abandoned: CG_TIMEOUT. More named nodes than max_nodes, or no memory: CG_LIMIT. A language
// the runtime refuses: CG_LANG.
int cg_parse_flatten(const TSLanguage *lang, const char *src, uint32_t len, const uint32_t *gaps, uint32_t ngaps,
                     int64_t timeout_ns, cg_buf *buf, uint32_t max_nodes);

enum { CG_ARENA_MAX = 4 << 20 };

// cg_flatten fills buf with the named nodes of tree (parsed as lang): CG_OK or CG_LIMIT.
int cg_flatten(const TSTree *tree, const TSLanguage *lang, cg_buf *buf, uint32_t max_nodes);
void cg_buf_free(cg_buf *buf);

// cg_use_arena_allocator installs arena.c's allocator in the tree-sitter runtime: the worker's
// arena during cg_parse_flatten, the C library's malloc and free everywhere else. go-tree-sitter
// installs allocators that call back into Go (two cgo transitions per malloc and free) whose
// memory also comes from C malloc, so memory allocated either way can be released either way.
void cg_use_arena_allocator(void);
void cg_arena_begin(cg_arena *a);
void cg_arena_end(cg_arena *a);
void cg_arena_free(cg_arena *a);

#endif
