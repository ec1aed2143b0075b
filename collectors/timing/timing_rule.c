/*
 * timing_rule.c - the overhead budget's rule (timing_rule.h).  Why this
 * rule never oscillates: a demotion happens only above the budget and goes
 * down to TR_LOW_PERMILLE of it; a promotion happens only when the cost
 * after it stays under TR_PROMOTE_PERMILLE, so a steady program never
 * crosses the budget again by a promotion; and a function changed recently
 * (held, timing_budget.c) is not promoted, so its new figures are seen first.
 */
#include <stdlib.h>

#include "protocol.h"
#include "timing_rule.h"

/* See timing_rule.h. */
double tr_mode_cost(const struct tr_params *p, unsigned mode)
{
	switch (mode) {
	case PROTO_FMODE_TIMED:   return p->timed_ps;
	case PROTO_FMODE_COUNTED: return p->counted_ps;
	case PROTO_FMODE_SAMPLED: return p->timed_ps * p->duty_ppm / 1e6;
	default:                  return 0;
	}
}

/* Is f cheap enough to count rather than sample (its average a small
 * multiple of a timed hook)?  Unknown averages count. */
static bool tr_countable(const struct tr_fn *f, const struct tr_params *p)
{
	return f->avg_ps == 0 || (double)f->avg_ps <= TR_COUNT_FACTOR * p->timed_ps;
}

/* The next mode down and up. */
static unsigned tr_down(const struct tr_fn *f, const struct tr_params *p)
{
	switch (f->mode) {
	case PROTO_FMODE_TIMED:   return tr_countable(f, p) ? PROTO_FMODE_COUNTED : PROTO_FMODE_SAMPLED;
	case PROTO_FMODE_COUNTED: return PROTO_FMODE_SAMPLED;
	default:                  return PROTO_FMODE_OFF;
	}
}

static unsigned tr_up(const struct tr_fn *f, const struct tr_params *p)
{
	switch (f->mode) {
	case PROTO_FMODE_OFF:     return PROTO_FMODE_SAMPLED;
	case PROTO_FMODE_SAMPLED: return tr_countable(f, p) ? PROTO_FMODE_COUNTED : PROTO_FMODE_TIMED;
	default:                  return PROTO_FMODE_TIMED;
	}
}

struct tr_key {
	size_t i;
	bool   named;
	double v;
};

/* Order: unnamed before named, then v descending. */
static int tr_cmp_down(const void *a, const void *b)
{
	const struct tr_key *x = a, *y = b;

	if (x->named != y->named)
		return x->named ? 1 : -1;
	return x->v < y->v ? 1 : x->v > y->v ? -1 : 0;
}

/* Order: named before unnamed, then v ascending. */
static int tr_cmp_up(const void *a, const void *b)
{
	const struct tr_key *x = a, *y = b;

	if (x->named != y->named)
		return x->named ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* Change f's mode to m; the projected cost's change. */
static double tr_move(struct tr_fn *f, unsigned m, const struct tr_params *p)
{
	double d = f->calls * (tr_mode_cost(p, m) - tr_mode_cost(p, f->mode));

	f->mode = (uint8_t)m;
	f->changed = true;
	return d;
}

/* See timing_rule.h. */
uint32_t tr_decide(struct tr_fn *f, size_t n, const struct tr_params *p)
{
	double total = 0, budget = p->cpu_ps * p->budget_ppm / 1e6;
	double low = budget * TR_LOW_PERMILLE / 1000, high = budget * TR_PROMOTE_PERMILLE / 1000;
	struct tr_key *k;

	if (p->cpu_ps <= 0 || n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		f[i].changed = false;
		total += f[i].calls * tr_mode_cost(p, f[i].mode);
	}
	k = xcalloc(n, sizeof *k);
	if (total > budget) {
		for (size_t i = 0; i < n; i++)
			k[i] = (struct tr_key){ .i = i, .named = f[i].named,
			    .v = f[i].calls * tr_mode_cost(p, f[i].mode) * p->timed_ps /
			        (p->timed_ps + (double)f[i].avg_ps) };
		qsort(k, n, sizeof *k, tr_cmp_down);
		/* Each pass demotes each function one step at most: the
		 * cheapest way down is spread over the most expensive first. */
		for (int pass = 0; pass < 3 && total > low; pass++)
			for (size_t j = 0; j < n && total > low; j++) {
				struct tr_fn *x = &f[k[j].i];
				unsigned m = tr_down(x, p);

				if (m != x->mode && x->calls > 0)
					total += tr_move(x, m, p);
			}
	} else if (total < high) {
		for (size_t i = 0; i < n; i++)
			k[i] = (struct tr_key){ .i = i, .named = f[i].named,
			    .v = f[i].calls * (tr_mode_cost(p, tr_up(&f[i], p)) -
			        tr_mode_cost(p, f[i].mode)) };
		qsort(k, n, sizeof *k, tr_cmp_up);
		for (size_t j = 0; j < n; j++) {
			struct tr_fn *x = &f[k[j].i];

			if (x->held || x->mode == PROTO_FMODE_TIMED || total + k[j].v > high)
				continue;
			total += tr_move(x, tr_up(x, p), p);
		}
	}
	free(k);
	return (uint32_t)(total / p->cpu_ps * 1e6 + 0.5);
}

/* See timing_rule.h. */
double tr_est_calls(double win_calls, double win_anchor, double off_anchor)
{
	return win_anchor > 0 ? win_calls * off_anchor / win_anchor : 0;
}
