/*
 * test-budget.c - the overhead budget's rule and estimator
 * (collectors/timing/timing_rule.c) on synthetic figures: what is demoted
 * first and how far, named functions last, promotions one step at a time
 * and never back over the budget, the sampled count estimate and its mend.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "protocol.h"
#include "timing_rule.h"

/* One second of CPU, 20 ns a timed call, 2.5 ns a counted one, 1% duty. */
static const struct tr_params P = {
	.budget_ppm = 50000, .cpu_ps = 1e12, .timed_ps = 20000, .counted_ps = 2500,
	.duty_ppm = 10000,
};

/* The projected cost of v under P, ppm. */
static double cost_ppm(const struct tr_fn *v, size_t n)
{
	double c = 0;

	for (size_t i = 0; i < n; i++)
		c += v[i].calls * tr_mode_cost(&P, v[i].mode);
	return c / P.cpu_ps * 1e6;
}

/* Within the budget: nothing changes. */
static void test_budget_within(void **state)
{
	struct tr_fn v[] = {
		{ .calls = 1e6, .avg_ps = 5000 },      /* 20 ms of 1 s: 2% */
		{ .calls = 1e5, .avg_ps = 1000000 },
	};

	(void)state;
	assert_int_equal(tr_decide(v, 2, &P), 22000);
	assert_false(v[0].changed || v[1].changed);
	assert_int_equal(v[0].mode, PROTO_FMODE_TIMED);
}

/* Over it: the tiny hot function is counted first (its average is a small
 * multiple of a timed call), the long one keeps its timing, and the cost
 * ends at most at TR_LOW_PERMILLE of the budget. */
static void test_budget_counts_tiny_first(void **state)
{
	struct tr_fn v[] = {
		{ .calls = 5e6, .avg_ps = 4000 },      /* 100 ms: 10% */
		{ .calls = 5e5, .avg_ps = 2000000 },   /* 10 ms: 1% */
	};
	uint32_t after;

	(void)state;
	after = tr_decide(v, 2, &P);
	assert_int_equal(v[0].mode, PROTO_FMODE_COUNTED);
	assert_true(v[0].changed);
	assert_int_equal(v[1].mode, PROTO_FMODE_TIMED);
	assert_false(v[1].changed);
	assert_true(after <= P.budget_ppm * TR_LOW_PERMILLE / 1000);
	assert_int_equal(after, (uint32_t)(cost_ppm(v, 2) + 0.5));
}

/* Counting too is over the budget: sampled, then off if even that is. */
static void test_budget_samples_when_counting_costs(void **state)
{
	struct tr_fn v[] = { { .calls = 4e7, .avg_ps = 3000 } };     /* counted: 10% */
	struct tr_fn w[] = { { .calls = 4e9, .avg_ps = 100 } };      /* sampled: 80% */

	(void)state;
	tr_decide(v, 1, &P);
	assert_int_equal(v[0].mode, PROTO_FMODE_SAMPLED);
	tr_decide(w, 1, &P);
	assert_int_equal(w[0].mode, PROTO_FMODE_OFF);
	/* A long function is sampled rather than counted: counting saves
	 * little of what timing it costs relative to its time. */
	struct tr_fn x[] = { { .calls = 4e6, .avg_ps = 1000000 } }; /* 8% */

	tr_decide(x, 1, &P);
	assert_int_equal(x[0].mode, PROTO_FMODE_SAMPLED);
}

/* A function the user named is demoted only after every other one. */
static void test_budget_named_last(void **state)
{
	struct tr_fn v[] = {
		{ .calls = 1.75e6, .avg_ps = 4000, .named = true }, /* 3.5% */
		{ .calls = 1e6, .avg_ps = 50000 },                   /* 2% */
	};

	(void)state;
	tr_decide(v, 2, &P);
	assert_int_equal(v[0].mode, PROTO_FMODE_TIMED);
	assert_int_equal(v[1].mode, PROTO_FMODE_COUNTED);
}

/* Well under the budget: one step up, the cheapest first, never past
 * TR_PROMOTE_PERMILLE of the budget; a held function waits; the same
 * figures decided again change nothing (no oscillation). */
