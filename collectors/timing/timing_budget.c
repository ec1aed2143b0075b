/*
 * timing_budget.c - the overhead budget: what the hooks cost the target and
 * how each function is watched to keep that within the budget
 * (doc/architecture.md, "the overhead budget"); the figures each mode
 * leaves, exact or estimated, are timing_account.c's, and the decisions
 * applied timing_decide.c's.  Reporter thread only, with the cycle lock.
 *
 * Cost: at every harvest, per live thread, the timed and counted calls it
 * made since the last one times their calibrated costs, against the CPU
 * time the thread used meanwhile (its CPU clock); summed over the threads.
 * Every tick (timing_budget_tick) the figures are harvested again and, once
 * the threads used TB_DECIDE_CPU_NS of CPU since the last decision, the
 * rule (timing_rule.c) may change modes.  Ticks are TB_TICK_NS apart while
 * modes change, come when an open window should be done (tr_window_wait),
 * and back off to TB_TICK_MAX_NS while decisions change nothing: the
 * reporter's harvests are most of what the budget itself costs the target.
 * Between backed-off ticks a peek every TB_PEEK_NS reads only the threads'
 * call counters and CPU clocks: when
 * the cost since its own last verdict is over TB_PEEK_OVER budgets (the
 * program entered another phase), the tick comes at once.
 *
 * Modes: timed; counted (the counted path: exact count, times estimated
 * from the function's clean average); sampled (unwatched but for one
 * short window every TR_PERIOD_NS, in which every sampled and counted
 * function is timed: timing_rule.h); off (unwatched, but for one window
 * that rates it if it went off without a ratio).  A "clean"
 * interval is one where every function watched is timed (a window, or no
 * function demoted): only clean figures make the averages.  While functions are
 * demoted, self time comes from pc samples (timing_ipsample.c): a caller's
 * self time never absorbs the children no longer timed.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "engine.h"
#include "protocol.h"
#include "timing_budget.h"
#include "timing_int.h"
#include "timing_rule.h"

#define TB_DEFAULT_PPM   50000                 /* 5% */
#define TB_TICK_NS       10000000ull           /* 10 ms between budget ticks */
#define TB_TICK_MAX_NS   80000000ull           /* and at most this, modes steady */
#define TB_OFF_TICK_NS   100000000ull          /* budget off: the cost is updated this often */
#define TB_PEEK_NS       20000000ull           /* between peeks (each costs the reporter a wake) */
#define TB_PEEK_CPU_NS   2000000ull            /* target CPU a peek's verdict needs */
#define TB_PEEK_OVER     2                     /* a peek forces a tick over this many budgets */
#define TB_SPELL_NS      10000000ull           /* a probe's spell, at least */
#define TB_SPELL_EVERY_NS 250000000ull         /* from one spell's end to the next */

#define LOAD(p)  __atomic_load_n((p), __ATOMIC_RELAXED)

uint32_t tb_ppm = TB_DEFAULT_PPM;
struct tb_state tb = { .start = PROTO_FMODE_TIMED };
uint64_t tb_paths_held_until;            /* call paths may not come back before */
uint32_t tb_cost_ppm;
static uint64_t tb_tick_ns = TB_TICK_NS;
static uintptr_t *tb_forgot;             /* fork child: functions to give tb.start back */
static size_t tb_nforgot;
static uint64_t tb_full_next;            /* the next tick; peeks until then */
static double tb_pk_cpu_ns, tb_pk_cost_ps;   /* since the peek's last verdict */
static uint64_t tb_pk_off_until;         /* a forced tick changed nothing: no peek
                                          * before this, unless a decision changes modes */

/* Per-call costs, ps. */
double tb_timed_ps(void)
{
	uint64_t a = LOAD(&tm_params.o_in) + LOAD(&tm_params.o_out);
	uint64_t b = LOAD(&tm_params.o_in_site) + LOAD(&tm_params.o_out_site);

	return (double)(a > b ? a : b) * tm_ns_per_tick * 1000.0;
}

double tb_counted_ps(void)
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

bool tb_exact(unsigned m)
{
	return m == PROTO_FMODE_TIMED || m == PROTO_FMODE_COUNTED;
}

/* An off function is timed in the windows until one rates it. */
bool tb_windowed(const struct tb_fn *f)
{
	return f->mode != PROTO_FMODE_OFF || !f->off_rated;
}

uint8_t tb_fn_st(size_t i, bool win)
{
	if (tb.spell && !win && tb.probe == i + 1)
		return TM_ST_COUNTED;
	if (win && tb_windowed(&tb.fns[i]))
		return TM_ST_TIMED;
	return tb_st(tb.fns[i].mode, win);
}

