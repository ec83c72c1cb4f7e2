// arena.c: a bump allocator for the tree-sitter runtime, one per indexing worker.
//
// A parse allocates hundreds of thousands of small blocks (subtrees, stack nodes, arrays) and
// frees them all when the tree is deleted, which costs about 8 % of a full index in malloc, free
// and the walk over the tree that releases it. While a worker parses a file, its thread points
// tl_arena at the worker's arena: allocations bump a pointer, frees do nothing (except for the
// most recent block), and after the file is flattened the arena is reset at once. The allocator
// functions are global (ts_set_allocator), so every other thread, and every call outside a
// parse, goes to the C library as before.

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flat.h"

void ts_set_allocator(void *(*new_malloc)(size_t), void *(*new_calloc)(size_t, size_t),
                      void *(*new_realloc)(void *, size_t), void (*new_free)(void *));

struct cg_chunk {
	struct cg_chunk *next;
	size_t cap, used;
	_Alignas(16) unsigned char data[];
};

enum {
	ALIGN = 16,
	HEADER = 16,                     // each block is preceded by its size
	FIRST_CHUNK = 1 << 20,           // bytes
	KEEP = 64 << 20,                 // bytes of chunks a reset keeps for the next file
};

static __thread cg_arena *tl_arena;

static size_t round_up(size_t n) { return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

// owner returns the chunk holding p, or NULL when p did not come from the arena.
static struct cg_chunk *owner(cg_arena *a, const void *p) {
	for (struct cg_chunk *c = a->used; c; c = c->next) {
		if ((const unsigned char *)p > c->data && (const unsigned char *)p <= c->data + c->used) return c;
	}
	return NULL;
}

static size_t block_size(const void *p) { return *(const size_t *)((const unsigned char *)p - HEADER); }

static void *arena_alloc(cg_arena *a, size_t n) {
	size_t need = HEADER + round_up(n ? n : 1);
	struct cg_chunk *c = a->used;
	if (!c || c->cap - c->used < need) {
		// Take a kept chunk that fits, or allocate one twice as big as the last.
		struct cg_chunk **pp = &a->spare;
		while (*pp && (*pp)->cap < need) pp = &(*pp)->next;
		if (*pp) {
			c = *pp;
			*pp = c->next;
		} else {
			size_t cap = c ? c->cap * 2 : FIRST_CHUNK;
			if (cap < need) cap = need;
			c = malloc(sizeof(struct cg_chunk) + cap);
			if (!c) return NULL;
			c->cap = cap;
			a->bytes += cap;
		}
		c->used = 0;
		c->next = a->used;
		a->used = c;
	}
	unsigned char *b = c->data + c->used;
	*(size_t *)b = n;
	c->used += need;
	return b + HEADER;
}

static void *cg_malloc(size_t n) {
	cg_arena *a = tl_arena;
	return a ? arena_alloc(a, n) : malloc(n);
}

static void *cg_calloc(size_t k, size_t n) {
	cg_arena *a = tl_arena;
	if (!a) return calloc(k, n);
	if (n && k > SIZE_MAX / n) return NULL;
	void *p = arena_alloc(a, k * n);
	if (p) memset(p, 0, k * n);
	return p;
}

static void *cg_realloc(void *p, size_t n) {
	cg_arena *a = tl_arena;
	if (!a) return realloc(p, n);
	if (!p) return arena_alloc(a, n);
	struct cg_chunk *c = owner(a, p);
	if (!c) return realloc(p, n); // allocated before the parse began: not ours
	size_t old = block_size(p);
	unsigned char *b = (unsigned char *)p - HEADER;
	if (c == a->used && b + HEADER + round_up(old ? old : 1) == c->data + c->used &&
	    (size_t)(b - c->data) + HEADER + round_up(n ? n : 1) <= c->cap) {
		// The last block of the current chunk grows (or shrinks) in place.
		c->used = (size_t)(b - c->data) + HEADER + round_up(n ? n : 1);
		*(size_t *)b = n;
		return p;
	}
	void *q = arena_alloc(a, n);
	if (q) memcpy(q, p, old < n ? old : n);
	return q;
}

static void cg_free(void *p) {
	cg_arena *a = tl_arena;
	if (!p) return;
	if (!a) {
		free(p);
		return;
	}
	struct cg_chunk *c = a->used;
	unsigned char *b = (unsigned char *)p - HEADER;
	if (c && b >= c->data && b < c->data + c->used) {
		size_t n = block_size(p);
		if (b + HEADER + round_up(n ? n : 1) == c->data + c->used) c->used = (size_t)(b - c->data); // the last block: give it back
		return;
	}
	if (!owner(a, p)) free(p); // allocated before the parse began
}

void cg_use_arena_allocator(void) { ts_set_allocator(cg_malloc, cg_calloc, cg_realloc, cg_free); }

void cg_arena_begin(cg_arena *a) { tl_arena = a; }

void cg_arena_end(cg_arena *a) {
	tl_arena = NULL;
	// Keep the biggest chunks up to KEEP bytes for the next file; free the rest.
	struct cg_chunk *all = a->used;
	a->used = NULL;
	while (all) {
		struct cg_chunk *c = all;
		all = c->next;
		c->next = a->spare;
		a->spare = c;
	}
	size_t kept = 0;
	struct cg_chunk **pp = &a->spare;
	// Sort by capacity, biggest first (a handful of chunks: insertion sort).
	struct cg_chunk *sorted = NULL;
	while (*pp) {
		struct cg_chunk *c = *pp;
		*pp = c->next;
		struct cg_chunk **q = &sorted;
		while (*q && (*q)->cap >= c->cap) q = &(*q)->next;
		c->next = *q;
		*q = c;
	}
	a->spare = NULL;
	pp = &a->spare;
	while (sorted) {
		struct cg_chunk *c = sorted;
		sorted = c->next;
		if (kept + c->cap <= KEEP) {
			kept += c->cap;
			c->next = NULL;
			*pp = c;
			pp = &c->next;
		} else {
			a->bytes -= c->cap;
			free(c);
		}
	}
}

void cg_arena_free(cg_arena *a) {
	cg_arena_end(a);
	while (a->spare) {
		struct cg_chunk *c = a->spare;
		a->spare = c->next;
		free(c);
	}
	a->bytes = 0;
}
