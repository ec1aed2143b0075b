/*
 * rank.c - the top-N selection of a session's functions under a sort key
 * (the keys and their one comparison: protocol/rank.h).  The top N come
 * from a bounded heap (n log N), which matters at 10 frames per second per
 * client over tens of thousands of functions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"
#include "rank.h"

/* Average time per call. */
uint64_t
daemon_func_avg(const struct daemon_func *f)
{
	return f->calls ? f->total_ns / f->calls : 0;
}

/* Does f match the (case-insensitive substring) filter? */
static bool
rank_match(const struct daemon_func *f, const char *filter)
{
	char hex[32];

	if (filter == NULL || *filter == '\0')
		return true;
	if (f->name != NULL)
		return strcasestr(f->name, filter) != NULL;
	snprintf(hex, sizeof hex, "0x%" PRIx64, f->addr);
	return strcasestr(hex, filter) != NULL;
}

/* A candidate: what its key reads, taken once (protocol/rank.h). */
struct rank_ent {
	struct proto_rank_val v;
	struct daemon_func   *f;
};

/* The key's value of f. */
static void
rank_ent_of(struct rank_ent *e, int key, struct daemon_func *f)
{
	struct proto_rank_row r = {
		.name = f->name, .addr = f->addr, .calls = f->calls,
		.total_ns = f->total_ns, .running_ns = f->running_ns,
		.self_ns = f->self_ns, .max_ns = f->max_ns, .slow = f->slow, .rate = f->rate,
		/* only avg reads it: no division per function for the others */
		.avg_ns = key == PROTO_RANK_AVG ? daemon_func_avg(f) : 0,
	};

	proto_rank_val(key, &r, &e->v);
	e->f = f;
}

static inline int
rank_cmp(int key, const struct rank_ent *a, const struct rank_ent *b)
{
	(void)key;
	return proto_rank_cmp_val(&a->v, &b->v);
}

/* Heap order: the root is the worst-ranked function kept.  Put e at the
 * root in its place, sifting it down: children move up into the hole, e is
 * written once where it belongs. */
static void
rank_replace_root(struct rank_ent *h, size_t n, const struct rank_ent *e, int key)
{
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w;

		if (l >= n)
			break;
		w = r < n && rank_cmp(key, &h[r], &h[l]) > 0 ? r : l;
		if (rank_cmp(key, &h[w], e) <= 0)
			break;
		h[i] = h[w];
		i = w;
	}
	h[i] = *e;
}

/* Add e as a new leaf (h has room for n + 1), moving it up toward the
 * root. */
static void
rank_push(struct rank_ent *h, size_t n, const struct rank_ent *e, int key)
{
	size_t i = n;

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (rank_cmp(key, e, &h[p]) <= 0)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = *e;
}

/* qsort_r adapter. */
static int
rank_qsort_cmp(const void *a, const void *b, void *arg)
{
	return rank_cmp(*(const int *)arg, a, b);
}

/* Rank s's functions (see daemon.h). */
size_t
daemon_rank(struct daemon_session *s, int key, const char *filter,
    struct daemon_func **out, size_t cap, struct daemon_totals *tot)
{
	size_t n = 0, hcap = cap < s->funcs.n ? cap : s->funcs.n;
	struct rank_ent *h = xcalloc(hcap ? hcap : 1, sizeof *h), e;

	if (key < 0 || key >= PROTO_RANK_COUNT)
		key = PROTO_RANK_TOTAL;
	daemon_session_rates(s);
	if (tot != NULL)
		tot->calls = tot->self_ns = 0;
	for (size_t k = 0; k < s->funcs.n; k++) {
		struct daemon_func *f = &s->funcs.v[k];

		if (tot != NULL) {
			tot->calls += f->calls;
			tot->self_ns += f->self_ns;
		}
		/* Named but never called: not ranked.  A call in flight
		 * is (main, a stuck function): it has no calls yet. */
		if ((f->calls == 0 && f->running_ns == 0) || hcap == 0 ||
		    !rank_match(f, filter))
			continue;
		rank_ent_of(&e, key, f);
		if (n < hcap)
			rank_push(h, n++, &e, key);
		else if (rank_cmp(key, &e, &h[0]) < 0)
			rank_replace_root(h, n, &e, key);
	}
	qsort_r(h, n, sizeof *h, rank_qsort_cmp, &key);
	for (size_t i = 0; i < n; i++)
		out[i] = h[i].f;
	free(h);
	return n;
}
