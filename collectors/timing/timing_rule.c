/*
 * timing_rule.c - the overhead budget's rule (timing_rule.h).  Why this
 * rule never oscillates: a demotion happens only above the budget and goes
 * down to TR_LOW_PERMILLE of it; a promotion happens only when the cost
 * after it stays under TR_PROMOTE_PERMILLE, so a steady program never
 * crosses the budget again by a promotion; and a function changed recently
 * (held, timing_budget.c) is not promoted, so its new figures are seen first.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* What demoting f first is worth: its hooks' cost relative to its own time. */
static double tr_weight(const struct tr_fn *f, const struct tr_params *p)
{
	return f->calls * tr_mode_cost(p, f->mode) * p->timed_ps / (p->timed_ps + (double)f->avg_ps);
}

/* Is a demoted before b?  Unnamed before named, then the heavier. */
static bool tr_before(const struct tr_fn *f, size_t a, size_t b, const double *w)
{
	if (f[a].named != f[b].named)
		return !f[a].named;
	return w[a] > w[b];
}

/* Sift heap position i down (a max-heap of indexes by tr_before). */
static void tr_sift(size_t *h, size_t n, size_t i, const struct tr_fn *f, const double *w)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && tr_before(f, h[l], h[m], w))
			m = l;
		if (r < n && tr_before(f, h[r], h[m], w))
			m = r;
		if (m == i)
			return;
		size_t t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Change f's mode to m; the projected cost's change. */
static double tr_move(struct tr_fn *f, unsigned m, const struct tr_params *p)
{
	double d = f->calls * (tr_mode_cost(p, m) - tr_mode_cost(p, f->mode));

	f->mode = (uint8_t)m;
	f->changed = true;
	return d;
}

/* Can f be kept in mode as the anchor: does that cost at most half the
 * budget? */
static bool tr_anchor_affordable(const struct tr_fn *f, const struct tr_params *p, unsigned mode,
    double budget)
{
	return f->calls * tr_mode_cost(p, mode) <= budget / 2;
}

/* Over the budget: take the function first in line (tr_before), demote it
 * one step, put it back in line at its new weight; until the cost is low.
 * f[keep] (n: none) goes no lower than counted; the probe, sampled, stays
 * so while that costs at most half of low (a new probe's rate takes a
 * spell). */
static double tr_demote(struct tr_fn *f, size_t n, const struct tr_params *p, double total,
    double low, size_t keep)
{
	size_t *h = xcalloc(n, sizeof *h), hn = 0;
	double *w = xcalloc(n, sizeof *w);

	for (size_t i = 0; i < n; i++) {
		w[i] = tr_weight(&f[i], p);
		if (f[i].calls > 0 && f[i].mode != PROTO_FMODE_OFF)
			h[hn++] = i;
	}
	for (size_t i = hn / 2; i-- > 0;)
		tr_sift(h, hn, i, f, w);
	while (hn > 0 && total > low) {
		struct tr_fn *x = &f[h[0]];
		bool spared = x->probe && x->mode == PROTO_FMODE_SAMPLED &&
		    tr_anchor_affordable(x, p, PROTO_FMODE_SAMPLED, low);

		if (h[0] != keep && !spared)
			total += tr_move(x, tr_down(x, p), p);
		else if (x->mode == PROTO_FMODE_TIMED)
			total += tr_move(x, PROTO_FMODE_COUNTED, p);
		w[h[0]] = tr_weight(x, p);
		if (x->mode == PROTO_FMODE_OFF || spared ||
		    (h[0] == keep && x->mode == PROTO_FMODE_COUNTED))
			h[0] = h[--hn];
		tr_sift(h, hn, 0, f, w);
	}
	free(h);
	free(w);
	return total;
}

/* The anchor's floor: calls counted exactly over p's CPU time that let a
 * window estimate the sampled ones (timing_rule.h). */
static double tr_anchor_floor(const struct tr_params *p)
{
	return p->cpu_ps / 1000 * TR_ANCHOR_PER_NS;
}

/* Are f's calls estimated from the anchor's (sampled or off) and made?
 * An off one's, made at the rate it went off at unless p->off_seen: it
 * keeps a probe, never names one (tr_probe). */
