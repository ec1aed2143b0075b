/*
 * timing_budget.c - the overhead budget: what the hooks cost the target,
 * how each function is watched to keep that within the budget, and the
 * estimated figures of the functions no longer timed (doc/architecture.md,
 * "the overhead budget").  Reporter thread only, with the cycle lock.
 *
 * Cost: at every harvest, per live thread, the timed and counted calls it
 * made since the last one times their calibrated costs, against the CPU
 * time the thread used meanwhile (its CPU clock); summed over the threads.
 * Every tick (timing_budget_tick) the figures are harvested again and, once
 * the threads used TB_DECIDE_CPU_NS of CPU since the last decision, the
 * rule (timing_rule.c) may change modes.  Ticks are TB_TICK_NS apart while
 * a window is open or modes change, and back off to TB_TICK_MAX_NS while
 * decisions change nothing: the reporter's harvests are most of what the
 * budget itself costs the target.
 *
 * Modes: timed; counted (the counted path: exact count, times estimated
 * from the function's clean average); sampled (unwatched but for one
 * window of TR_WIN_NS every TR_PERIOD_NS, in which every sampled and
 * counted function is timed); off (never watched).  A "clean" interval is
 * one where every function watched is timed (a window, or no function
 * demoted): only clean figures make the averages.  While functions are
 * demoted, self time comes from pc samples (timing_ipsample.c): a caller's
 * self time never absorbs the children no longer timed.
 *
 * A sampled function's calls outside its windows are estimated against an
 * anchor: the calls counted exactly (timed or counted functions) over the
 * same intervals.  Its calls per anchor call in the windows, times the
 * anchor outside them (timing_rule.c, tr_est_calls); each window weighs
 * half as much as the next.  Every function watched keeps its own calls in
 * the windows (w_calls), so when the anchor's set of functions changes the
 * ratios are taken against the new set over the same windows, without a
 * window of their own; only a function back from off, having missed
 * windows, restarts them all, and a window follows.  A sampled or off
 * function's figures are marked estimated from its first interval unwatched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "engine.h"
#include "protocol.h"
#include "select.h"
#include "timing_int.h"
#include "timing_rule.h"

#define TB_DEFAULT_PPM   50000                 /* 5% */
#define TB_TICK_NS       10000000ull           /* 10 ms between budget ticks */
#define TB_TICK_MAX_NS   80000000ull           /* and at most this, modes steady */
#define TB_DECIDE_CPU_NS 5000000ull            /* target CPU between decisions */
#define TB_HOLD_NS       2000000000ull         /* no promotion this soon after a change */
#define TB_OFF_TICK_NS   100000000ull          /* budget off: the cost is updated this often */

#define LOAD(p)  __atomic_load_n((p), __ATOMIC_RELAXED)

/* One function's budget state (index: its aggregate's, timing_report.c). */
struct tb_fn {
	uint8_t  mode;            /* enum proto_fmode */
	bool     named;           /* level 1 selects it */
	bool     calls_est, time_est;   /* since the reset */
	uint32_t hook_ppm;
	uint64_t since_ns;
	uint64_t held_until;
	struct tm_fig prev;       /* the sums at the last accounting */
	uint64_t ref_calls, ref_total, ref_self;   /* clean figures (averages) */
	double   w_calls;         /* calls in the windows since the ratios' restart */
	bool     w_missed;        /* off in one of those windows */
	double   owed;            /* sampled: anchor calls outside the windows */
	uint64_t sh_calls, sh_total, sh_self;      /* shown since the reset: exact part */
	double   es_calls, es_total, es_self;      /* and estimated part */
	uint64_t samples;         /* self-time samples since the last accounting */
	double   dec_calls;       /* calls since the last decision (estimated if need be) */
	double   rate;            /* calls per ns of CPU at the last decision */
};

static uint32_t tb_ppm = TB_DEFAULT_PPM;
static uint8_t tb_start = PROTO_FMODE_TIMED;   /* HOOKSCOPE_MODE */
static struct tb_fn *tb_fns;
static size_t tb_n, tb_cap;
static size_t tb_demoted;                /* functions not in tb_start's mode */
static bool tb_win;                      /* a sampling window is open */
static uint64_t tb_win_start, tb_win_next, tb_win_end;
static double tb_win_anchor;             /* anchor calls in the open window */
static double tb_w_anchor;               /* the anchor's calls in those windows */
static bool tb_ratio_new;                /* the ratios restarted: a window is due */
static uint64_t tb_paths_held_until;     /* call paths may not come back before */
static bool tb_ip;                       /* self time from samples (timing_ipsample.c) */
static double tb_dec_cpu_ns, tb_dec_cost_ps;
static uint32_t tb_cost_ppm;
static uint64_t tb_tick_ns = TB_TICK_NS;
static uintptr_t *tb_forgot;             /* fork child: functions to give tb_start back */
static size_t tb_nforgot;

