#include <stdlib.h>
#include <time.h>

#include "flat.h"

typedef struct {
	uint32_t row;
	uint32_t column;
} TSPoint;

typedef struct {
	const void *tree;
	const void *id;
	uint32_t context[3];
} TSTreeCursor;

TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
uint16_t ts_tree_cursor_current_field_id(const TSTreeCursor *self);
uint16_t ts_node_symbol(TSNode self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
TSPoint ts_node_start_point(TSNode self);
TSPoint ts_node_end_point(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_is_missing(TSNode self);

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
TSNode ts_tree_root_node(const TSTree *self);

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
	uint32_t start = 0, row = 0;
	for (uint32_t i = 0; i < n; i++) {
		r[i] = (TSRange){{row, 0}, {g[4 * i + 2], 0}, start, g[4 * i]};
		start = g[4 * i + 1];
		row = g[4 * i + 3];
	}
	r[n] = (TSRange){{row, 0}, {UINT32_MAX, UINT32_MAX}, start, UINT32_MAX};
	ts_parser_set_included_ranges(p, r, n + 1);
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
	rc = cg_flatten(ts_tree_root_node(tree), buf, max_nodes);
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

static int grow_stack(cg_buf *b) {
	uint32_t cap = b->stack_cap ? b->stack_cap * 2 : 256;
	int32_t *s = realloc(b->stack, (size_t)cap * sizeof(int32_t));
	if (!s) return -1;
	b->stack = s;
	b->stack_cap = cap;
	return 0;
}

int cg_flatten(TSNode root, cg_buf *b, uint32_t max_nodes) {
	b->len = 0;
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t depth = 0; // entries in b->stack
	int rc = CG_OK;
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		int32_t up = depth ? b->stack[depth - 1] : -1;
		int32_t self = up;
		if (ts_node_is_named(n)) {
			if (b->len == max_nodes || (b->len == b->cap && grow_nodes(b))) { rc = CG_LIMIT; break; }
			cg_node *e = &b->nodes[b->len];
			TSPoint sp = ts_node_start_point(n), ep = ts_node_end_point(n);
			e->start_byte = ts_node_start_byte(n);
			e->end_byte = ts_node_end_byte(n);
			e->start_row = sp.row;
			e->end_row = ep.row;
			e->next = 0;
			e->parent = up;
			e->symbol = ts_node_symbol(n);
			e->field = ts_tree_cursor_current_field_id(&c);
			e->flags = ts_node_is_missing(n) ? CG_MISSING : 0;
			self = (int32_t)b->len++;
		}
		if (depth == b->stack_cap && grow_stack(b)) { rc = CG_LIMIT; break; }
		b->stack[depth++] = self;
		if (ts_tree_cursor_goto_first_child(&c)) continue;
		// Leave nodes until one has a next sibling; close the subtrees of the emitted ones.
		for (;;) {
			int32_t leaving = b->stack[--depth];
			int32_t parent = depth ? b->stack[depth - 1] : -1;
			if (leaving != parent) b->nodes[leaving].next = b->len;
			if (ts_tree_cursor_goto_next_sibling(&c)) break;
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
		}
	}
done:
	ts_tree_cursor_delete(&c);
	if (rc) b->len = 0;
	return rc;
}

void cg_buf_free(cg_buf *b) {
	cg_arena_free(&b->arena);
	free(b->nodes);
	free(b->stack);
	b->nodes = NULL;
	b->stack = NULL;
	b->len = b->cap = b->stack_cap = 0;
}