static void test_budget_promotes_one_step(void **state)
{
	struct tr_fn v[] = {
		{ .calls = 5e5, .avg_ps = 4000, .mode = PROTO_FMODE_COUNTED },  /* timed: 1% */
		{ .calls = 7e6, .avg_ps = 4000, .mode = PROTO_FMODE_SAMPLED },  /* counted: 1.75% */
		{ .calls = 1e4, .avg_ps = 4000, .mode = PROTO_FMODE_OFF, .held = true },
	};
	uint32_t after;

	(void)state;
	after = tr_decide(v, 3, &P);
	assert_int_equal(v[0].mode, PROTO_FMODE_TIMED);
	assert_int_equal(v[1].mode, PROTO_FMODE_SAMPLED);    /* would pass 2.5% */
	assert_int_equal(v[2].mode, PROTO_FMODE_OFF);        /* held */
	assert_true(after <= P.budget_ppm * TR_PROMOTE_PERMILLE / 1000);
	for (int round = 0; round < 5; round++) {
		tr_decide(v, 3, &P);
		assert_false(v[0].changed || v[1].changed || v[2].changed);
	}
}

/* Demote, then decide again and again on the figures that follow: only
 * promotions, never over the budget, and still after a few rounds. */
static void test_budget_settles(void **state)
{
	struct tr_fn v[40];
	uint8_t before[40];
	bool moved = true;

	(void)state;
	for (int i = 0; i < 40; i++)
		v[i] = (struct tr_fn){ .calls = 1e6 * (i + 1), .avg_ps = 3000 + 100 * (uint64_t)i };
	tr_decide(v, 40, &P);
	assert_true(cost_ppm(v, 40) <= 50000 * TR_LOW_PERMILLE / 1000);
	for (int round = 0; round < 40 && moved; round++) {
		for (int i = 0; i < 40; i++)
			before[i] = v[i].mode;
		tr_decide(v, 40, &P);
		moved = false;
		for (int i = 0; i < 40; i++) {
			assert_true(v[i].mode <= before[i]);   /* up only */
			moved |= v[i].changed;
		}
		assert_true(cost_ppm(v, 40) <= 50000);
	}
	assert_false(moved);
}

/* A loop of tiny hot functions only: sampling them all leaves nothing
 * counted to estimate their calls by.  The cheapest to count that makes
 * the anchor's floor alone stays counted, the others sampled, none turned
 * off to pay for it, within the budget; decided again, nothing moves.
 * When counting any of them costs too much, none is kept. */
static void test_budget_keeps_anchor(void **state)
{
	struct tr_fn v[7];
	uint32_t after;

	(void)state;
	for (int i = 0; i < 5; i++)
		v[i] = (struct tr_fn){ .calls = 3e7, .avg_ps = 3000 };   /* counted 7.5% each */
	v[5] = (struct tr_fn){ .calls = 5e6, .avg_ps = 3000 };       /* counted 1.25% */
	v[6] = (struct tr_fn){ .calls = 1e5, .avg_ps = 3000 };       /* under the floor */
	after = tr_decide(v, 7, &P);
	for (int i = 0; i < 5; i++)
		assert_int_equal(v[i].mode, PROTO_FMODE_SAMPLED);
	assert_int_equal(v[5].mode, PROTO_FMODE_COUNTED);
	assert_true(v[6].mode == PROTO_FMODE_TIMED || v[6].mode == PROTO_FMODE_COUNTED);
	assert_true(after <= P.budget_ppm);
	assert_int_equal(after, (uint32_t)(cost_ppm(v, 7) + 0.5));
	tr_decide(v, 7, &P);
	for (int i = 0; i < 7; i++)
		assert_false(v[i].changed);

	for (int i = 0; i < 7; i++)
		v[i] = (struct tr_fn){ .calls = i < 6 ? 3e7 - i : 1e5, .avg_ps = 3000 };
	tr_decide(v, 7, &P);
	for (int i = 0; i < 6; i++)
		assert_int_equal(v[i].mode, PROTO_FMODE_SAMPLED);
}

/* None of the sampled functions is cheap enough to count: the demotion
 * names a probe, chosen as an anchor would be (the fewest calls that make
 * the floor), cost aside, and no other; so does one that samples a single
 * function.  Decided again (its calls now
 * estimated) it stays, and a probe already named stays though another
 * would be chosen; it goes once an exact function makes the floor, or
 * when it is no longer sampled. */
