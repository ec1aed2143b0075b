/*
 * timing_decide.c - the overhead budget's decisions: the rule's changes of
 * mode applied to the functions (timing_rule.c chooses them), a lost
 * window's new anchor, and every function back to its starting mode when
 * the budget goes off.  When they are taken: timing_budget.c.  Reporter
 * thread only, with the cycle lock.
 */
#include <stdlib.h>

#include "agent.h"
#include "protocol.h"
#include "timing_budget.h"
#include "timing_int.h"
#include "timing_rule.h"

/* The probe the rule left in v (none: 0): true when it is another one,
 * whose rate takes a spell (the tick opens one at once). */
static bool tb_probe_take(const struct tr_fn *v)
{
	size_t probe = 0;

	for (size_t i = 0; i < tb.n; i++)
		if (v[i].probe)
			probe = i + 1;
	if (probe == tb.probe)
		return false;
	if (probe > 0)
		agent_log("budget: no function is cheap enough to count as the anchor: %s is the "
		    "probe (counted in short spells, its calls between them from the CPU time)",
		    tm_report_name(probe - 1));
	else
		agent_log("budget: the probe %s is no longer needed", tm_report_name(tb.probe - 1));
	tb.probe = probe;
	tb.pr_calls = tb.pr_cpu_ns = 0;
	return true;
}

/* Function i's mode becomes mode at now (pick[i]: its site to apply),
 * held a while before a promotion. */
static void tb_fn_set(size_t i, unsigned mode, uint64_t now, bool *pick)
{
	struct tb_fn *f = &tb.fns[i];

	tb.demoted += (f->mode == tb.start) - (mode == tb.start);
	f->mode = (uint8_t)mode;
	f->anchor = false;
	f->iv_anchor = f->iv_est = 0;     /* what is mended was sampled throughout */
	f->since_ns = now;
	f->held_until = now + TB_HOLD_NS;
	pick[i] = true;
}

/* See timing_budget.h. */
bool tb_decide(uint64_t now)
{
	struct tr_params p = {
		.budget_ppm = tb_ppm, .cpu_ps = tb.dec_cpu_ns * 1000, .timed_ps = tb_timed_ps(),
		.counted_ps = tb_counted_ps(), .duty_ppm = tr_window_duty(tb.win_len),
		.path_ps = (double)tm_paths_ps(), .paths_held = now < tb_paths_held_until,
	};
	bool paths = tm_paths_on();
	struct tr_fn *v = xcalloc(tb.n + 1, sizeof *v);
	bool *pick = xcalloc(tb.n + 1, sizeof *pick);
	bool moved = false, back = false, paths_moved = false, sampled = false;
	size_t changed = 0, worst = 0;
	double off;

	tb_cost_ppm = tb_cost_now();
	for (size_t i = 0; i < tb.n; i++) {
		struct tb_fn *f = &tb.fns[i];

		if (f->mode != PROTO_FMODE_OFF)
			f->rate = f->dec_calls / tb.dec_cpu_ns;
		v[i] = (struct tr_fn){
			.calls = f->mode == PROTO_FMODE_OFF ? f->rate * tb.dec_cpu_ns : f->dec_calls,
			.avg_ps = f->ref_calls ? (uint64_t)((double)f->ref_total / (double)f->ref_calls *
			    tm_ns_per_tick * 1000.0) : 0,
			.mode = f->mode, .named = f->named, .held = now < f->held_until,
			.anchor = f->anchor, .probe = tb.probe == i + 1,
		};
		f->dec_calls = 0;
	}
	tr_decide_paths(v, tb.n, &p, &paths);
	if (paths != tm_paths_on()) {
		paths_moved = true;
		tm_paths_set(paths);
		tb_paths_held_until = now + TB_HOLD_NS;
		agent_log("budget: call paths %s (cost %.2f%% of the CPU, budget %g%%)",
		    paths ? "back on" : "off", tb_cost_ppm / 1e4, tb_ppm / 1e4);
	}
	off = tb_ratio_off(v, &worst);
	for (size_t i = 0; i < tb.n; i++) {
		struct tb_fn *f = &tb.fns[i];

		if (!v[i].changed)
			continue;
		moved |= tb_exact(f->mode) != tb_exact(v[i].mode);
		back |= f->mode == PROTO_FMODE_OFF && f->w_missed;
		sampled |= v[i].mode == PROTO_FMODE_SAMPLED;
		f->hook_ppm = (uint32_t)(v[i].calls * p.timed_ps / p.cpu_ps * 1e6 + 0.5);
		if (v[i].mode == PROTO_FMODE_OFF) {     /* estimated at its ratio while off */
			f->off_ratio = tb.w_anchor > 0 && !f->w_missed ? f->w_calls / tb.w_anchor : 0;
			f->off_rated = f->off_ratio > 0 && f->w_calls >= TB_RATIO_MIN_CALLS;
		}
		tb_fn_set(i, v[i].mode, now, pick);
		changed++;
	}
	if (tb_probe_take(v)) {
		moved = true;
		if (changed == 0)
			tb_ratio_rebase();
	}
	if (changed > 0) {
		agent_log("budget: %zu functions changed mode (cost %.2f%% of the CPU, budget %g%%) "
		    "at %.1f ms of the process's CPU", changed, tb_cost_ppm / 1e4, tb_ppm / 1e4,
		    tb_process_cpu_ms());
		if (moved)
			tb_ratio_rebase();        /* what is owed in the new set's calls, restart or not */
		if (back) {
			agent_log("budget: the ratios restart (a function back from off missed windows)");
			tb_ratio_restart();
		} else if (off > TB_RATIO_OFF) {
			agent_log("budget: the ratios restart (the windows would put %s's calls %.0f%% "
			    "off its count just before it was sampled: another phase)",
			    tm_report_name(worst), off * 100);
			tb_ratio_restart();
		} else {
			/* Sampled on the ratios of windows that saw none sampled
			 * (they timed these while counted), or before the first's
			 * confirmation came: the next window, soon, confirms them,
			 * as a first window's second does. */
			if (sampled && tb.wins <= 1 && !tb.ratio_new) {
				tb.wins = 1;
				if (tb.win_next > now + TR_CONFIRM_NS)
					tb.win_next = now + TR_CONFIRM_NS;
			}
		}
		tb_apply(pick);
		tb_tabs_build();
	}
	tb.dec_cpu_ns = tb.dec_cost_ps = 0;       /* dec_calls were taken above */
	free(v);
	free(pick);
	return changed > 0 || paths_moved;
}

