/*
 * timing.c - the timing collector: calibration of the hooks' own cost, the
 * tick clock, levels and thresholds.  The hooks are in timing_hot.c (and the
 * engine's site path in timing_site.c), the per-function totals and records
 * in timing_report.c.
 *
 * Overhead compensation.  A hooked call costs O_full ticks as seen by its
 * caller; O_in of those fall inside the call's own measured interval (the
 * tail of the enter hook and the head of the exit hook).  So for a call with
 * raw interval R whose n children had raw intervals summing to C:
 *     self      = R - C - O_in - n * (O_full - O_in)      (clamped at 0)
 *     inclusive = self + sum of the children's corrected inclusive times
 * Both constants are measured at start on a private block with a dummy
 * function (median of a few runs, about a millisecond in all).  The hook
 * engine's sites pay more (register-saving stubs, a return trampoline that
 * the return predictor misses), so they have their own pair, measured by
 * tm_calibrate_site through the real stubs when the engine starts; each
 * frame is corrected with its own path's pair (the caller is charged its
 * children's O_out, whatever their path).
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "collector.h"
#include "protocol.h"
#include "timing_int.h"

#define TM_CAL_RUNS   5           /* measured runs (plus one warm-up) */
#define TM_CAL_ITERS  4000        /* enter+exit pairs per run */
#define TM_COUNT_MIN_SHARE 16     /* a counted call costs at least this share of a timed one */
#define TM_SLOW_NS_DEFAULT 10000000  /* 10 ms */

#define STORE(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define LOAD(p)      __atomic_load_n((p), __ATOMIC_RELAXED)

double tm_ns_per_tick = 1.0;
uint64_t tm_count_ps;
static uint64_t tm_tick0, tm_mono0;       /* clock pair at init */
static double tm_o_full;                  /* ticks per hooked call */
static uint64_t tm_path_ticks;            /* what call paths add to it */
static bool tm_paths_user;                /* HOOKSCOPE_PATHS did not turn them off */
static int64_t tm_slow_ns = TM_SLOW_NS_DEFAULT;

/* Read the tick counter and CLOCK_MONOTONIC as close together as possible
 * (best of three), so their ratio is not skewed by a preemption. */
static void tm_clock_pair(uint64_t *ticks, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	*ticks = *ns = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t k1 = tm_ticks(), m = proto_now_ns(), k2 = tm_ticks();

		if (k2 - k1 <= best) {
			best = k2 - k1;
			*ticks = k1 + (k2 - k1) / 2;
			*ns = m;
		}
	}
}

/* See timing.h: refine ns per tick over the whole time since init, and
 * convert the slow threshold to ticks for the hot path. */
void tm_clock_update(void)
{
	uint64_t k, m;

	tm_clock_pair(&k, &m);
	if (k > tm_tick0 + 1000 && m > tm_mono0)
		tm_ns_per_tick = (double)(m - tm_mono0) / (double)(k - tm_tick0);
	STORE(&tm_params.slow_ticks, (uint64_t)((double)tm_slow_ns / tm_ns_per_tick));
}

/* See timing.h. */
uint64_t timing_overhead_ps(void)
{
	return (uint64_t)(tm_o_full * tm_ns_per_tick * 1000.0 + 0.5);
}

/* Comparison for qsort of doubles. */
static int tm_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The medians of TM_CAL_RUNS runs: store the part of a hooked call inside
 * the function's measured interval (never more than the whole) and the part
 * outside it; return the whole. */
static double tm_cal_split(double *full, double *in, uint64_t *o_in, uint64_t *o_out)
{
	double f, i;

	qsort(full, TM_CAL_RUNS, sizeof full[0], tm_cmp_double);
	qsort(in, TM_CAL_RUNS, sizeof in[0], tm_cmp_double);
	f = full[TM_CAL_RUNS / 2];
	i = in[TM_CAL_RUNS / 2] < f ? in[TM_CAL_RUNS / 2] : f;
	STORE(o_in, (uint64_t)(i + 0.5));
	STORE(o_out, (uint64_t)(f - i + 0.5));
	return f;
}

/* Measure O_full and O_in (see the top of the file) by calling the real hooks
 * through pointers, as instrumented code does, on a private block. */