static bool tr_estimated(const struct tr_fn *f)
{
	return (f->mode == PROTO_FMODE_SAMPLED || f->mode == PROTO_FMODE_OFF) && f->calls > 0;
}

/* Is an anchor needed after demotions to d: fewer calls counted exactly
 * than the floor, and at least min functions estimated by it?  A counted
 * anchor needs two (one would only be estimated by itself); the probe
 * one (it estimates itself by its rate). */
static bool tr_anchor_needed(const struct tr_fn *d, size_t n, const struct tr_params *p,
    size_t min)
{
	double exact = 0;
	size_t estimated = 0;

	for (size_t i = 0; i < n; i++) {
		if (d[i].mode == PROTO_FMODE_TIMED || d[i].mode == PROTO_FMODE_COUNTED)
			exact += d[i].calls;
		estimated += tr_estimated(&d[i]);
	}
	return exact < tr_anchor_floor(p) && estimated >= min;
}

/* Among the functions in mode from that made calls, the one with the
 * fewest calls that make the floor alone, or failing that the one with the
 * most; with a budget, only those that cost at most half of it in mode as.
 * n when there is none. */
static size_t tr_anchor_pick(const struct tr_fn *d, size_t n, const struct tr_params *p,
    unsigned from, unsigned as, const double *budget)
{
	double floor = tr_anchor_floor(p);
	size_t best = n;

	for (size_t i = 0; i < n; i++) {
		if (d[i].mode != from || d[i].calls <= 0 ||
		    (budget != NULL && !tr_anchor_affordable(&d[i], p, as, *budget)))
			continue;
		if (best == n)
			best = i;
		else if (d[i].calls >= floor)       /* the fewest that make the floor */
			best = d[best].calls < floor || d[i].calls < d[best].calls ? i : best;
		else if (d[best].calls < floor)     /* none yet: the most */
			best = d[i].calls > d[best].calls ? i : best;
	}
	return best;
}

/* See timing_rule.h.  A sampled one first: an off one costs its count. */
size_t tr_anchor(const struct tr_fn *d, size_t n, const struct tr_params *p, double budget)
{
	size_t a;

	if (!tr_anchor_needed(d, n, p, 2))
		return n;
	a = tr_anchor_pick(d, n, p, PROTO_FMODE_SAMPLED, PROTO_FMODE_COUNTED, &budget);
	if (a == n && p->off_seen)
		a = tr_anchor_pick(d, n, p, PROTO_FMODE_OFF, PROTO_FMODE_COUNTED, &budget);
	return a;
}

/* See timing_rule.h. */
size_t tr_probe(const struct tr_fn *d, size_t n, const struct tr_params *p)
{
	double low = p->cpu_ps * p->budget_ppm / 1e6 * TR_LOW_PERMILLE / 1000;
	size_t a;

	if (!tr_anchor_needed(d, n, p, 1))
		return n;
	a = tr_anchor_pick(d, n, p, PROTO_FMODE_SAMPLED, PROTO_FMODE_SAMPLED, NULL);
	if (a == n && p->off_seen)
		a = tr_anchor_pick(d, n, p, PROTO_FMODE_OFF, PROTO_FMODE_SAMPLED, &low);
	return a;
}

/* Name probe as the probe (n: none). */
static void tr_probe_set(struct tr_fn *f, size_t n, size_t probe)
{
	for (size_t i = 0; i < n; i++)
		f[i].probe = i == probe;
}

/* After a decision: the probe stays while it is sampled and an anchor is
 * needed; the first demotion that needs one and can count none names it. */
static void tr_probe_settle(struct tr_fn *f, size_t n, const struct tr_params *p)
{
	size_t now = n;

	for (size_t i = 0; i < n; i++)
		if (f[i].probe)
			now = i;
	if (now < n && (f[now].mode != PROTO_FMODE_SAMPLED || !tr_anchor_needed(f, n, p, 1)))
		tr_probe_set(f, n, n);
}