/* Per-call costs, ps. */
static double tb_timed_ps(void)
{
	uint64_t a = LOAD(&tm_params.o_in) + LOAD(&tm_params.o_out);
	uint64_t b = LOAD(&tm_params.o_in_site) + LOAD(&tm_params.o_out_site);

	return (double)(a > b ? a : b) * tm_ns_per_tick * 1000.0;
}

static double tb_counted_ps(void)
{
	return tm_count_ps ? (double)tm_count_ps : tb_timed_ps() / 4;
}

/* The hot path's state of a function in mode m, in a window or not, and
 * the engine's mode for it now. */
static uint8_t tb_st(unsigned m, bool win)
{
	if (m == PROTO_FMODE_TIMED || (m != PROTO_FMODE_OFF && win))
		return TM_ST_TIMED;
	return m == PROTO_FMODE_COUNTED ? TM_ST_COUNTED : TM_ST_OFF;
}

static bool tb_exact(unsigned m)
{
	return m == PROTO_FMODE_TIMED || m == PROTO_FMODE_COUNTED;
}

static uint8_t tb_hook_mode(unsigned m)
{
	static const uint8_t of[] = {
		[TM_ST_TIMED] = HOOK_M_TIMED, [TM_ST_COUNTED] = HOOK_M_COUNTED, [TM_ST_OFF] = HOOK_M_OFF,
	};

	return of[tb_st(m, tb_win)];
}

/* See timing_int.h. */
void tm_budget_init(void)
{
	const char *b = getenv("HOOKSCOPE_BUDGET"), *m = getenv("HOOKSCOPE_MODE");
	char err[160];
	uint32_t ppm;
	int mode;

	if (b != NULL && b[0] != '\0') {
		if (proto_budget_parse(b, &ppm, err, sizeof err) == 0)
			tb_ppm = ppm;
		else
			agent_warn("HOOKSCOPE_BUDGET: %s; using %g%%", err, TB_DEFAULT_PPM / 1e4);
	}
	if (m != NULL && m[0] != '\0') {
		mode = proto_fmode_parse(m);
		if (mode == PROTO_FMODE_TIMED || mode == PROTO_FMODE_COUNTED)
			tb_start = (uint8_t)mode;
		else
			agent_warn("HOOKSCOPE_MODE=\"%s\" is not \"timed\" or \"counted\"; using timed", m);
	}
	tm_st_default = tb_st(tb_start, false);
	hook_engine_start_mode((enum hook_mode)tb_hook_mode(tb_start));
	tm_select_states_off();
	/* Call paths, the last step up, start off and held: a program's
	 * start-up is no measure of its cost (doc/architecture.md). */
	if (tb_ppm != 0) {
		tm_paths_set(false);
		tb_paths_held_until = proto_now_ns() + TB_HOLD_NS;
	}
}

/* See timing.h. */
uint32_t timing_budget_ppm(void)
{
	return tb_ppm;
}

/* Publish the -finstrument path's states of every function, outside and in
 * a window, after mode changes (timing_select.c keeps the tables). */
static void tb_tabs_build(void)
{
	uintptr_t *fns = xcalloc(tb_n + 1, sizeof *fns);
	uint8_t *st = xcalloc(2 * (tb_n + 1), 1);

	for (size_t i = 0; i < tb_n; i++) {
		fns[i] = tm_report_fn(i);
		st[i] = tb_st(tb_fns[i].mode, false);
		st[tb_n + 1 + i] = tb_st(tb_fns[i].mode, true);
	}
	tm_select_states(fns, st, st + tb_n + 1, tb_n, tb_win);
	free(fns);
	free(st);
}

