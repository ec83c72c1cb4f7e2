#include <stdlib.h>
#include <time.h>

#include "flat.h"
#include "tsmirror.h"

typedef struct {
	uint32_t row;
	uint32_t column;
} TSPoint;

typedef struct {
	void *payload;
	uint32_t current_byte_offset;
	bool has_error;
} TSParseState;

typedef struct {
	void *payload;
	bool (*progress_callback)(TSParseState *state);
} TSParseOptions;

typedef struct {
	void *payload;
	const char *(*read)(void *payload, uint32_t byte_index, TSPoint position, uint32_t *bytes_read);
	int encoding; // TSInputEncodingUTF8 = 0
	void *decode;
} TSInput;

TSTree *ts_parser_parse_with_options(TSParser *self, const TSTree *old_tree, TSInput input, TSParseOptions options);
void ts_tree_delete(TSTree *self);

typedef struct {
	const char *src;
	uint32_t len;
} text;

// read hands the parser the whole rest of the text: no copy.
static const char *read_text(void *payload, uint32_t i, TSPoint pos, uint32_t *n) {
	(void)pos;
	text *t = payload;
	if (i >= t->len) {
		*n = 0;
		return "";
	}
	*n = t->len - i;
	return t->src + i;
}

static int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// past_deadline is the progress callback: tree-sitter calls it every hundred or so operations.
static bool past_deadline(TSParseState *s) { return now_ns() > *(int64_t *)s->payload; }

typedef struct {
	TSPoint start_point;
	TSPoint end_point;
	uint32_t start_byte;
	uint32_t end_byte;
} TSRange;

bool ts_parser_set_included_ranges(TSParser *self, const TSRange *ranges, uint32_t count);

// set_gaps makes the parser read everything but the gaps. Should the runtime refuse the ranges,
// the whole text is parsed, which gives the same tree more slowly.
static void set_gaps(TSParser *p, const uint32_t *g, uint32_t n) {
	TSRange *r = malloc((size_t)(n + 1) * sizeof(TSRange));
	if (!r) return;
	uint32_t start = 0, row = 0, k = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (g[4 * i] > start) r[k++] = (TSRange){{row, 0}, {g[4 * i + 2], 0}, start, g[4 * i]};
		start = g[4 * i + 1];
		row = g[4 * i + 3];
	}
	r[k++] = (TSRange){{row, 0}, {UINT32_MAX, UINT32_MAX}, start, UINT32_MAX};
	ts_parser_set_included_ranges(p, r, k);
	free(r);
}

int cg_parse_flatten(const TSLanguage *lang, const char *src, uint32_t len, const uint32_t *gaps, uint32_t ngaps,
                     int64_t timeout_ns, cg_buf *buf, uint32_t max_nodes) {
	bool arena = len <= CG_ARENA_MAX;
	if (arena) cg_arena_begin(&buf->arena);
	int rc = CG_LANG;
	TSParser *p = ts_parser_new();
	if (!ts_parser_set_language(p, lang)) goto out;
	if (ngaps > 0) set_gaps(p, gaps, ngaps);
	text t = {src, len};
	TSInput in = {&t, read_text, 0, NULL};
	int64_t deadline = timeout_ns > 0 ? now_ns() + timeout_ns : 0;
	TSParseOptions opts = {&deadline, timeout_ns > 0 ? past_deadline : NULL};
	buf->len = 0;
	TSTree *tree = ts_parser_parse_with_options(p, NULL, in, opts);
	if (!tree) {
		rc = CG_TIMEOUT;
		goto out;
	}
	rc = cg_flatten(tree, lang, buf, max_nodes);
	if (!arena) ts_tree_delete(tree); // in the arena, the reset below frees the tree at once
out:
	ts_parser_delete(p); // also releases an external scanner's state, which may be C malloc's
	if (arena) cg_arena_end(&buf->arena);
	return rc;
}

static int grow_nodes(cg_buf *b) {
	uint32_t cap = b->cap ? b->cap * 2 : 4096;
	cg_node *n = realloc(b->nodes, (size_t)cap * sizeof(cg_node));
	if (!n) return -1;
	b->nodes = n;
	b->cap = cap;
	return 0;
}

// cg_frame is a subtree whose children the walk is going through.
struct cg_frame {
	const ts_subtree *children;
	uint32_t count, i;  // children, and the next one
	uint32_t structural; // the next non-extra child's index, for aliases and fields
	ts_length pos;       // where the next child's text starts (after its padding)
	const ts_symbol *aliases;
	const ts_field_map_entry *fields, *fields_end;
	uint16_t field;  // a hidden subtree's own field, which its visible children without one inherit
	int32_t parent;  // the nearest emitted node at or above this subtree, -1 for none
	int32_t self;    // the emitted node this subtree is, whose next is set when it closes, or -1
};

static int grow_stack(cg_buf *b) {
	uint32_t cap = b->stack_cap ? b->stack_cap * 2 : 256;
	struct cg_frame *s = realloc(b->stack, (size_t)cap * sizeof(struct cg_frame));
	if (!s) return -1;
	b->stack = s;
	b->stack_cap = cap;
	return 0;
}