/* The engine's mode of the hot path's state st. */
static uint8_t tb_hook_mode(uint8_t st)
{
	static const uint8_t of[] = {
		[TM_ST_TIMED] = HOOK_M_TIMED, [TM_ST_COUNTED] = HOOK_M_COUNTED, [TM_ST_OFF] = HOOK_M_OFF,
	};

	return of[st];
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
			tb.start = (uint8_t)mode;
		else
			agent_warn("HOOKSCOPE_MODE=\"%s\" is not \"timed\" or \"counted\"; using timed", m);
	}
	tm_st_default = tb_st(tb.start, false);
	hook_engine_start_mode((enum hook_mode)tb_hook_mode(tb_st(tb.start, false)));
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
void tb_tabs_build(void)
{
	uintptr_t *fns = xcalloc(tb.n + 1, sizeof *fns);
	uint8_t *st = xcalloc(2 * (tb.n + 1), 1);

	for (size_t i = 0; i < tb.n; i++) {
		fns[i] = tm_report_fn(i);
		st[i] = tb_fn_st(i, false);
		st[tb.n + 1 + i] = tb_fn_st(i, true);
	}
	tm_select_states(fns, st, st + tb.n + 1, tb.n, tb.win);
	free(fns);
	free(st);
}

/* Give the engine the modes of the functions flagged in pick (NULL: all). */
void tb_apply(const bool *pick)
{
	uintptr_t *fns = xcalloc(tb.n + 1, sizeof *fns);
	uint8_t *modes = xcalloc(tb.n + 1, 1);
	size_t n = 0;

	for (size_t i = 0; i < tb.n; i++) {
		if (pick != NULL && !pick[i])
			continue;
		fns[n] = tm_report_fn(i);
		modes[n++] = tb_hook_mode(tb_fn_st(i, tb.win));
	}
	if (n > 0)
		hook_engine_modes(fns, modes, n);
	free(fns);
	free(modes);
}

/* See timing_budget.h. */
uint32_t tb_cost_now(void)
{
	return (uint32_t)(tb.dec_cost_ps / (tb.dec_cpu_ns * 1000) * 1e6 + 0.5);
}

/* Start a new decision window. */
void tb_dec_reset(void)
{
	tb.dec_cpu_ns = tb.dec_cost_ps = 0;
	for (size_t i = 0; i < tb.n; i++)
		tb.fns[i].dec_calls = 0;
}

/* Is a function sampled (a confirmation has something to confirm)? */
static bool tb_sampling(void)
{
	for (size_t i = 0; i < tb.n; i++)
		if (tb.fns[i].mode == PROTO_FMODE_SAMPLED)
			return true;
	return false;
}

/* See timing_budget.h. */
double tb_process_cpu_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Self time from samples exactly while functions are demoted; new threads
 * get their timers here. */
static void tb_ip_sync(void)
{
	bool want = tb_ppm > 0 && tb.demoted > 0;

	if (want || tb.ip)
		tm_ip_set(want);
	tb.ip = want;
}

/* See timing.h. */
void timing_budget_set(uint32_t ppm)
{
	if (ppm > 1000000)
		ppm = 1000000;
	tb_ppm = ppm;
	tb_tick_ns = TB_TICK_NS;
	tb_full_next = 0;         /* a tick at once */
	if (ppm == 0) {
		tm_report_harvest();
		tm_budget_account();
		tb_restore(proto_now_ns());
		tb_ip_sync();
	}
	tb_dec_reset();
}

/* Between ticks: the hooks' cost since the peek's last verdict, on its own
 * base (the accounting's interval would dilute a phase that began after
 * it).  True when that is over TB_PEEK_OVER budgets. */
static bool tb_peek(void)
{
	double cost, cpu;
	bool over;

	tm_cost_threads(TM_COST_PEEK, tb_timed_ps(), tb_counted_ps(), &cost, &cpu);
	tb_pk_cost_ps += cost;
	tb_pk_cpu_ns += cpu;
	if (tb_pk_cpu_ns < TB_PEEK_CPU_NS)
		return false;
	over = tb_pk_cost_ps / (tb_pk_cpu_ns * 1000) * 1e6 > (double)tb_ppm * TB_PEEK_OVER;
	tb_pk_cost_ps = tb_pk_cpu_ns = 0;
	return over;
}

/* See timing.h: harvest, account, decide, open or close the window; a
 * peek between backed-off ticks. */