/* Give the engine the modes of the functions flagged in pick (NULL: all). */
static void tb_apply(const bool *pick)
{
	uintptr_t *fns = xcalloc(tb_n + 1, sizeof *fns);
	uint8_t *modes = xcalloc(tb_n + 1, 1);
	size_t n = 0;

	for (size_t i = 0; i < tb_n; i++) {
		if (pick != NULL && !pick[i])
			continue;
		fns[n] = tm_report_fn(i);
		modes[n++] = tb_hook_mode(tb_fns[i].mode);
	}
	if (n > 0)
		hook_engine_modes(fns, modes, n);
	free(fns);
	free(modes);
}

/* The hooks' cost since the last decision, ppm of the threads' CPU. */
static uint32_t tb_cost_now(void)
{
	return (uint32_t)(tb_dec_cost_ps / (tb_dec_cpu_ns * 1000) * 1e6 + 0.5);
}

/* Start a new decision window. */
static void tb_dec_reset(void)
{
	tb_dec_cpu_ns = tb_dec_cost_ps = 0;
	for (size_t i = 0; i < tb_n; i++)
		tb_fns[i].dec_calls = 0;
}

/* Open or close the sampling window: the sampled functions' sites.  The
 * engine takes a while to switch them (opening writes their entries with
 * the world stopped, closing traps calls while it gives them their bytes
 * back): the calls made meanwhile are accounted outside the window, so a
 * window's ratio of sampled calls to the anchor only covers time when the
 * sampled sites were all watched.  How long a window lasts and when the
 * next one opens: timing_rule.h. */
static void tb_window(bool on, uint64_t now)
{
	bool *pick = xcalloc(tb_n + 1, sizeof *pick);

	if (on) {
		tb_win_start = now;
	} else {
		char after[48] = "the first";

		if (tb_win_end != 0)
			snprintf(after, sizeof after, "%.0f ms after the last",
			    (double)(tb_win_start - tb_win_end) / 1e6);
		tb_win_next = now + tr_window_gap(now - tb_win_start);
		tb_win_end = now;
		agent_log("budget: a window of %.1f ms over %zu demoted functions, %.0f anchor calls, %s",
		    (double)(now - tb_win_start) / 1e6, tb_demoted, tb_win_anchor, after);
	}
	/* The ratios weigh each window half as much as the next: a program
	 * whose mix of calls changes is followed within a few windows. */
	for (size_t i = 0; on && i < tb_n; i++) {
		tb_fns[i].w_calls /= 2;
		tb_fns[i].w_missed |= tb_fns[i].mode == PROTO_FMODE_OFF;
	}
	if (on)
		tb_w_anchor /= 2;
	for (size_t i = 0; i < tb_n; i++)
		pick[i] = tb_fns[i].mode == PROTO_FMODE_SAMPLED || tb_fns[i].mode == PROTO_FMODE_COUNTED;
	tb_win = on;              /* tb_apply's modes are the window's, or not */
	tb_apply(pick);
	tm_select_window(tb_win);
	tb_win = false;           /* the switch: outside */
	tm_report_harvest();
	tm_budget_account();
	tb_win = on;
	tb_win_anchor = 0;
	tb_dec_reset();           /* a window's cost is not the steady cost: no decision on it */
	free(pick);
}

/* Grow the state to the functions seen; new ones start in tb_start. */
static void tb_grow(void)
{
	size_t n = tm_report_count();

	if (n > tb_cap) {
		tb_cap = n * 2 > 256 ? n * 2 : 256;
		tb_fns = xrealloc(tb_fns, tb_cap * sizeof *tb_fns);
	}
	for (; tb_n < n; tb_n++) {
		struct tb_fn *f = &tb_fns[tb_n];

		memset(f, 0, sizeof *f);
		f->mode = tb_start;
		f->named = select_level(1, tm_report_name(tb_n), true, true);
	}
}

/* Add x estimated calls of f at its clean averages. */
static void tb_add_est(struct tb_fn *f, double x)
{
	f->es_calls += x;
	f->dec_calls += x;
	f->calls_est = f->time_est = true;
	if (f->ref_calls > 0) {
		f->es_total += x * (double)f->ref_total / (double)f->ref_calls;
		if (!tb_ip)
			f->es_self += x * (double)f->ref_self / (double)f->ref_calls;
	}
}

/* tm_ip_drain's callback: one sample in fn (functions not seen are not
 * shown: their samples go nowhere). */
static void tb_sample(uintptr_t fn, void *arg)
{
	size_t k = tm_report_find(fn);

	(void)arg;
	if (k < tb_n)
		tb_fns[k].samples++;
}