static void test_budget_probe(void **state)
{
	struct tr_fn v[7];
	size_t probe = 7;

	(void)state;
	for (int i = 0; i < 7; i++)
		v[i] = (struct tr_fn){ .calls = i < 6 ? 3e7 - i : 1e5, .avg_ps = 3000 };
	tr_decide(v, 7, &P);
	for (int i = 0; i < 7; i++) {
		if (v[i].probe) {
			assert_int_equal(probe, 7);
			probe = (size_t)i;
		}
	}
	assert_int_equal(probe, 5);             /* the fewest calls */
	assert_int_equal(tr_probe(v, 7, &P), 5);
	assert_int_equal(v[5].mode, PROTO_FMODE_SAMPLED);
	tr_decide(v, 7, &P);
	assert_true(v[5].probe);

	/* Another would be chosen now (v[0] the fewest): the probe stays. */
	v[0].calls = 2e7;
	for (int i = 0; i < 7; i++)
		v[i].mode = i < 6 ? PROTO_FMODE_TIMED : v[i].mode;
	tr_decide(v, 7, &P);
	assert_true(v[5].probe);
	assert_false(v[0].probe);

	/* An exact function makes the floor (2e5 calls in 1 s): no probe. */
	v[6].calls = 3e5;
	tr_decide(v, 7, &P);
	for (int i = 0; i < 7; i++)
		assert_false(v[i].probe);
	assert_int_equal(tr_probe(v, 7, &P), 7);

	/* One function alone sampled, the exact ones under the floor: it is
	 * its own probe (no ratio could estimate it). */
	v[0] = (struct tr_fn){ .calls = 3e7, .avg_ps = 3000 };
	v[1] = (struct tr_fn){ .calls = 1e3, .avg_ps = 3000 };
	tr_decide(v, 2, &P);
	assert_int_equal(v[0].mode, PROTO_FMODE_SAMPLED);
	assert_true(v[0].probe);
	assert_false(v[1].probe);
}

/* Every demoted function that made calls in a window that lost its
 * anchor is off (off_seen: their calls seen in it): one is counted if
 * cheap enough, the one with the fewest calls that make the floor; else
 * the probe, sampled again if sampling it costs at most half what demotion
 * aims at.  A sampled one is chosen before an off one; without off_seen
 * (an off function's calls are the rate it went off at) none is. */
static void test_budget_anchor_from_off(void **state)
{
	struct tr_params p = P;
	struct tr_fn v[4];

	(void)state;
	p.off_seen = true;
	for (int i = 0; i < 3; i++)         /* counted: 2.5 ms, 3.75 ms, 5 ms */
		v[i] = (struct tr_fn){ .calls = 1e6 * (2 + i) / 2, .avg_ps = 3000,
			.mode = PROTO_FMODE_OFF };
	v[3] = (struct tr_fn){ .calls = 1e3, .avg_ps = 3000 };
	assert_int_equal(tr_anchor(v, 4, &p, 50e9), 0);
	assert_int_equal(tr_anchor(v, 4, &P, 50e9), 4);
	v[0].calls = 1e5;                   /* under the floor: the next */
	assert_int_equal(tr_anchor(v, 4, &p, 50e9), 1);

	for (int i = 0; i < 3; i++)         /* sampled 200 ms each */
		v[i].calls = 1e9;
	assert_int_equal(tr_anchor(v, 4, &p, 50e9), 4);
	assert_int_equal(tr_probe(v, 4, &p), 4);
	v[2].calls = 5e7;                   /* sampled 10 ms, counted 125 ms */
	assert_int_equal(tr_anchor(v, 4, &p, 50e9), 4);
	assert_int_equal(tr_probe(v, 4, &p), 2);
	assert_int_equal(tr_probe(v, 4, &P), 4);
	v[1].mode = PROTO_FMODE_SAMPLED;    /* one sampled: it, cost aside */
	assert_int_equal(tr_probe(v, 4, &p), 1);
	v[1].calls = 0;                     /* but not one that made no call */
	assert_int_equal(tr_probe(v, 4, &p), 2);
}

/* Over the budget, the probe stays sampled while that costs at most half
 * what demotion aims at (the others are turned off around it); dearer, it
 * goes off like any other and another is named. */