/* The anchor a lost window kept counted (struct tr_fn), while the other
 * exact functions make fewer calls than the floor and counting it costs at
 * most half the budget (as tr_anchor's choice: a budget lowered since may
 * not afford it): else a demotion over the budget by its own cost turns it
 * off again, and the next window loses its anchor again.  n when there is
 * none. */
static size_t tr_pinned(const struct tr_fn *f, size_t n, const struct tr_params *p, double budget)
{
	double exact = 0;
	size_t pin = n;

	for (size_t i = 0; i < n; i++) {
		if (f[i].anchor && f[i].mode == PROTO_FMODE_COUNTED)
			pin = i;
		else if (f[i].mode == PROTO_FMODE_TIMED || f[i].mode == PROTO_FMODE_COUNTED)
			exact += f[i].calls;
	}
	if (pin == n || exact >= tr_anchor_floor(p) ||
	    !tr_anchor_affordable(&f[pin], p, PROTO_FMODE_COUNTED, budget))
		return n;
	return pin;
}

/* Demote to low; when that samples functions and leaves too few calls
 * counted to estimate theirs by, demote again from the start keeping an
 * anchor counted (a trial on a copy picks it), to low plus what counting
 * it costs but no further than the budget: the anchor is not paid for by
 * turning functions off. */
static double tr_demote_anchored(struct tr_fn *f, size_t n, const struct tr_params *p,
    double total, double low, double budget)
{
	size_t keep = tr_pinned(f, n, p, budget);

	if (keep == n) {
		struct tr_fn *d = xcalloc(n, sizeof *d);
		double trial;

		memcpy(d, f, n * sizeof *d);
		trial = tr_demote(d, n, p, total, low, n);
		keep = tr_anchor(d, n, p, budget);
		if (keep == n) {
			/* The trial stands: a probe where an anchor is needed and
			 * none can be counted (the probe now, if it still fits). */
			size_t probe = tr_probe(d, n, p);

			for (size_t i = 0; i < n; i++)
				if (d[i].probe && d[i].mode == PROTO_FMODE_SAMPLED && probe < n)
					probe = i;
			tr_probe_set(d, n, probe);
			memcpy(f, d, n * sizeof *d);
		}
		free(d);
		if (keep == n)
			return trial;
	}
	tr_probe_set(f, n, n);    /* an anchor is counted */
	if (f[keep].mode == PROTO_FMODE_SAMPLED)
		total += tr_move(&f[keep], PROTO_FMODE_COUNTED, p);
	low += f[keep].calls * p->counted_ps;
	return tr_demote(f, n, p, total, low < budget ? low : budget, keep);
}

/* Well under the budget: promote functions not held one step, the named
 * first, then the cheapest, while the cost stays under high. */
static double tr_promote(struct tr_fn *f, size_t n, const struct tr_params *p, double total,
    double high)
{
	for (;;) {
		size_t best = n;
		double add = 0;

		for (size_t i = 0; i < n; i++) {
			double a;

			if (f[i].held || f[i].changed || f[i].mode == PROTO_FMODE_TIMED)
				continue;
			a = f[i].calls * (tr_mode_cost(p, tr_up(&f[i], p)) - tr_mode_cost(p, f[i].mode));
			if (total + a > high)
				continue;
			if (best == n || (f[i].named && !f[best].named) ||
			    (f[i].named == f[best].named && a < add)) {
				best = i;
				add = a;
			}
		}
		if (best == n)
			return total;
		total += tr_move(&f[best], tr_up(&f[best], p), p);
	}
}

/* The projected cost of f's modes under p. */
static double tr_total(const struct tr_fn *f, size_t n, const struct tr_params *p)
{
	double total = 0;

	for (size_t i = 0; i < n; i++)
		total += f[i].calls * tr_mode_cost(p, f[i].mode);
	return total;
}

/* See timing_rule.h. */
uint32_t tr_decide(struct tr_fn *f, size_t n, const struct tr_params *p)
{
	bool paths = false;

	return tr_decide_paths(f, n, p, &paths);
}