/* See timing_int.h: account the interval since the last harvest. */
void tm_budget_account(void)
{
	double cost, cpu, anchor = 0;
	bool clean;

	tb_grow();
	if (tb_ip)
		tm_ip_drain(tb_sample, NULL);
	tm_cost_threads(tb_timed_ps(), tb_counted_ps(), &cost, &cpu);
	tb_dec_cpu_ns += cpu;
	tb_dec_cost_ps += cost;
	clean = tb_win || tb_demoted == 0;
	for (size_t i = 0; i < tb_n; i++) {
		const struct tm_fig *c = tm_report_cur(i);
		struct tb_fn *f = &tb_fns[i];

		if (tb_exact(f->mode))
			anchor += (double)(c->calls - f->prev.calls + c->counts - f->prev.counts);
	}
	if (tb_win) {
		tb_win_anchor += anchor;
		tb_w_anchor += anchor;
	}
	for (size_t i = 0; i < tb_n; i++) {
		const struct tm_fig *c = tm_report_cur(i);
		struct tb_fn *f = &tb_fns[i];
		uint64_t dcalls = c->calls - f->prev.calls, dcounts = c->counts - f->prev.counts;
		uint64_t dtotal = c->total - f->prev.total, dself = c->self - f->prev.self;
		bool timed = f->mode == PROTO_FMODE_TIMED || (tb_win && f->mode != PROTO_FMODE_OFF);

		f->prev = *c;
		/* Counted and timed calls are exact, whatever the mode now. */
		f->sh_calls += dcalls + dcounts;
		f->dec_calls += (double)(dcalls + dcounts);
		f->sh_total += dtotal;
		if (clean && timed && dcalls > 0) {
			f->ref_calls += dcalls;
			f->ref_total += dtotal;
			f->ref_self += dself;
		}
		if (tb_ip) {
			/* Self time from the samples only (timing_ipsample.c). */
			if (f->samples > 0)
				f->time_est = true;
			f->es_self += (double)f->samples * (double)TM_IP_PERIOD_NS / tm_ns_per_tick;
			f->samples = 0;
		} else if (clean || f->ref_calls == 0) {
			f->sh_self += dself;
		} else {
			/* Its self would absorb the children not timed. */
			f->es_self += (double)dcalls * (double)f->ref_self / (double)f->ref_calls;
			f->time_est = true;
		}
		if (dcounts > 0 && f->ref_calls > 0) {
			f->es_total += (double)dcounts * (double)f->ref_total / (double)f->ref_calls;
			if (!tb_ip)
				f->es_self += (double)dcounts * (double)f->ref_self / (double)f->ref_calls;
			f->time_est = true;
		}
		if (tb_win && f->mode != PROTO_FMODE_OFF)
			f->w_calls += (double)(dcalls + dcounts);
		else if (!tb_exact(f->mode))
			f->calls_est = f->time_est = true;      /* calls went unseen */
		if (f->mode != PROTO_FMODE_SAMPLED)
			continue;
		if (!tb_win)
			f->owed += anchor;
		if (tb_w_anchor > 0 && f->owed > 0) {
			tb_add_est(f, tr_est_calls(f->w_calls, tb_w_anchor, f->owed));
			f->owed = 0;
		}
	}
}

/* The anchor's set changed (functions moved into or out of the exactly
 * counted ones): its calls in the same windows.  What was owed is settled
 * already (each tick accounts before it decides). */
static void tb_ratio_rebase(void)
{
	tb_w_anchor = 0;
	for (size_t i = 0; i < tb_n; i++)
		if (tb_exact(tb_fns[i].mode))
			tb_w_anchor += tb_fns[i].w_calls;
}

/* Every ratio starts again with the next window. */
static void tb_ratio_restart(void)
{
	for (size_t i = 0; i < tb_n; i++) {
		tb_fns[i].w_calls = 0;
		tb_fns[i].w_missed = false;
	}
	tb_w_anchor = 0;
	tb_ratio_new = true;
}

/* Run the rule on the figures since the last decision; apply its changes.
 * True when a mode or the call paths changed. */