static void test_budget_probe_spared(void **state)
{
	struct tr_fn v[21];
	uint32_t after;

	(void)state;
	for (int round = 0; round < 2; round++) {
		/* the probe sampled at 18 ms, then 22 ms; 20 others at 4 ms */
		v[0] = (struct tr_fn){ .calls = round == 0 ? 9e7 : 1.1e8, .avg_ps = 3000,
			.mode = PROTO_FMODE_SAMPLED, .probe = true };
		for (int i = 1; i < 21; i++)
			v[i] = (struct tr_fn){ .calls = 2e7, .avg_ps = 3000,
				.mode = PROTO_FMODE_SAMPLED };
		after = tr_decide(v, 21, &P);
		assert_true(after <= P.budget_ppm * TR_LOW_PERMILLE / 1000);
		if (round == 0) {
			assert_int_equal(v[0].mode, PROTO_FMODE_SAMPLED);
			assert_true(v[0].probe);
			assert_false(v[0].changed);
		} else {
			assert_int_equal(v[0].mode, PROTO_FMODE_OFF);
			assert_false(v[0].probe);
			assert_int_equal(tr_probe(v, 21, &P) < 21, true);
			assert_true(v[tr_probe(v, 21, &P)].probe);
		}
	}
}

/* The anchor a lost window kept counted (2% of the CPU) pushes the cost
 * over the budget: a demotion keeps it while the other exact functions
 * make fewer calls than the floor (the sampled ones pay), though the
 * demotion's own choice of an anchor would be another (v[4], cheaper).  It
 * may demote it once the others make the floor, or once counting it costs
 * over half the budget (a budget lowered since); unflagged, it goes. */
static void test_budget_pinned_anchor(void **state)
{
	struct tr_params p = P;
	struct tr_fn v[7];
	uint32_t after;

	(void)state;
	for (int round = 0; round < 4; round++) {
		p.budget_ppm = round == 3 ? 30000 : 50000;
		for (int i = 0; i < 4; i++)     /* sampled: 0.8% each */
			v[i] = (struct tr_fn){ .calls = 4e7, .avg_ps = 3000, .mode = PROTO_FMODE_SAMPLED };
		v[4] = (struct tr_fn){ .calls = 1e6, .avg_ps = 3000, .mode = PROTO_FMODE_SAMPLED };
		v[5] = (struct tr_fn){ .calls = 8e6, .avg_ps = 3000, .mode = PROTO_FMODE_COUNTED,
			.anchor = round != 2 };
		v[6] = (struct tr_fn){ .calls = round == 1 ? 1e6 : 1e3, .avg_ps = 3000 };
		after = tr_decide(v, 7, &p);
		assert_true(after <= p.budget_ppm);
		if (round == 0)
			assert_int_equal(v[5].mode, PROTO_FMODE_COUNTED);
		else
			assert_int_not_equal(v[5].mode, PROTO_FMODE_COUNTED);
	}
}

/* The sampled estimate: calls per anchor call in the windows, times the
 * anchor outside them; no window yet: nothing. */
/* Call paths go first: over the budget with them, under it without them
 * (5.5% -> 4.4%): paths off, no function demoted. */
static void test_budget_paths_off_first(void **state)
{
	struct tr_params p = P;
	struct tr_fn v[] = {
		{ .calls = 2e6, .avg_ps = 50000 },     /* 2e6 x 25 ns = 50 ms: 5% */
		{ .calls = 2e5, .avg_ps = 1000000 },   /* 5 ms: 0.5% */
	};
	bool paths = true;

	(void)state;
	p.path_ps = 5000;
	p.timed_ps = 25000;                     /* 20 ns + 5 ns of paths */
	assert_int_equal(tr_decide_paths(v, 2, &p, &paths), 44000);
	assert_false(paths);
	assert_false(v[0].changed || v[1].changed);
}

/* ... and come back last: well under the budget, with every function
 * timed, paths on while the cost with them stays under 50% of it; with a
 * function still demoted, that function first and paths not yet; held
 * (changed too recently, or the start), not yet either. */