/* See timing_rule.h.  q is p with the timed cost of the paths' state. */
uint32_t tr_decide_paths(struct tr_fn *f, size_t n, const struct tr_params *p, bool *paths)
{
	double total, budget = p->cpu_ps * p->budget_ppm / 1e6, high = budget * TR_PROMOTE_PERMILLE / 1000;
	struct tr_params q = *p;

	if (p->cpu_ps <= 0 || n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		f[i].changed = false;
	total = tr_total(f, n, &q);
	if (total > budget && *paths) {
		*paths = false;
		q.timed_ps -= p->path_ps;
		total = tr_total(f, n, &q);
	}
	if (total > budget) {
		total = tr_demote_anchored(f, n, &q, total, budget * TR_LOW_PERMILLE / 1000, budget);
	} else if (total < high) {
		total = tr_promote(f, n, &q, total, high);
		if (!*paths && p->path_ps > 0 && !p->paths_held) {
			struct tr_params with = q;
			double t;
			bool all = true;

			for (size_t i = 0; i < n; i++)
				all &= f[i].mode == PROTO_FMODE_TIMED && !f[i].changed;
			with.timed_ps += p->path_ps;
			if (all && (t = tr_total(f, n, &with)) < high) {
				*paths = true;
				total = t;
			}
		}
	}
	tr_probe_settle(f, n, &q);
	return (uint32_t)(total / p->cpu_ps * 1e6 + 0.5);
}

/* See timing_rule.h. */
double tr_est_calls(double win_calls, double win_anchor, double off_anchor)
{
	return win_anchor > 0 ? win_calls * off_anchor / win_anchor : 0;
}

/* See timing_rule.h. */
double tr_mend(double before, double now, double share)
{
	return (now - before) * share;
}

/* See timing_rule.h. */
void tr_ticks_add(struct tr_ticks *t, double anchor, double cpu_ns, const double *mix)
{
	if (cpu_ns <= 0)
		return;
	if (t->n == TR_TICKS_MAX) {
		for (size_t i = 0; i < TR_TICKS_MAX / 2; i++) {
			t->anchor[i] = t->anchor[2 * i] + t->anchor[2 * i + 1];
			t->cpu[i] = t->cpu[2 * i] + t->cpu[2 * i + 1];
			for (size_t j = 0; j < TR_MIX; j++)
				t->mix[i][j] = t->mix[2 * i][j] + t->mix[2 * i + 1][j];
		}
		t->n = TR_TICKS_MAX / 2;
	}
	t->anchor[t->n] = anchor;
	t->cpu[t->n] = cpu_ns;
	for (size_t j = 0; j < TR_MIX; j++)
		t->mix[t->n][j] = mix != NULL ? mix[j] : j == 0 ? anchor : 0;
	t->n++;
}

/* One signal of the ticks: tick i's values y(i, d), d < dims, against its
 * weight w(i) (pace: the anchor over the CPU; mix: each class over the
 * anchor). */
struct tr_signal {
	size_t dims;
	double (*y)(const struct tr_ticks *t, size_t i, size_t d);
	double (*w)(const struct tr_ticks *t, size_t i);
};

static double tr_pace_y(const struct tr_ticks *t, size_t i, size_t d) { (void)d; return t->anchor[i]; }
static double tr_pace_w(const struct tr_ticks *t, size_t i) { return t->cpu[i]; }
static double tr_mix_y(const struct tr_ticks *t, size_t i, size_t d) { return t->mix[i][d]; }
static double tr_mix_w(const struct tr_ticks *t, size_t i) { return t->anchor[i]; }

/* The best split of signal s (tr_ticks_after): *share the variance it
 * explains, *by how much the sides differ (pace: relative to the whole's;
 * mix: the shares moved, half the sum of their changes); the anchor's
 * calls after it, -1 if none.  Each tick weighs its w: the squares left
 * about values r over ticks summing to Y in W are sum(y^2 / w) - Y^2 / W
 * at their best r = Y / W, so the best split has the largest
 * sum(Y1^2 / W1 + Y2^2 / W2). */
static double tr_split(const struct tr_ticks *t, const struct tr_signal *s, double *share, double *by)
{
	double w = 0, cpu = 0, y[TR_MIX] = { 0 }, var = 0, base = 0, best = 0, after = -1;
	double w1 = 0, cpu1 = 0, y1[TR_MIX] = { 0 }, a1 = 0, a = 0;

	assert(s->dims <= TR_MIX);
	*share = *by = 0;
	for (size_t i = 0; i < t->n; i++) {
		double wi = s->w(t, i);

		w += wi;
		cpu += t->cpu[i];
		a += t->anchor[i];
		for (size_t d = 0; d < s->dims; d++) {
			y[d] += s->y(t, i, d);
			if (wi > 0)
				var += s->y(t, i, d) * s->y(t, i, d) / wi;
		}
	}
	if (w <= 0 || cpu <= 0)
		return -1;
	for (size_t d = 0; d < s->dims; d++)
		base += y[d] * y[d] / w;
	var -= base;
	for (size_t k = 1; k < t->n; k++) {
		double g = -base, w2, diff = 0;

		w1 += s->w(t, k - 1);
		cpu1 += t->cpu[k - 1];
		a1 += t->anchor[k - 1];
		for (size_t d = 0; d < s->dims; d++)
			y1[d] += s->y(t, k - 1, d);
		w2 = w - w1;
		if (cpu1 < TR_CHANGE_EDGE * cpu || cpu - cpu1 < TR_CHANGE_EDGE * cpu || w1 <= 0 || w2 <= 0)
			continue;
		for (size_t d = 0; d < s->dims; d++) {
			g += y1[d] * y1[d] / w1 + (y[d] - y1[d]) * (y[d] - y1[d]) / w2;
			diff += fabs(y1[d] / w1 - (y[d] - y1[d]) / w2);
		}
		if (g > best) {
			best = g;
			after = a - a1;
			*by = s->dims == 1 ? diff / (y[0] / w) : diff / 2;
		}
	}
	*share = var > 0 ? best / var : 0;
	return after;
}

/* See timing_rule.h. */
double tr_ticks_after(const struct tr_ticks *t)
{
	static const struct tr_signal sig[] = {
		{ 1, tr_pace_y, tr_pace_w },
		{ TR_MIX, tr_mix_y, tr_mix_w },
	};
	double after = -1, most = 0;

	for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++) {
		double share, by, a = tr_split(t, &sig[i], &share, &by);

		if (a >= 0 && share >= TR_CHANGE_SPLIT && by >= TR_CHANGE_BY && share > most) {
			most = share;
			after = a;
		}
	}
	return after;
}