static void tm_calibrate(void)
{
	void (*volatile enter)(void *, void *) = __cyg_profile_func_enter;
	void (*volatile leave)(void *, void *) = __cyg_profile_func_exit;
	double full[TM_CAL_RUNS], in[TM_CAL_RUNS];
	void *fn = (void *)(uintptr_t)tm_calibrate;
	struct tm_block *cb = tm_block_new(), *saved;
	struct tm_entry *e;
	uint32_t was = tm_params.enabled;

	if (cb == NULL)
		return;
	saved = tm_tls_swap(cb);
	STORE(&tm_params.enabled, 1);
	STORE(&tm_params.o_in, 0);
	STORE(&tm_params.o_out, 0);
	for (int r = -1; r < TM_CAL_RUNS; r++) {
		/* No entry when the level's switch leaves fn out (attach): in = 0. */
		e = cb->nentries ? tm_block_entry(cb, 0) : NULL;
		uint64_t self0 = e != NULL ? e->self : 0;
		uint64_t t0 = tm_ticks(), t1;

		for (int i = 0; i < TM_CAL_ITERS; i++) {
			enter(fn, NULL);
			leave(fn, NULL);
		}
		t1 = tm_ticks();
		if (r < 0)
			continue;       /* warm-up: page faults, caches */
		e = cb->nentries ? tm_block_entry(cb, 0) : NULL;
		full[r] = (double)(t1 - t0) / TM_CAL_ITERS;
		in[r] = e != NULL ? (double)(e->self - self0) / TM_CAL_ITERS : 0;
	}
	tm_tls_swap(saved);
	STORE(&tm_params.enabled, was);
	tm_block_free(cb);
	tm_o_full = tm_cal_split(full, in, &tm_params.o_in, &tm_params.o_out);
	/* Until the engine calibrates its own path (if it ever runs). */
	STORE(&tm_params.o_in_site, tm_params.o_in);
	STORE(&tm_params.o_out_site, tm_params.o_out);
}

/* Median ticks per call of fn over TM_CAL_ITERS calls (one run). */
static double tm_ticks_per_call(void (*fn)(void), unsigned iters)
{
	uint64_t t0 = tm_ticks();

	for (unsigned i = 0; i < iters; i++)
		fn();
	return (double)(tm_ticks() - t0) / iters;
}

/* See timing.h.  Like tm_calibrate, on a private block: full = ticks per
 * call through the stubs minus ticks per plain call (the call itself is
 * the caller's own time), in = self ticks recorded per call of the empty
 * function (so an empty function then shows 0). */
void tm_calibrate_site(void (*call)(void), void (*plain)(void), uintptr_t fn)
{
	double full[TM_CAL_RUNS], in[TM_CAL_RUNS], med;
	struct tm_block *cb = tm_block_new(), *saved;
	uint32_t was = tm_params.enabled;
	uint64_t t0 = tm_ticks();

	if (cb == NULL)
		return;
	saved = tm_tls_swap(cb);
	STORE(&tm_params.enabled, 1);
	STORE(&tm_params.o_in_site, 0);
	STORE(&tm_params.o_out_site, 0);
	for (int r = -1; r < TM_CAL_RUNS; r++) {
		struct tm_entry *e = cb->nentries ? tm_block_entry(cb, 0) : NULL;
		uint64_t self0 = e != NULL ? e->self : 0;
		double base = tm_ticks_per_call(plain, TM_CAL_ITERS);
		double with = tm_ticks_per_call(call, TM_CAL_ITERS);

		if (r < 0)
			continue;       /* warm-up */
		e = tm_block_entry(cb, 0);
		assert(cb->nentries == 1 && e->fn == fn);
		full[r] = with > base ? with - base : 0;
		in[r] = (double)(e->self - self0) / TM_CAL_ITERS;
	}
	tm_tls_swap(saved);
	STORE(&tm_params.enabled, was);
	tm_block_free(cb);
	med = tm_cal_split(full, in, &tm_params.o_in_site, &tm_params.o_out_site);
	agent_log("calibration (engine sites): %.1f ticks per call (%llu inside, %llu outside), "
	    "took %.2f ms", med, (unsigned long long)tm_params.o_in_site,
	    (unsigned long long)tm_params.o_out_site,
	    (double)(tm_ticks() - t0) * tm_ns_per_tick / 1e6);
}

/* See timing.h.  Ticks per call through the counted path minus per plain
 * call, median of TM_CAL_RUNS runs, on a private block; each of call's
 * and plain's calls makes per calls.  At least TM_COUNT_MIN_SHARE of an
 * engine site's timed call: from one start to the next the figure reads
 * 0.6-3.8 ns, and now and then 0-0.23 ns (about 1 in 20 under the test
 * suite's load, measured again to the same), where a program calling
 * many small functions pays 1.7-2.7 ns; counting then looks free to the
 * budget, and it counts what it should sample. */
void tm_calibrate_count(void (*call)(void), void (*plain)(void), unsigned per)
{
	double full[TM_CAL_RUNS], in[TM_CAL_RUNS] = { 0 };
	struct tm_block *cb = tm_block_new(), *saved;
	uint64_t o_in, o_out;
	unsigned iters = TM_CAL_ITERS / per > 0 ? TM_CAL_ITERS / per : 1;
	double ps, least;

	if (cb == NULL)
		return;
	saved = tm_tls_swap(cb);
	for (int r = -1; r < TM_CAL_RUNS; r++) {
		double base = tm_ticks_per_call(plain, iters), with = tm_ticks_per_call(call, iters);

		if (r >= 0)
			full[r] = with > base ? (with - base) / per : 0;
	}
	tm_tls_swap(saved);
	tm_block_free(cb);
	ps = tm_cal_split(full, in, &o_in, &o_out) * tm_ns_per_tick * 1000.0;
	least = (double)(LOAD(&tm_params.o_in_site) + LOAD(&tm_params.o_out_site)) * tm_ns_per_tick *
	    1000.0 / TM_COUNT_MIN_SHARE;
	tm_count_ps = (uint64_t)((ps > least ? ps : least) + 0.5);
	agent_log("calibration (counted sites): %.2f ns per call (measured %.2f, at least 1/%d of a timed "
	    "call)", tm_count_ps / 1000.0, ps / 1000.0, TM_COUNT_MIN_SHARE);
}