static void test_budget_paths_back_last(void **state)
{
	struct tr_params p = P;
	struct tr_fn v[] = {
		{ .calls = 1e5, .avg_ps = 50000 },
		{ .calls = 1e5, .avg_ps = 1000000, .mode = PROTO_FMODE_COUNTED },
	};
	bool paths = false;

	(void)state;
	p.path_ps = 5000;
	tr_decide_paths(v, 2, &p, &paths);
	assert_int_equal(v[1].mode, PROTO_FMODE_TIMED);
	assert_false(paths);
	v[1].changed = false;
	p.paths_held = true;
	assert_int_equal(tr_decide_paths(v, 2, &p, &paths), 4000);   /* 2e5 x 20 ns */
	assert_false(paths);
	p.paths_held = false;
	assert_int_equal(tr_decide_paths(v, 2, &p, &paths), 5000);   /* 2e5 x 25 ns */
	assert_true(paths);
	assert_false(v[0].changed || v[1].changed);
}

static void test_budget_estimate(void **state)
{
	(void)state;
	assert_true(tr_est_calls(250, 11, 1100) == 25000);
	assert_true(tr_est_calls(0, 11, 1100) == 0);
	assert_true(tr_est_calls(250, 0, 1100) == 0);
}

/* A window's mend of the interval before it: the difference times the
 * share of the interval the new ratios stand for. */
static void test_budget_mend(void **state)
{
	(void)state;
	assert_true(tr_mend(100, 40, 1) == -60);   /* shown too high: held back */
	assert_true(tr_mend(40, 100, 1) == 60);
	assert_true(tr_mend(100, 40, 0.5) == -30);
	assert_true(tr_mend(40, 100, 0.25) == 15);
	assert_true(tr_mend(50, 50, 0.5) == 0);
}

/* Where the anchor's pace changed: a step is found at its tick, a steady
 * pace with noise and a step too small or at the very edge are none. */
static void test_budget_ticks(void **state)
{
	struct tr_ticks t = { .n = 0 };
	static const double noise[] = { 1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98 };

	(void)state;
	assert_true(tr_ticks_after(&t) == -1);           /* no ticks */
	for (int i = 0; i < 10; i++)                     /* 2% noise, no step */
		tr_ticks_add(&t, 1000 * noise[i], 1e6, NULL);
	assert_true(tr_ticks_after(&t) == -1);
	t.n = 0;
	for (int i = 0; i < 10; i++)                     /* 20% faster from tick 7; a long tick */
		tr_ticks_add(&t, (i < 7 ? 1000 : 1200) * noise[i] * (i == 3 ? 2 : 1), i == 3 ? 2e6 : 1e6, NULL);
	assert_true(t.n == 10);
	assert_true(fabs(tr_ticks_after(&t) - 1200 * (noise[7] + noise[8] + noise[9])) < 1e-6);
	t.n = 0;
	for (int i = 0; i < 10; i++)                     /* 3%: none */
		tr_ticks_add(&t, i < 5 ? 1000 : 1030, 1e6, NULL);
	assert_true(tr_ticks_after(&t) == -1);
	t.n = 0;
	for (int i = 0; i < 40; i++)                     /* a step in the last tick of 40: an edge */
		tr_ticks_add(&t, i < 39 ? 1000 : 2000, 1e6, NULL);
	assert_true(tr_ticks_after(&t) == -1);
	tr_ticks_add(&t, 1000, 0, NULL);                       /* no CPU: no tick */
	assert_true(t.n == 40);
	t.n = 0;
	for (int i = 0; i < 10; i++) {                   /* the same pace, another mix from tick 6 */
		double mix[TR_MIX] = { 0 };

		mix[0] = i < 6 ? 700 : 300;
		mix[3] = 1000 - mix[0];
		tr_ticks_add(&t, 1000 * noise[i], 1e6, mix);
	}
	assert_true(fabs(tr_ticks_after(&t) - 1000 * (noise[6] + noise[7] + noise[8] + noise[9])) < 1e-6);
	t.n = 0;
	for (int i = 0; i < TR_TICKS_MAX + 2; i++)       /* full: pairs merge */
		tr_ticks_add(&t, i < 100 ? 1000 : 1500, 1e6, NULL);
	assert_true(t.n == TR_TICKS_MAX / 2 + 2);
	assert_true(t.anchor[0] == 2000 && t.cpu[0] == 2e6);
	assert_true(fabs(tr_ticks_after(&t) - 1500.0 * (TR_TICKS_MAX + 2 - 100)) < 1e-6);
}