static bool tb_decide(uint64_t now)
{
	struct tr_params p = {
		.budget_ppm = tb_ppm, .cpu_ps = tb_dec_cpu_ns * 1000, .timed_ps = tb_timed_ps(),
		.counted_ps = tb_counted_ps(), .duty_ppm = (uint32_t)(TR_WIN_NS * 1000000 / TR_PERIOD_NS),
		.path_ps = (double)tm_paths_ps(), .paths_held = now < tb_paths_held_until,
	};
	bool paths = tm_paths_on();
	struct tr_fn *v = xcalloc(tb_n + 1, sizeof *v);
	bool *pick = xcalloc(tb_n + 1, sizeof *pick);
	bool moved = false, back = false, paths_moved = false;
	size_t changed = 0;

	tb_cost_ppm = tb_cost_now();
	for (size_t i = 0; i < tb_n; i++) {
		struct tb_fn *f = &tb_fns[i];

		if (f->mode != PROTO_FMODE_OFF)
			f->rate = f->dec_calls / tb_dec_cpu_ns;
		v[i] = (struct tr_fn){
			.calls = f->mode == PROTO_FMODE_OFF ? f->rate * tb_dec_cpu_ns : f->dec_calls,
			.avg_ps = f->ref_calls ? (uint64_t)((double)f->ref_total / (double)f->ref_calls *
			    tm_ns_per_tick * 1000.0) : 0,
			.mode = f->mode, .named = f->named, .held = now < f->held_until,
		};
		f->dec_calls = 0;
	}
	tr_decide_paths(v, tb_n, &p, &paths);
	if (paths != tm_paths_on()) {
		paths_moved = true;
		tm_paths_set(paths);
		tb_paths_held_until = now + TB_HOLD_NS;
		agent_log("budget: call paths %s (cost %.2f%% of the CPU, budget %g%%)",
		    paths ? "back on" : "off", tb_cost_ppm / 1e4, tb_ppm / 1e4);
	}
	for (size_t i = 0; i < tb_n; i++) {
		struct tb_fn *f = &tb_fns[i];

		if (!v[i].changed)
			continue;
		moved |= tb_exact(f->mode) != tb_exact(v[i].mode);
		back |= f->mode == PROTO_FMODE_OFF && f->w_missed;
		tb_demoted += (f->mode == tb_start) - (v[i].mode == tb_start);
		f->hook_ppm = (uint32_t)(v[i].calls * p.timed_ps / p.cpu_ps * 1e6 + 0.5);
		f->mode = v[i].mode;
		f->since_ns = now;
		f->held_until = now + TB_HOLD_NS;
		pick[i] = true;
		changed++;
	}
	if (changed > 0) {
		agent_log("budget: %zu functions changed mode (cost %.2f%% of the CPU, budget %g%%)",
		    changed, tb_cost_ppm / 1e4, tb_ppm / 1e4);
		if (back) {
			agent_log("budget: the ratios restart (a function back from off missed windows)");
			tb_ratio_restart();
		}
		else if (moved)
			tb_ratio_rebase();
		tb_apply(pick);
		tb_tabs_build();
	}
	tb_dec_cpu_ns = tb_dec_cost_ps = 0;       /* dec_calls were taken above */
	free(v);
	free(pick);
	return changed > 0 || paths_moved;
}

/* Every function back to the starting mode (the budget turned off). */
static void tb_restore(uint64_t now)
{
	bool *pick = xcalloc(tb_n + 1, sizeof *pick);

	tb_win = false;
	for (size_t i = 0; i < tb_n; i++) {
		if (tb_fns[i].mode == tb_start)
			continue;
		tb_fns[i].mode = tb_start;
		tb_fns[i].since_ns = now;
		pick[i] = true;
	}
	tb_demoted = 0;
	tb_ratio_restart();
	tm_paths_set(true);       /* everything as before, call paths too */
	tb_apply(pick);
	tb_tabs_build();
	free(pick);
}

/* Self time from samples exactly while functions are demoted; new threads
 * get their timers here. */
static void tb_ip_sync(void)
{
	bool want = tb_ppm > 0 && tb_demoted > 0;

	if (want || tb_ip)
		tm_ip_set(want);
	tb_ip = want;
}

/* See timing.h. */
void timing_budget_set(uint32_t ppm)
{
	if (ppm > 1000000)
		ppm = 1000000;
	tb_ppm = ppm;
	tb_tick_ns = TB_TICK_NS;
	if (ppm == 0) {
		tm_report_harvest();
		tm_budget_account();
		tb_restore(proto_now_ns());
		tb_ip_sync();
	}
	tb_dec_reset();
}