/* See timing_rule.h. */
bool tr_window_done(uint64_t open_ns, double anchor, double sampled)
{
	return open_ns >= TR_WIN_MAX_NS || (open_ns >= TR_WIN_MIN_NS &&
	    (anchor >= TR_WIN_ANCHOR || (anchor < 1 && sampled >= TR_WIN_ANCHOR)));
}

/* See timing_rule.h. */
uint64_t tr_window_wait(uint64_t open_ns, double anchor)
{
	double left;

	if (open_ns < TR_WIN_MIN_NS)
		return TR_WIN_MIN_NS - open_ns;
	if (anchor < 1)
		return TR_WIN_NS;
	left = (TR_WIN_ANCHOR - anchor) * (double)open_ns / anchor;
	if (left < TR_WIN_MIN_NS / 2)
		return TR_WIN_MIN_NS / 2;         /* the reporter's poll counts in ms */
	return left < TR_WIN_NS ? (uint64_t)left : TR_WIN_NS;
}

/* See timing_rule.h.  A window longer than TR_WIN_NS puts the next one
 * as much later: the share stays. */
uint32_t tr_window_duty(uint64_t len_ns)
{
	if (len_ns == 0 || len_ns > TR_WIN_NS)
		len_ns = TR_WIN_NS;
	return (uint32_t)(len_ns * 1000000 / TR_PERIOD_NS);
}

/* See timing_rule.h. */
uint64_t tr_window_gap(uint64_t open_ns, bool first)
{
	uint64_t gap = first ? TR_CONFIRM_NS : TR_PERIOD_NS;

	return open_ns > TR_WIN_NS ? (uint64_t)((double)gap * open_ns / TR_WIN_NS) : gap;
}