/* A window waits for enough anchor calls, within its bounds, unless the
 * anchor made none while sampled functions made plenty, and is looked at
 * again when its anchor should have made them; the next one is as much
 * later as this one was longer, sooner after the first of its ratios. */
static void test_budget_window(void **state)
{
	(void)state;
	assert_false(tr_window_done(TR_WIN_MIN_NS - 1, 1e9, 0));    /* never shorter */
	assert_true(tr_window_done(TR_WIN_MIN_NS, TR_WIN_ANCHOR, 0));
	assert_false(tr_window_done(TR_WIN_NS, TR_WIN_ANCHOR - 1, 1e9));  /* few anchor calls: on */
	assert_false(tr_window_done(TR_WIN_MAX_NS - 1, 0, 0));
	assert_true(tr_window_done(TR_WIN_MAX_NS, 0, 0));           /* never longer */
	assert_true(tr_window_done(TR_WIN_MIN_NS, 0, TR_WIN_ANCHOR));   /* the anchor lost */
	assert_false(tr_window_done(TR_WIN_MIN_NS - 1, 0, 1e9));
	assert_false(tr_window_done(TR_WIN_NS, 0, TR_WIN_ANCHOR - 1));
	assert_true(TR_WIN_MIN_NS < TR_WIN_NS && TR_WIN_NS < TR_WIN_MAX_NS);
	assert_true(tr_window_wait(0, 0) == TR_WIN_MIN_NS);         /* first look */
	assert_true(tr_window_wait(TR_WIN_MIN_NS / 4, 1e9) == TR_WIN_MIN_NS * 3 / 4);
	/* a quarter of the anchor's calls in 2 ms: 6 ms more */
	assert_true(tr_window_wait(2000000, TR_WIN_ANCHOR / 4) == 6000000);
	assert_true(tr_window_wait(TR_WIN_MIN_NS, TR_WIN_ANCHOR - 1) == TR_WIN_MIN_NS / 2);
	assert_true(tr_window_wait(TR_WIN_MIN_NS, 1) == TR_WIN_NS);     /* slow: at most this */
	assert_true(tr_window_wait(TR_WIN_MIN_NS, 0) == TR_WIN_NS);
	assert_true(tr_window_gap(TR_WIN_NS, false) == TR_PERIOD_NS);
	assert_true(tr_window_gap(TR_WIN_NS / 2, false) == TR_PERIOD_NS);
	assert_true(tr_window_gap(4 * TR_WIN_NS, false) == 4 * TR_PERIOD_NS);
	assert_true(tr_window_gap(TR_WIN_NS, true) == TR_CONFIRM_NS);
	assert_true(tr_window_gap(4 * TR_WIN_NS, true) == 4 * TR_CONFIRM_NS);
	assert_true(TR_CONFIRM_NS < TR_PERIOD_NS);
	assert_true(tr_window_duty(0) == TR_WIN_NS * 1000000 / TR_PERIOD_NS);   /* none yet */
	assert_true(tr_window_duty(TR_WIN_MIN_NS) == TR_WIN_MIN_NS * 1000000 / TR_PERIOD_NS);
	assert_true(tr_window_duty(4 * TR_WIN_NS) == tr_window_duty(TR_WIN_NS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_within),
		cmocka_unit_test(test_budget_counts_tiny_first),
		cmocka_unit_test(test_budget_samples_when_counting_costs),
		cmocka_unit_test(test_budget_named_last),
		cmocka_unit_test(test_budget_promotes_one_step),
		cmocka_unit_test(test_budget_settles),
		cmocka_unit_test(test_budget_keeps_anchor),
		cmocka_unit_test(test_budget_pinned_anchor),
		cmocka_unit_test(test_budget_probe),
		cmocka_unit_test(test_budget_anchor_from_off),
		cmocka_unit_test(test_budget_probe_spared),
		cmocka_unit_test(test_budget_paths_off_first),
		cmocka_unit_test(test_budget_paths_back_last),
		cmocka_unit_test(test_budget_estimate),
		cmocka_unit_test(test_budget_mend),
		cmocka_unit_test(test_budget_ticks),
		cmocka_unit_test(test_budget_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