/* See timing.h: harvest, account, decide, open or close the window. */
uint64_t timing_budget_tick(uint64_t now)
{
	if (tb_nforgot > 0) {
		uint8_t *m = xcalloc(tb_nforgot, 1);

		memset(m, tb_hook_mode(tb_start), tb_nforgot);
		hook_engine_modes(tb_forgot, m, tb_nforgot);
		free(m);
		free(tb_forgot);
		tb_forgot = NULL;
		tb_nforgot = 0;
	}
	if (!LOAD(&tm_params.enabled))
		return now + TR_PERIOD_NS;
	if (tb_ppm == 0) {
		/* No decisions; the cost is still measured (the reporter's
		 * harvests account the intervals). */
		if (tb_dec_cpu_ns >= TB_DECIDE_CPU_NS) {
			tb_cost_ppm = tb_cost_now();
			tb_dec_reset();
		}
		return now + TB_OFF_TICK_NS;
	}
	tm_report_harvest();
	tm_budget_account();
	if (!tb_win && tb_dec_cpu_ns >= TB_DECIDE_CPU_NS) {
		if (tb_decide(now))
			tb_tick_ns = TB_TICK_NS;
		else if (tb_tick_ns < TB_TICK_MAX_NS)
			tb_tick_ns *= 2;
	}
	if (tb_win && tr_window_done(now - tb_win_start, tb_win_anchor))
		tb_window(false, now);
	else if (!tb_win && tb_demoted > 0 && (now >= tb_win_next || tb_ratio_new)) {
		tb_ratio_new = false;
		tb_window(true, now);
	}
	tb_ip_sync();
	if (tb_win)
		return now + TB_TICK_NS;      /* a window lasts a few ticks */
	/* The next window opens on time. */
	if (tb_demoted > 0 && tb_win_next > now && tb_win_next < now + tb_tick_ns)
		return tb_win_next;
	return now + tb_tick_ns;
}

/* See timing_int.h. */
void tm_budget_fig(size_t k, struct tm_fig *now, struct proto_ag_func *f)
{
	struct tb_fn *b;

	if (k >= tb_n)
		return;
	b = &tb_fns[k];
	now->calls = b->sh_calls + (uint64_t)(b->es_calls + 0.5);
	now->total = b->sh_total + (uint64_t)(b->es_total + 0.5);
	now->self = b->sh_self + (uint64_t)(b->es_self + 0.5);
	if (now->self > now->total)
		now->self = now->total;
	f->mode = b->mode;
	f->calls_est = b->calls_est;
	f->time_est = b->time_est;
	f->mode_since_ns = b->since_ns;
	f->hook_ppm = b->hook_ppm;
	now->mode = b->mode | (uint64_t)b->calls_est << 8 | (uint64_t)b->time_est << 9;
}

/* See timing_int.h. */
void tm_budget_rec(struct proto_agent_rec *rec)
{
	rec->cost_ppm = tb_cost_ppm;
	rec->budget_ppm = tb_ppm;
	/* The hooks' cost as the program pays it, beside the calibrated one. */
	tm_ip_share(&rec->ip_samples, &rec->ip_agent);
}

/* See timing_int.h: what is shown starts again from 0; modes stay.  The
 * interval up to the reset's harvest is accounted first. */
void tm_budget_reset(void)
{
	tm_budget_account();
	for (size_t i = 0; i < tb_n; i++) {
		struct tb_fn *f = &tb_fns[i];

		f->sh_calls = f->sh_total = f->sh_self = 0;
		f->es_calls = f->es_total = f->es_self = 0;
		f->calls_est = f->time_est = false;
	}
}

/* See timing_int.h: the functions are forgotten (their indexes go); the
 * demoted ones get the starting mode back at the next tick. */
void tm_budget_forget(void)
{
	tb_forgot = xcalloc(tb_n + 1, sizeof *tb_forgot);
	tb_nforgot = 0;
	for (size_t i = 0; i < tb_n; i++)
		if (tb_fns[i].mode != tb_start)
			tb_forgot[tb_nforgot++] = tm_report_fn(i);
	free(tb_fns);
	tb_fns = NULL;
	tb_n = tb_cap = tb_demoted = 0;
	tb_win = tb_ip = false;
	tm_ip_set(false);         /* the parent's timers are gone; its samples with them */
	tm_select_states_off();
}