/* The window just closed saw sampled calls and none of the anchor's (the
 * functions exact when a decision chose them stopped being called, or
 * every demoted one went off): one of the sampled or off functions called
 * in it stays counted, chosen as a demotion chooses its anchor, or failing
 * one cheap enough, the probe (an off one sampled again); the ratios
 * re-base on it.  Each is judged at its rate outside the windows, as the
 * next decision will see it, or at its rate over the window's own CPU (the
 * hooks' cost out) if higher: an off one's rate is as old as its going off,
 * and judged by it an anchor too dear to keep goes off again at the next
 * decision, and the next window loses it again. */
void tb_reanchor(uint64_t now)
{
	double cpu = TB_DECIDE_CPU_NS;
	struct tr_params p = { .budget_ppm = tb_ppm, .cpu_ps = cpu * 1000, .timed_ps = tb_timed_ps(),
		.counted_ps = tb_counted_ps(), .duty_ppm = tr_window_duty(tb.win_len),
		.off_seen = true };
	struct tr_fn *v = xcalloc(tb.n + 1, sizeof *v);
	bool *pick = xcalloc(tb.n + 1, sizeof *pick);
	size_t keep;

	for (size_t i = 0; i < tb.n; i++) {
		const struct tb_fn *f = &tb.fns[i];
		double seen = f->w_calls - f->w_open;
		double in = tb.win_cpu_ns > 0 ? seen / tb.win_cpu_ns : 0;

		v[i] = (struct tr_fn){ .calls = seen > 0 ? (in > f->rate ? in : f->rate) * cpu : 0,
			.mode = f->mode };
	}
	keep = tr_anchor(v, tb.n, &p, p.cpu_ps * tb_ppm / 1e6);
	if (keep < tb.n) {
		struct tb_fn *f = &tb.fns[keep];

		agent_log("budget: the anchor made no call in the window: %s stays counted "
		    "(%.0f calls in it)", tm_report_name(keep), f->w_calls - f->w_open);
		tb_fn_set(keep, PROTO_FMODE_COUNTED, now, pick);
		f->anchor = true;
	} else if ((keep = tr_probe(v, tb.n, &p)) < tb.n) {
		v[keep].probe = true;
		if (v[keep].mode == PROTO_FMODE_OFF)
			tb_fn_set(keep, PROTO_FMODE_SAMPLED, now, pick);
		if (!tb_probe_take(v) && !pick[keep])
			keep = tb.n;
	}
	if (keep < tb.n) {
		if (pick[keep]) {
			tb_apply(pick);
			tb_tabs_build();
		}
		tb_ratio_rebase();
	}
	free(v);
	free(pick);
}

/* See timing_budget.h. */
void tb_restore(uint64_t now)
{
	bool *pick = xcalloc(tb.n + 1, sizeof *pick);

	tb.win = tb.spell = false;
	tb.probe = 0;
	for (size_t i = 0; i < tb.n; i++) {
		tb.fns[i].anchor = false;
		if (tb.fns[i].mode == tb.start)
			continue;
		tb.fns[i].mode = tb.start;
		tb.fns[i].since_ns = now;
		pick[i] = true;
	}
	tb.demoted = 0;
	tb_ratio_restart();
	tm_paths_set(true);       /* everything as before, call paths too */
	tb_apply(pick);
	tb_tabs_build();
	free(pick);
}
