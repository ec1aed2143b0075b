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

/* What the shared comparison looks at (protocol/rank.h). */
static void
rank_row(struct proto_rank_row *r, const struct daemon_func *f)
{
	*r = (struct proto_rank_row){
		.name = f->name, .addr = f->addr, .calls = f->calls,
		.total_ns = f->total_ns, .running_ns = f->running_ns,
		.self_ns = f->self_ns, .avg_ns = daemon_func_avg(f),
		.max_ns = f->max_ns, .slow = f->slow, .rate = f->rate,
	};
}

/* The key's comparison of two functions. */
static int
rank_cmp(int key, const struct daemon_func *a, const struct daemon_func *b)
{
	struct proto_rank_row ra, rb;

	rank_row(&ra, a);
	rank_row(&rb, b);
	return proto_rank_cmp(key, &ra, &rb);
}

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

/* Heap order: the root is the worst-ranked function kept. */
static void
rank_sift_down(struct daemon_func **h, size_t n, size_t i, int key)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;

		if (l < n && rank_cmp(key, h[l], h[w]) > 0)
			w = l;
		if (r < n && rank_cmp(key, h[r], h[w]) > 0)
			w = r;
		if (w == i)
			return;
		struct daemon_func *t = h[i];
		h[i] = h[w];
		h[w] = t;
		i = w;
	}
}

/* Sift a new leaf up toward the root. */
static void
rank_sift_up(struct daemon_func **h, size_t i, int key)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (rank_cmp(key, h[i], h[p]) <= 0)
			return;
		struct daemon_func *t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

/* qsort_r adapter. */
static int
rank_qsort_cmp(const void *a, const void *b, void *arg)
{
	return rank_cmp(*(const int *)arg, *(struct daemon_func *const *)a,
	    *(struct daemon_func *const *)b);
}

/* Rank s's functions (see daemon.h). */
size_t
daemon_rank(struct daemon_session *s, int key, const char *filter,
    struct daemon_func **out, size_t cap, struct daemon_totals *tot)
{
	size_t n = 0;

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
		if ((f->calls == 0 && f->running_ns == 0) || cap == 0 ||
		    !rank_match(f, filter))
			continue;
		if (n < cap) {
			out[n] = f;
			rank_sift_up(out, n, key);
			n++;
		} else if (rank_cmp(key, f, out[0]) < 0) {
			out[0] = f;
			rank_sift_down(out, n, 0, key);
		}
	}
	qsort_r(out, n, sizeof *out, rank_qsort_cmp, &key);
	return n;
}
