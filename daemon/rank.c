/*
 * rank.c - sort keys and the top-N selection of a session's functions.
 *
 * Numeric keys rank high values first, "name" ranks alphabetically; ties go
 * by address so the order is stable from frame to frame.  "total" ranks the
 * time of returned calls plus the time so far of calls in flight, so what is
 * slow right now shows before it returns.  The top N come from a bounded
 * heap (n log N), which matters at 10 frames per second per client over
 * tens of thousands of functions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"

typedef int (*rank_cmp_fn)(const struct daemon_func *, const struct daemon_func *);

/* Descending on a numeric field. */
#define RANK_DESC(a, b) (((a) < (b)) - ((a) > (b)))

/* Final tie breaker: lower address first. */
static int
rank_by_addr(const struct daemon_func *a, const struct daemon_func *b)
{
	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* Average time per call. */
uint64_t
daemon_func_avg(const struct daemon_func *f)
{
	return f->calls ? f->total_ns / f->calls : 0;
}

/* Returned plus running time, saturated (the figures come from an agent). */
static uint64_t
rank_total(const struct daemon_func *f)
{
	uint64_t t = f->total_ns + f->running_ns;

	return t < f->total_ns ? UINT64_MAX : t;
}

/* A descending comparison on one numeric figure, address as tie breaker. */
#define RANK_NUMERIC(key, type, expr)                                        \
	static type                                                          \
	rank_val_##key(const struct daemon_func *f)                          \
	{                                                                    \
		return (expr);                                               \
	}                                                                    \
	static int                                                           \
	rank_by_##key(const struct daemon_func *a, const struct daemon_func *b) \
	{                                                                    \
		type va = rank_val_##key(a), vb = rank_val_##key(b);         \
		int c = RANK_DESC(va, vb);                                   \
		return c ? c : rank_by_addr(a, b);                           \
	}

RANK_NUMERIC(calls, uint64_t, f->calls)
RANK_NUMERIC(rate,  double,   f->rate)
RANK_NUMERIC(total, uint64_t, rank_total(f))
RANK_NUMERIC(self,  uint64_t, f->self_ns)
RANK_NUMERIC(avg,   uint64_t, daemon_func_avg(f))
RANK_NUMERIC(max,   uint64_t, f->max_ns)
RANK_NUMERIC(slow,  uint64_t, f->slow)

/* Alphabetical; unnamed functions after named ones, by address. */
static int
rank_by_name(const struct daemon_func *a, const struct daemon_func *b)
{
	int c;

	if (a->name == NULL || b->name == NULL)
		c = (a->name == NULL) - (b->name == NULL);
	else
		c = strcmp(a->name, b->name);
	return c ? c : rank_by_addr(a, b);
}

static const struct {
	const char *name;
	rank_cmp_fn cmp;
} rank_keys[DAEMON_SORT_COUNT] = {
	[DAEMON_SORT_CALLS] = { .name = "calls", .cmp = rank_by_calls },
	[DAEMON_SORT_RATE]  = { .name = "rate",  .cmp = rank_by_rate },
	[DAEMON_SORT_TOTAL] = { .name = "total", .cmp = rank_by_total },
	[DAEMON_SORT_SELF]  = { .name = "self",  .cmp = rank_by_self },
	[DAEMON_SORT_AVG]   = { .name = "avg",   .cmp = rank_by_avg },
	[DAEMON_SORT_MAX]   = { .name = "max",   .cmp = rank_by_max },
	[DAEMON_SORT_SLOW]  = { .name = "slow",  .cmp = rank_by_slow },
	[DAEMON_SORT_NAME]  = { .name = "name",  .cmp = rank_by_name },
};

/* Key number of a name, or -1. */
int
daemon_sort_parse(const char *name)
{
	for (int k = 0; k < DAEMON_SORT_COUNT; k++)
		if (strcmp(rank_keys[k].name, name) == 0)
			return k;
	return -1;
}

/* Name of a key number. */
const char *
daemon_sort_name(int key)
{
	return key >= 0 && key < DAEMON_SORT_COUNT ? rank_keys[key].name : "?";
}

/* Every key name, for messages. */
const char *
daemon_sort_names(void)
{
	return "calls, rate, total, self, avg, max, slow, name";
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
rank_sift_down(struct daemon_func **h, size_t n, size_t i, rank_cmp_fn cmp)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;

		if (l < n && cmp(h[l], h[w]) > 0)
			w = l;
		if (r < n && cmp(h[r], h[w]) > 0)
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
rank_sift_up(struct daemon_func **h, size_t i, rank_cmp_fn cmp)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (cmp(h[i], h[p]) <= 0)
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
	rank_cmp_fn cmp = *(rank_cmp_fn *)arg;

	return cmp(*(struct daemon_func *const *)a, *(struct daemon_func *const *)b);
}

/* Rank s's functions (see daemon.h). */
size_t
daemon_rank(struct daemon_session *s, int key, const char *filter,
    struct daemon_func **out, size_t cap, struct daemon_totals *tot)
{
	rank_cmp_fn cmp;
	size_t n = 0;

	if (key < 0 || key >= DAEMON_SORT_COUNT)
		key = DAEMON_SORT_TOTAL;
	cmp = rank_keys[key].cmp;
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
			rank_sift_up(out, n, cmp);
			n++;
		} else if (cmp(f, out[0]) < 0) {
			out[0] = f;
			rank_sift_down(out, n, 0, cmp);
		}
	}
	qsort_r(out, n, sizeof *out, rank_qsort_cmp, &cmp);
	return n;
}