// push_frame starts going through t's children; t starts at pos.
static int push_frame(cg_buf *b, uint32_t *depth, const ts_language *l, ts_subtree t, ts_length pos, uint16_t field,
                      int32_t parent, int32_t self) {
	if (*depth == b->stack_cap && grow_stack(b)) return -1;
	struct cg_frame *f = &b->stack[(*depth)++];
	uint16_t prod = t.ptr->production_id;
	f->children = ts_children(t);
	f->count = t.ptr->child_count;
	f->i = 0;
	f->structural = 0;
	f->pos = pos;
	f->aliases = prod ? &l->alias_sequences[prod * l->max_alias_sequence_length] : NULL;
	f->fields = f->fields_end = NULL;
	if (l->field_count) {
		ts_map_slice s = l->field_map_slices[prod];
		f->fields = &l->field_map_entries[s.index];
		f->fields_end = f->fields + s.length;
	}
	f->field = field;
	f->parent = parent;
	f->self = self;
	return 0;
}

// cg_flatten writes the visible named nodes of the tree in preorder, with what the tree cursor
// would report of each (tree_cursor.c): a child is visible when its subtree is or its parent's
// alias sequence renames it; its field is the parent's non-inherited field entry for its
// structural index or, through hidden wrapper subtrees, the wrapper's; hidden subtrees are entered
// when they hold visible children.
int cg_flatten(const TSTree *tree, const TSLanguage *lang, cg_buf *b, uint32_t max_nodes) {
	const ts_language *l = (const ts_language *)lang;
	ts_subtree root = ((const ts_tree *)tree)->root;
	b->len = 0;
	if (max_nodes == 0 || (b->cap == 0 && grow_nodes(b))) return CG_LIMIT;
	// The root is visible by definition.
	ts_length pos = ts_padding(root), size = ts_size(root);
	ts_symbol sym = TS_GET(root, symbol);
	cg_node *e = &b->nodes[0];
	*e = (cg_node){.start_byte = pos.bytes, .end_byte = pos.bytes + size.bytes, .start_row = pos.extent.row,
	               .end_row = pos.extent.row + size.extent.row, .parent = -1,
	               .symbol = sym == TS_SYM_ERROR ? sym : l->public_symbol_map[sym],
	               .flags = TS_GET(root, is_missing) ? CG_MISSING : 0};
	bool named = TS_GET(root, named);
	int32_t top = named ? 0 : -1;
	if (named) b->len = 1;
	uint32_t depth = 0;
	if (ts_child_count(root) && push_frame(b, &depth, l, root, pos, 0, top, top)) goto limit;
	if (!ts_child_count(root) && named) e->next = b->len;
	while (depth) {
		struct cg_frame *f = &b->stack[depth - 1];
		if (f->i == f->count) {
			if (f->self >= 0) b->nodes[f->self].next = b->len;
			depth--;
			continue;
		}
		ts_subtree c = f->children[f->i];
		ts_length cpos = f->pos;
		ts_length csize = ts_size(c);
		f->pos = ts_length_add(f->pos, csize);
		if (++f->i < f->count) f->pos = ts_length_add(f->pos, ts_padding(f->children[f->i]));
		bool extra = TS_GET(c, extra);
		bool visible = TS_GET(c, visible);
		ts_symbol alias = 0;
		uint16_t field = 0;
		if (!extra) {
			uint32_t k = f->structural++;
			if (f->aliases) alias = f->aliases[k];
			if (alias) visible = true;
			const ts_field_map_entry *m = f->fields;
			for (; m < f->fields_end; m++) {
				if (!m->inherited && m->child_index == k) break;
			}
			field = m < f->fields_end ? m->field_id : f->field;
		}
		uint32_t kids = ts_child_count(c);
		if (!visible) {
			if (kids && c.ptr->visible_child_count &&
			    push_frame(b, &depth, l, c, cpos, extra ? 0 : field, f->parent, -1))
				goto limit;
			continue;
		}
		int32_t parent = f->parent, self = -1;
		if (alias) {
			named = alias == TS_SYM_ERROR || (alias != TS_SYM_ERROR_REPEAT && l->symbol_metadata[alias].named);
		} else {
			named = TS_GET(c, named);
		}
		if (named) {
			if (b->len == max_nodes || (b->len == b->cap && grow_nodes(b))) goto limit;
			sym = alias ? alias : TS_GET(c, symbol);
			e = &b->nodes[b->len];
			e->start_byte = cpos.bytes;
			e->end_byte = cpos.bytes + csize.bytes;
			e->start_row = cpos.extent.row;
			e->end_row = cpos.extent.row + csize.extent.row;
			e->next = b->len + 1;
			e->parent = parent;
			e->symbol = sym == TS_SYM_ERROR ? sym : l->public_symbol_map[sym];
			e->field = field;
			e->flags = TS_GET(c, is_missing) ? CG_MISSING : 0;
			self = parent = (int32_t)b->len++;
		}
		// A visible subtree's children inherit no field from it.
		if (kids && push_frame(b, &depth, l, c, cpos, 0, parent, self)) goto limit;
	}
	return CG_OK;
limit:
	b->len = 0;
	return CG_LIMIT;
}

void cg_buf_free(cg_buf *b) {
	cg_arena_free(&b->arena);
	free(b->nodes);
	free(b->stack);
	b->nodes = NULL;
	b->stack = NULL;
	b->len = b->cap = b->stack_cap = 0;
}