/* Call paths on unless HOOKSCOPE_PATHS=0; the calibration with them
 * (the hooks' cost includes theirs) and without them, the difference being
 * what turning them off saves per call (tm_paths_set). */
static void tm_paths_init(void)
{
	const char *env = getenv("HOOKSCOPE_PATHS");
	bool on = env == NULL || strcmp(env, "0") != 0;
	double off;

	tm_paths_user = on;
	STORE(&tm_params.paths, 0);
	tm_calibrate();
	off = tm_o_full;
	if (!on)
		return;
	STORE(&tm_params.paths, 1);
	tm_calibrate();
	/* At least a tick: the rule reads 0 as "paths cannot be turned on",
	 * and a cost within the calibration's noise is not that. */
	tm_path_ticks = tm_o_full > off + 1 ? (uint64_t)(tm_o_full - off + 0.5) : 1;
}

/* See timing_int.h: the hooks' cost outside a call's interval follows. */
void tm_paths_set(bool on)
{
	uint64_t d = tm_path_ticks;

	if (on == (__atomic_load_n(&tm_params.paths, __ATOMIC_RELAXED) != 0) || (on && !tm_paths_user))
		return;
	if (on) {
		STORE(&tm_params.o_out, tm_params.o_out + d);
		STORE(&tm_params.o_out_site, tm_params.o_out_site + d);
	} else {
		STORE(&tm_params.o_out, tm_params.o_out > d ? tm_params.o_out - d : 0);
		STORE(&tm_params.o_out_site, tm_params.o_out_site > d ? tm_params.o_out_site - d : 0);
	}
	STORE(&tm_params.paths, on);
}

/* See timing_int.h. */
bool tm_paths_on(void)
{
	return __atomic_load_n(&tm_params.paths, __ATOMIC_RELAXED) != 0;
}

/* See timing_int.h. */
uint64_t tm_paths_ps(void)
{
	return (uint64_t)((double)tm_path_ticks * tm_ns_per_tick * 1000.0 + 0.5);
}

/* Collector init: the thread-exit key, the clock base, the calibration. */
static int tm_init(void)
{
	if (tm_hot_init() < 0)
		return -1;
	tm_clock_pair(&tm_tick0, &tm_mono0);
	tm_paths_init();
	tm_clock_update();
	tm_budget_init();
	agent_log("calibration: %.1f ticks per hooked call (%llu inside, %llu outside), "
	    "%.4f ns per tick, took %.2f ms", tm_o_full, (unsigned long long)tm_params.o_in,
	    (unsigned long long)tm_params.o_out, tm_ns_per_tick,
	    (double)(proto_now_ns() - tm_mono0) / 1e6);
	return 0;
}

/* Levels 1-4 time calls (the functions the level selects: timing_select.c);
 * 0 turns the hooks into an early return. */
static void tm_set_level(int level)
{
	tm_select_level(level);
	STORE(&tm_params.enabled, level >= 1);
}

/* Reporter cycle: a module loaded since may change the selection. */
static void tm_harvest(void)
{
	tm_select_sync();
	tm_report_harvest();
	tm_budget_account();
}

/* The "slow" threshold: calls whose inclusive time exceeds it are counted. */
static int tm_set_threshold(const char *name, int64_t value)
{
	if (strcmp(name, "slow") != 0)
		return 1;
	if (value < 0)
		return -1;
	tm_slow_ns = value;
	tm_clock_update();
	return 0;
}

/* The calibrated cost of one hooked call, for the daemon's display. */
static void tm_hello(struct proto_ag_hello *h)
{
	h->overhead_ps = timing_overhead_ps();
	h->budget_ppm = timing_budget_ppm();
}

/* Fork child: forget the parent's threads and figures. */
static void tm_atfork_child(void)
{
	struct tm_block *saved;

	tm_hot_atfork_child();
	saved = timing_guard_enter();
	tm_budget_forget();
	tm_report_forget();
	timing_guard_leave(saved);
}

/* Exit or detach, after the final report: no self-time sample signal may
 * come once the agent's handlers are given back (detach resets them next). */
static void tm_fini(void)
{
	tm_ip_set(false);
}

const struct collector_ops timing_collector = {
	.name          = "timing",
	.init          = tm_init,
	.set_level     = tm_set_level,
	.set_threshold = tm_set_threshold,
	.reset         = tm_report_reset,
	.harvest       = tm_harvest,
	.encode        = tm_report_encode,
	.hello         = tm_hello,
	.atfork_child  = tm_atfork_child,
	.fini          = tm_fini,
};