uint64_t timing_budget_tick(uint64_t now)
{
	bool forced = false, due;
	uint32_t cost;
	uint64_t next;

	if (tb_nforgot > 0) {
		uint8_t *m = xcalloc(tb_nforgot, 1);

		memset(m, tb_hook_mode(tb_st(tb.start, false)), tb_nforgot);
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
		if (tb.dec_cpu_ns >= TB_DECIDE_CPU_NS) {
			tb_cost_ppm = tb_cost_now();
			tb_dec_reset();
		}
		return now + TB_OFF_TICK_NS;
	}
	if (now < tb_full_next) {
		if (now < tb_pk_off_until || !tb_peek())
			return tb_full_next < now + TB_PEEK_NS ? tb_full_next : now + TB_PEEK_NS;
		forced = true;
		tb_tick_ns = TB_TICK_NS;      /* and the next soon, whatever this one decides */
		agent_log("budget: the hooks' cost since the last peek is over %d budgets: a tick now",
		    TB_PEEK_OVER);
	}
	tm_report_harvest();
	tm_budget_account();      /* the peek's base moves here too */
	tb_pk_cpu_ns = tb_pk_cost_ps = 0;
	/* Between a set of ratios' first window and its confirmation a
	 * decision within the budget waits: one that changes the anchor's set
	 * would leave the interval the first window estimated unmended.  The
	 * status bar meanwhile shows the cost of the interval, not the one
	 * the last decision was taken on (100 ms old or more).  The wait is a
	 * decision that changes nothing, and the next interval starts: grown
	 * through a quiet spell, it would dilute the cost of a phase that
	 * begins in it (a confirmation can be a second away). */
	due = !tb.win && !tb.spell && tb.dec_cpu_ns >= TB_DECIDE_CPU_NS;
	cost = due ? tb_cost_now() : 0;
	if (due && tb.wins == 1 && cost <= tb_ppm && tb_sampling()) {
		tb_cost_ppm = cost;
		tb_dec_reset();
	} else if (due) {
		if (tb_decide(now)) {
			tb_tick_ns = TB_TICK_NS;
			tb_pk_off_until = 0;
		} else if (forced) {
			/* Perhaps the quiet time before the phase diluted the
			 * interval: the next tick decides on fresh figures.  And
			 * if the rule has nothing to change, peeks rest a while. */
			tb_pk_off_until = now + TB_TICK_MAX_NS;
		} else if (tb_tick_ns < TB_TICK_MAX_NS) {
			tb_tick_ns *= 2;
		}
	}
	if (tb.spell) {
		/* No decision is taken while a spell is open: one ends at its
		 * least when the probe made no call while the program ran half
		 * a spell's worth of CPU (a phase that no longer calls it: its
		 * rate is as much 0 in 10 ms as in 200), and at once when a
		 * peek found the cost over budgets (the decision follows). */
		bool idle = tb.sp_calls < 1 && tb.sp_cpu_ns >= TB_SPELL_NS / 2;

		if (forced || (now - tb.sp_start >= TB_SPELL_NS &&
		    (idle || tr_window_done(now - tb.sp_start, tb.sp_calls, 0)))) {
			tb_spell(false, now);
			tb.sp_due = now + TB_SPELL_EVERY_NS;
		}
	} else if (tb.win && tr_window_done(now - tb.win_start, tb.win_anchor, tb.win_sampled)) {
		if (tb_window(false, now))
			tb_reanchor(now);
	} else if (!tb.win && tb.probe > 0 && (tb.pr_cpu_ns <= 0 || now >= tb.sp_due)) {
		tb_spell(true, now);              /* a new probe's rate before anything */
	} else if (!tb.win && tb.demoted > 0 && (now >= tb.win_next || tb.ratio_new)) {
		tb.ratio_new = false;
		tb_window(true, now);
	}
	tb_ip_sync();
	if (tb.spell || tb.win) {
		uint64_t t = proto_now_ns();  /* opening it took a while */

		next = t + (tb.spell ? tr_window_wait(t - tb.sp_start, tb.sp_calls) :
		    tr_window_wait(t - tb.win_start, tb.win_anchor));
		if (tb.spell && next < tb.sp_start + TB_SPELL_NS)
			next = tb.sp_start + TB_SPELL_NS;
	} else if (tb.probe > 0 && tb.sp_due > now && tb.sp_due < now + tb_tick_ns) {
		next = tb.sp_due;
	} else if (tb.demoted > 0 && tb.win_next > now && tb.win_next < now + tb_tick_ns) {
		next = tb.win_next;           /* the next window opens on time */
	} else {
		next = now + tb_tick_ns;
	}
	tb_full_next = next;
	return next < now + TB_PEEK_NS ? next : now + TB_PEEK_NS;
}

/* See timing_int.h. */
void tm_budget_rec(struct proto_agent_rec *rec)
{
	rec->cost_ppm = tb_cost_ppm;
	rec->budget_ppm = tb_ppm;
	/* The hooks' cost as the program pays it, beside the calibrated one. */
	tm_ip_share(&rec->ip_samples, &rec->ip_agent);
}

/* See timing_int.h: the functions are forgotten (their indexes go); the
 * demoted ones get the starting mode back at the next tick. */
void tm_budget_forget(void)
{
	tb_forgot = xcalloc(tb.n + 1, sizeof *tb_forgot);
	tb_nforgot = 0;
	for (size_t i = 0; i < tb.n; i++)
		if (tb.fns[i].mode != tb.start)
			tb_forgot[tb_nforgot++] = tm_report_fn(i);
	free(tb.fns);
	tb = (struct tb_state){ .start = tb.start };      /* the parent's windows and ratios too */
	tb_full_next = 0;
	tb_pk_cpu_ns = tb_pk_cost_ps = 0;
	tb_pk_off_until = 0;
	tm_ip_set(false);         /* the parent's timers are gone; its samples with them */
	tm_select_states_off();
}
