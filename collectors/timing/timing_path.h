/*
 * timing_path.h - call paths on the hot path (included through
 * timing_frame.h by the hot files only): each timed call's node in its thread's calling-context tree,
 * found from its caller's node and its function when the frame opens, and
 * its figures added when the frame closes.  The tree is a hash table of
 * nodes keyed by (parent node, function), TM_MAX_PATHS per thread: a call
 * whose node does not fit is counted in paths_dropped, and so are the calls
 * below it.  The reporter merges the threads' trees (timing_path.c).
 *
 * A signal handler running instrumented code on the same thread may claim
 * a slot between two steps of an insertion: the slot is claimed with one
 * CAS after its parent is written, and its place in porder taken with one
 * atomic add (first calls of a path only), as tm_lookup does.
 */
#ifndef HOOKSCOPE_TIMING_PATH_H
#define HOOKSCOPE_TIMING_PATH_H

#include "timing_int.h"

#define TM_PATH_HOT __attribute__((no_instrument_function))

static inline TM_PATH_HOT uint32_t tm_path_hash(uintptr_t fn, uint32_t parent)
{
	return (uint32_t)((((uint64_t)fn ^ ((uint64_t)parent << 44)) * 0x9E3779B97F4A7C15ull)
	    >> (64 - 13)) & (TM_PSLOTS - 1);
}

/* Insert (parent, fn) from slot i on: its node + 1, or TM_PATH_DROP when
 * the tree is full. */
static TM_PATH_HOT __attribute__((noinline)) uint32_t tm_path_insert(struct tm_block *b,
    uint32_t i, uint32_t parent, uintptr_t fn)
{
	for (;;) {
		struct tm_node *n = &b->nodes[i];

		if (n->fn == fn && __atomic_load_n(&n->parent, __ATOMIC_RELAXED) == parent)
			return i + 1;
		if (n->fn == 0) {
			uintptr_t none = 0;
			uint32_t k;

			if (__atomic_load_n(&b->npaths, __ATOMIC_RELAXED) >= TM_MAX_PATHS)
				break;
			__atomic_store_n(&n->parent, parent, __ATOMIC_RELAXED);
			if (!__atomic_compare_exchange_n(&n->fn, &none, fn, false,
			    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
				continue;       /* taken meanwhile: look again */
			k = __atomic_fetch_add(&b->npaths, 1, __ATOMIC_RELAXED);
			if (k < TM_MAX_PATHS)
				__atomic_store_n(&b->porder[k], (uint16_t)(i + 1), __ATOMIC_RELEASE);
			return i + 1;
		}
		i = (i + 1) & (TM_PSLOTS - 1);
	}
	__atomic_store_n(&b->paths_dropped, b->paths_dropped + 1, __ATOMIC_RELAXED);
	return TM_PATH_DROP;
}

/* The node + 1 of path (parent, fn), added if new (TM_PATH_DROP: full). */
static inline TM_PATH_HOT uint32_t tm_path_node(struct tm_block *b, uint32_t parent, uintptr_t fn)
{
	uint32_t i = tm_path_hash(fn, parent);
	const struct tm_node *n = &b->nodes[i];

	if (__builtin_expect(n->fn == fn && n->parent == parent, 1))
		return i + 1;
	return tm_path_insert(b, i, parent, fn);
}

/* The frames under frame d opened while paths were off (pnode 0; with
 * paths on a frame always has a node or TM_PATH_DROP): their nodes from
 * the outermost of them up, so paths turned on under a running main still
 * start at main.  The node + 1 of frame d - 1. */
static TM_PATH_HOT __attribute__((noinline)) uint32_t tm_path_adopt(struct tm_block *b, uint32_t d)
{
	uint32_t k = d - 1, parent;

	while (k > 0 && b->pnode[k - 1] == 0)
		k--;
	parent = k > 0 ? b->pnode[k - 1] : 0;
	for (; k < d; k++) {
		if (parent != TM_PATH_DROP)
			parent = tm_path_node(b, parent, b->stack[k].fn);
		b->pnode[k] = parent;
	}
	return parent;
}

/* The node + 1 of a call of fn opening frame d (0 when paths are off). */
static inline TM_PATH_HOT uint32_t tm_path_enter(struct tm_block *b, uint32_t d, uintptr_t fn)
{
	uint32_t parent;

	if (__builtin_expect(!__atomic_load_n(&tm_params.paths, __ATOMIC_RELAXED), 0))
		return 0;
	parent = d > 0 ? b->pnode[d - 1] : 0;
	if (__builtin_expect(parent == 0, 0) && d > 0)
		parent = tm_path_adopt(b, d);
	if (__builtin_expect(parent == TM_PATH_DROP, 0)) {
		__atomic_store_n(&b->paths_dropped, b->paths_dropped + 1, __ATOMIC_RELAXED);
		return TM_PATH_DROP;
	}
	return tm_path_node(b, parent, fn);
}

/* Frame d closes with these figures: add them to its node. */
static inline __attribute__((always_inline)) TM_PATH_HOT void tm_path_exit(struct tm_block *b,
    uint32_t d, uint64_t incl, uint64_t self)
{
	uint32_t k = b->pnode[d] - 1;

	if (k < TM_PSLOTS) {
		struct tm_node *n = &b->nodes[k];

		__atomic_store_n(&n->calls, n->calls + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&n->incl, n->incl + incl, __ATOMIC_RELAXED);
		__atomic_store_n(&n->self, n->self + self, __ATOMIC_RELAXED);
	}
}

#endif
