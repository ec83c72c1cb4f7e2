// tsmirror.h: the tree-sitter runtime's internal tree layout, as flat.c's walker reads it.
//
// cg_flatten walks the subtrees of a finished tree directly instead of through a TSTreeCursor:
// the cursor API costs several calls per node (current node, field id, named, missing, points),
// each recomputing aliases and positions, and it visits anonymous tokens one call at a time; it
// was 10 % of the CPU of a cold glibc index. The walk below computes exactly what the cursor
// would (tree_cursor.c: visibility through alias sequences, fields through hidden wrapper nodes,
// positions by adding paddings and sizes), from the declarations mirrored here.
//
// They are copied from go-tree-sitter v0.25.0's src/subtree.h, src/length.h, src/tree.h and
// src/parser.h (the runtime's ABI 15 TSLanguage, of which only the leading fields are used; ABI
// 14 grammars share that prefix). go.mod pins that version; TestFlattenMatchesCursor compares
// this walk with go-tree-sitter's own cursor on every test file, so a layout change shows there.
#ifndef VULNBENCH_CODEGRAPH_TSMIRROR_H
#define VULNBENCH_CODEGRAPH_TSMIRROR_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tsmirror.h mirrors the little-endian subtree layout only"
#endif
#if UINTPTR_MAX != 0xffffffffffffffffu
#error "tsmirror.h mirrors the 64-bit subtree layout only"
#endif

typedef uint16_t ts_symbol;

typedef struct {
	uint32_t row, column;
} ts_point;

typedef struct {
	uint32_t bytes;
	ts_point extent;
} ts_length;

// SubtreeInlineData (little-endian, 64-bit).
typedef struct {
	bool is_inline : 1;
	bool visible : 1;
	bool named : 1;
	bool extra : 1;
	bool has_changes : 1;
	bool is_missing : 1;
	bool is_keyword : 1;
	uint8_t symbol;
	uint16_t parse_state;
	uint8_t padding_columns;
	uint8_t padding_rows : 4;
	uint8_t lookahead_bytes : 4;
	uint8_t padding_bytes;
	uint8_t size_bytes;
} ts_inline;

// SubtreeHeapData.
typedef struct {
	volatile uint32_t ref_count;
	ts_length padding;
	ts_length size;
	uint32_t lookahead_bytes;
	uint32_t error_cost;
	uint32_t child_count;
	ts_symbol symbol;
	uint16_t parse_state;

	bool visible : 1;
	bool named : 1;
	bool extra : 1;
	bool fragile_left : 1;
	bool fragile_right : 1;
	bool has_changes : 1;
	bool has_external_tokens : 1;
	bool has_external_scanner_state_change : 1;
	bool depends_on_column : 1;
	bool is_missing : 1;
	bool is_keyword : 1;

	union {
		struct {
			uint32_t visible_child_count;
			uint32_t named_child_count;
			uint32_t visible_descendant_count;
			int32_t dynamic_precedence;
			uint16_t repeat_depth;
			uint16_t production_id;
			struct {
				ts_symbol symbol;
				uint16_t parse_state;
			} first_leaf;
		};
		struct {
			union {
				char *long_data;
				char short_data[24];
			};
			uint32_t length;
		} external_scanner_state;
		int32_t lookahead_char;
	};
} ts_heap;

// Subtree: a leaf small enough is stored inline, its is_inline bit where a pointer's lowest bit is.
typedef union {
	ts_inline data;
	const ts_heap *ptr;
} ts_subtree;

// The leading fields of struct TSTree.
typedef struct {
	ts_subtree root;
	const void *language;
} ts_tree;

typedef struct {
	uint16_t field_id;
	uint8_t child_index;
	bool inherited;
} ts_field_map_entry;

typedef struct {
	uint16_t index, length;
} ts_map_slice;

typedef struct {
	bool visible, named, supertype;
} ts_symbol_metadata;

// The leading fields of struct TSLanguage, up to the ones the walk reads.
typedef struct {
	uint32_t abi_version;
	uint32_t symbol_count;
	uint32_t alias_count;
	uint32_t token_count;
	uint32_t external_token_count;
	uint32_t state_count;
	uint32_t large_state_count;
	uint32_t production_id_count;
	uint32_t field_count;
	uint16_t max_alias_sequence_length;
	const uint16_t *parse_table;
	const uint16_t *small_parse_table;
	const uint32_t *small_parse_table_map;
	const void *parse_actions;
	const char *const *symbol_names;
	const char *const *field_names;
	const ts_map_slice *field_map_slices;
	const ts_field_map_entry *field_map_entries;
	const ts_symbol_metadata *symbol_metadata;
	const ts_symbol *public_symbol_map;
	const uint16_t *alias_map;
	const ts_symbol *alias_sequences;
} ts_language;

enum { TS_SYM_ERROR = (ts_symbol)-1, TS_SYM_ERROR_REPEAT = (ts_symbol)-2 };

#define TS_GET(t, name) ((t).data.is_inline ? (t).data.name : (t).ptr->name)

static inline uint32_t ts_child_count(ts_subtree t) { return t.data.is_inline ? 0 : t.ptr->child_count; }

static inline const ts_subtree *ts_children(ts_subtree t) { return (const ts_subtree *)t.ptr - t.ptr->child_count; }

static inline ts_length ts_padding(ts_subtree t) {
	if (t.data.is_inline) return (ts_length){t.data.padding_bytes, {t.data.padding_rows, t.data.padding_columns}};
	return t.ptr->padding;
}

static inline ts_length ts_size(ts_subtree t) {
	if (t.data.is_inline) return (ts_length){t.data.size_bytes, {0, t.data.size_bytes}};
	return t.ptr->size;
}

static inline ts_length ts_length_add(ts_length a, ts_length b) {
	ts_length r;
	r.bytes = a.bytes + b.bytes;
	if (b.extent.row > 0) {
		r.extent.row = a.extent.row + b.extent.row;
		r.extent.column = b.extent.column;
	} else {
		r.extent.row = a.extent.row;
		r.extent.column = a.extent.column + b.extent.column;
	}
	return r;
}

#endif
