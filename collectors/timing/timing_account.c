/*
 * timing_account.c - the overhead budget's accounting: what each function
 * did in every interval between harvests, exact where it was watched,
 * estimated where it was not, and the sampling windows the estimates come
 * from (doc/architecture.md, "the overhead budget").  Reporter thread only,
 * with the cycle lock; the state is timing_budget.h's.
 *
 * A sampled function's calls outside its windows are estimated against an
 * anchor: the calls counted exactly (timed or counted functions) over the
 * same intervals.  Its calls per anchor call in the windows, times the
 * anchor outside them (timing_rule.c, tr_est_calls); each window weighs
 * half as much as the next.  Every function watched keeps its own calls in
 * the windows (w_calls), so when the anchor's set of functions changes the
 * ratios are taken against the new set over the same windows, without a
 * window of their own; only a function back from off, having missed
 * windows, or one sampled whose count the re-based ratios would have
 * missed by far over the interval decided on (the windows belong to
 * another phase) restarts them all, and a window follows.  A window whose
 * own calls of a sampled function the windows before it would have missed
 * by far restarts them from itself; every window, closing, estimates the
 * interval since the last one again with the ratios it leaves (a count
 * shown too high is held back, never lowered; after a restart, only the
 * part after where the anchor's pace or mix changed, or half).  An off
 * function's calls are estimated at its ratio when it went off (a window
 * rates one that had none) and owed: back, a window estimates them again.
 * A sampled or off function's figures are marked estimated from its first
 * interval unwatched.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "protocol.h"
#include "select.h"
#include "timing_budget.h"
#include "timing_int.h"
#include "timing_rule.h"

/* Grow the state to the functions seen; new ones start in tb.start. */
static void tb_grow(void)
{
	size_t n = tm_report_count();

	if (n > tb.cap) {
		tb.cap = n * 2 > 256 ? n * 2 : 256;
		tb.fns = xrealloc(tb.fns, tb.cap * sizeof *tb.fns);
	}
	for (; tb.n < n; tb.n++) {
		struct tb_fn *f = &tb.fns[tb.n];

		memset(f, 0, sizeof *f);
		f->mode = tb.start;
		f->named = select_level(1, tm_report_name(tb.n), true, true);
	}
}

/* Show x more estimated calls of f, at its clean averages; calls shown
 * too many before (es_hold) are taken from them first, so a count never
 * goes down. */
static void tb_add_est(struct tb_fn *f, double x)
{
	double held = f->es_hold < x ? f->es_hold : x;

	f->es_hold -= held;
	x -= held;
	f->es_calls += x;
	f->calls_est = f->time_est = true;
	if (f->ref_calls > 0) {
		f->es_total += x * (double)f->ref_total / (double)f->ref_calls;
		if (!tb.ip)
			f->es_self += x * (double)f->ref_self / (double)f->ref_calls;
	}
}

/* A count estimated again: d more calls, or fewer (held back from the
 * next estimates: a count never goes down). */
static void tb_est_mend(struct tb_fn *f, double d)
{
	if (d > 0)
		tb_add_est(f, d);
	else
		f->es_hold -= d;
}

/* tm_ip_drain's callback: one sample in fn (functions not seen are not
 * shown: their samples go nowhere). */
static void tb_sample(uintptr_t fn, void *arg)
{
	size_t k = tm_report_find(fn);

	(void)arg;
	if (k < tb.n)
		tb.fns[k].samples++;
}

/* See timing_budget.h. */
bool tb_anchors(size_t i)
{
	return tb_exact(tb.fns[i].mode) || tb.probe == i + 1;
}

/* See timing_int.h: account the interval since the last harvest. */
void tm_budget_account(void)
{
	double cost, cpu, own, anchor = 0, probe_est = 0, probe_seen = 0, mix[TR_MIX] = { 0 };
	bool clean;

	tb_grow();
	if (tb.ip)
		tm_ip_drain(tb_sample, NULL);
	tm_cost_threads(TM_COST_ACCOUNT, tb_timed_ps(), tb_counted_ps(), &cost, &cpu);
	tb.dec_cpu_ns += cpu;
	tb.dec_cost_ps += cost;
	/* The program's own CPU: without what the hooks cost it. */
	own = cpu - cost / 1000 > 0 ? cpu - cost / 1000 : 0;
	clean = tb.win || tb.demoted == 0;
	for (size_t i = 0; i < tb.n; i++) {
		const struct tm_fig *c = tm_report_cur(i);
		double d = (double)(c->calls - tb.fns[i].prev.calls + c->counts - tb.fns[i].prev.counts);

		if (!tb_anchors(i))
			continue;
		if (tb.probe == i + 1 && !tb.win) {
			if (tb.spell) {
				/* Its rate over the CPU without its count's
				 * calibrated cost: what counting costs a call
				 * varies with the code around it
				 * (doc/architecture.md, "The probe"); the
				 * calibration is the agent's best figure. */
				tb.sp_calls += d;
				tb.sp_cpu_ns += own;
				tb.pr_calls += d;
				tb.pr_cpu_ns += own;
			} else {
				probe_est = tb.pr_cpu_ns > 0 ? tb.pr_calls / tb.pr_cpu_ns * own : 0;
				probe_seen = d;   /* counted while its spell was being switched */
				d = probe_est;    /* between spells */
			}
		}
		anchor += d;
		mix[i % TR_MIX] += d;
	}
	if (tb.win) {
		tb.win_anchor += anchor;
		tb.w_anchor += anchor;
		tb.win_cpu_ns += own;
	} else {
		tr_ticks_add(&tb.iv_ticks, anchor, own, mix);
	}
	for (size_t i = 0; i < tb.n; i++) {
		const struct tm_fig *c = tm_report_cur(i);
		struct tb_fn *f = &tb.fns[i];
		uint64_t dcalls = c->calls - f->prev.calls, dcounts = c->counts - f->prev.counts;
		uint64_t dtotal = c->total - f->prev.total, dself = c->self - f->prev.self;
		bool seen = tb.win && tb_windowed(f);
		bool timed = f->mode == PROTO_FMODE_TIMED || seen;

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
		if (tb.ip) {
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
			if (!tb.ip)
				f->es_self += (double)dcounts * (double)f->ref_self / (double)f->ref_calls;
			f->time_est = true;
		}
		if (seen && !tb_exact(f->mode))
			tb.win_sampled += (double)(dcalls + dcounts);
		if (seen)
			f->w_calls += (double)(dcalls + dcounts);
		else if (!tb_exact(f->mode))
			f->calls_est = f->time_est = true;      /* calls went unseen */
		if (f->mode == PROTO_FMODE_OFF && !seen) {
			/* Estimated at its ratio (none yet: when a window
			 * rates it), mended if it comes back. */
			double x = f->off_ratio * anchor;

			f->owed += anchor;
			f->owed_est += x;
			tb_add_est(f, x);
			continue;
		}
		if (f->mode != PROTO_FMODE_SAMPLED)
			continue;
		if (tb.probe == i + 1 && !tb.win) {
			/* The probe estimates itself, by its rate, no window
			 * needed; the calls it was seen making are shown already
			 * (in its spell all are). */
			double x = probe_est > probe_seen ? probe_est - probe_seen : 0;

			f->dec_calls += x;
			tb_add_est(f, x);
			continue;
		}
		if (!tb.win)
			f->owed += anchor;
		if (tb.w_anchor > 0 && f->owed > 0) {
			/* Less what was shown for it while off. */
			double x = tr_est_calls(f->w_calls, tb.w_anchor, f->owed), d = x - f->owed_est;

			f->dec_calls += x;
			f->iv_anchor += f->owed;
			f->iv_est += x;
			tb_est_mend(f, d);
			f->owed = f->owed_est = 0;
		}
	}
}

/* The interval to mend starts again: its anchor calls would otherwise mix
 * two sets of functions.  What was estimated before stands. */
static void tb_iv_clear(void)
{
	for (size_t i = 0; i < tb.n; i++)
		tb.fns[i].iv_anchor = tb.fns[i].iv_est = 0;
	tb.iv_ticks.n = 0;
}

/* An off function's ratio belongs to the windows gone: what was owed
 * stands estimated at it, and the next window rates it again. */
static void tb_off_unrate(struct tb_fn *f)
{
	if (f->mode == PROTO_FMODE_OFF && f->off_rated) {
		f->owed = f->owed_est = f->off_ratio = 0;
		f->off_rated = false;
	}
}

/* The anchor's set changed (functions moved into or out of the exactly
 * counted ones): its calls in the same windows.  What is still owed (an
 * off function's calls, or a sampled one's before a window since the
 * ratios' restart) and an off function's ratio are in the old set's calls:
 * the windows convert them (the new set's calls in them over the old's;
 * none since the restart, what is owed stands). */
void tb_ratio_rebase(void)
{
	double old = tb.w_anchor;

	tb_iv_clear();
	tb.w_anchor = 0;
	for (size_t i = 0; i < tb.n; i++)
		if (tb_anchors(i))
			tb.w_anchor += tb.fns[i].w_calls;
	if (tb.w_anchor <= 0) {
		tb_ratio_restart();       /* the new anchor made no call in them */
		return;
	}
	for (size_t i = 0; old > 0 && i < tb.n; i++) {
		tb.fns[i].owed *= tb.w_anchor / old;
		tb.fns[i].off_ratio *= old / tb.w_anchor;
	}
}

/* See timing_budget.h.  The new anchor's calls in the interval decided
 * on (exact: its functions were exact then and stay so) and in the
 * windows, against each function sampled now that was exact then. */
double tb_ratio_off(const struct tr_fn *v, size_t *worst)
{
	double anchor = 0, w_anchor = 0, off = 0;

	for (size_t i = 0; i < tb.n; i++) {
		if (tb_exact(v[i].mode) && tb_exact(tb.fns[i].mode)) {
			anchor += v[i].calls;
			w_anchor += tb.fns[i].w_calls;
		}
	}
	if (w_anchor <= 0)
		return 0;         /* no window yet: one comes at once */
	for (size_t i = 0; i < tb.n; i++) {
		double e;

		if (!tb_exact(tb.fns[i].mode) || v[i].mode != PROTO_FMODE_SAMPLED ||
		    v[i].calls < TB_RATIO_MIN_CALLS)
			continue;
		e = fabs(tr_est_calls(tb.fns[i].w_calls, w_anchor, anchor) / v[i].calls - 1);
		if (e > off) {
			off = e;
			*worst = i;
		}
	}
	return off;
}

/* Every ratio starts again with the next window. */
void tb_ratio_restart(void)
{
	tb_iv_clear();
	for (size_t i = 0; i < tb.n; i++) {
		tb.fns[i].w_calls = 0;
		tb.fns[i].w_missed = false;
		tb_off_unrate(&tb.fns[i]);
	}
	tb.w_anchor = 0;
	tb.wins = 0;              /* the next window's ratios are confirmed too */
	tb.ratio_new = true;
}

/* A window closes: a sampled function whose calls per anchor call in it
 * are over TB_RATIO_OFF off the windows' before it (the program left the
 * phase they were taken in: a start-up's warm-up, say) restarts the ratios
 * from this window; then the interval since the last window, estimated
 * with the ratios at its start, is estimated again with those at its end
 * (after a restart, from where the anchor's pace or mix changed, or half way). */
static void tb_ratio_mend(void)
{
	double a = tb.w_anchor - tb.w_anchor_open, off = 0, after = -1;
	size_t worst = 0;
	bool restart;

	/* The window's own calls against what the windows before it expected. */
	for (size_t i = 0; a > 0 && tb.w_anchor_open > 0 && i < tb.n; i++) {
		const struct tb_fn *f = &tb.fns[i];
		double own = f->w_calls - f->w_open, before, e;

		if (f->mode != PROTO_FMODE_SAMPLED)
			continue;
		before = tr_est_calls(f->w_open, tb.w_anchor_open, a);
		if (own < TB_RATIO_MIN_CALLS && before < TB_RATIO_MIN_CALLS)
			continue;         /* too few to tell a change from chance */
		e = own > 0 ? fabs(before / own - 1) : 1;
		if (e > off) {
			off = e;
			worst = i;
		}
	}
	restart = off > TB_RATIO_OFF;
	if (restart) {
		agent_log("budget: the ratios restart from this window (the windows before it would "
		    "have put %s's calls in it %.0f%% off: the program left their phase)",
		    tm_report_name(worst), off * 100);
		for (size_t i = 0; i < tb.n; i++) {
			tb.fns[i].w_calls -= tb.fns[i].w_open;
			tb.fns[i].w_open = 0;
			tb.fns[i].w_missed = !tb_windowed(&tb.fns[i]);
			tb_off_unrate(&tb.fns[i]);
		}
		tb.w_anchor = a;
		tb.w_anchor_open = 0;
		tb.wins = 0;
		after = tr_ticks_after(&tb.iv_ticks);
		if (after >= 0)
			agent_log("budget: the phase changed with %.0f of the %zu ticks' anchor calls left: "
			    "they are estimated again", after, tb.iv_ticks.n);
		else
			agent_log("budget: neither the anchor's pace nor its mix shows the change of phase "
			    "in the %zu ticks: they are estimated again half way", tb.iv_ticks.n);
	}
	/* Off functions without a ratio were timed in this window: rated by
	 * it alone (the windows before it may have missed them), their calls
	 * since the last rating are estimated at it (less what was shown for
	 * them).  Fewer than TB_RATIO_MIN_CALLS of its own in it, the ratio is
	 * provisional and the next window rates it again: a start-up's window
	 * saw none of calls its main loop makes millions of. */
	for (size_t i = 0; i < tb.n; i++) {
		struct tb_fn *f = &tb.fns[i];
		double own = f->w_calls - f->w_open;

		if (f->w_rating && tb.w_anchor > tb.w_anchor_open) {
			f->off_ratio = own / (tb.w_anchor - tb.w_anchor_open);
			f->off_rated = own >= TB_RATIO_MIN_CALLS;
			tb_est_mend(f, f->off_ratio * f->owed - f->owed_est);
			f->owed = f->owed_est = 0;
		}
		f->w_rating = false;
	}
	/* The interval since the last window, at the ratios now (tr_mend). */
	for (size_t i = 0; i < tb.n; i++) {
		struct tb_fn *f = &tb.fns[i];

		if (f->mode == PROTO_FMODE_SAMPLED && f->iv_anchor > 0 && tb.w_anchor > 0) {
			double share = !restart ? 1 : after < 0 ? 0.5 :
			    after < f->iv_anchor ? after / f->iv_anchor : 1;
			double d = tr_mend(f->iv_est, tr_est_calls(f->w_calls, tb.w_anchor, f->iv_anchor),
			    share);

			tb_est_mend(f, d);
		}
		f->iv_anchor = f->iv_est = 0;
	}
	tb.iv_ticks.n = 0;
}

/* A window or spell (*state) was just switched to on: the figures up to
 * now, the switch's time included, are accounted outside it. */
static void tb_switched(bool *state, bool on)
{
	*state = false;
	tm_report_harvest();
	tm_budget_account();
	*state = on;
}

/* Open or close the sampling window: the sampled functions' sites.  The
 * engine takes a while to switch them (opening writes their entries with
 * the world stopped, closing traps calls while it gives them their bytes
 * back): the calls made meanwhile are accounted outside the window, so a
 * window's ratio of sampled calls to the anchor only covers time when the
 * sampled sites were all watched.  How long a window lasts and when the
 * next one opens: timing_rule.h. */
bool tb_window(bool on, uint64_t now)
{
	bool *pick = xcalloc(tb.n + 1, sizeof *pick), lost = false;

	if (on) {
		tb.win_sampled = 0;
	} else {
		char after[48] = "the first";
		bool first;

		/* Sampled calls and none of the anchor's: a longer window would
		 * tell no more; one of them stays counted (tb_reanchor). */
		lost = tb.win_anchor < 1 && tb.win_sampled >= TR_WIN_ANCHOR;

		if (tb.win_end != 0)
			snprintf(after, sizeof after, "%.0f ms after the last",
			    (double)(tb.win_start - tb.win_end) / 1e6);
		agent_log("budget: a window of %.1f ms over %zu demoted functions, %.0f anchor calls%s, %s",
		    (double)(now - tb.win_start) / 1e6, tb.demoted, tb.win_anchor,
		    lost ? " (the anchor lost)" : "", after);
		tb_ratio_mend();
		/* The first window with sampled calls of a set of ratios is
		 * confirmed soon (a restart's as much as the first: a restart
		 * comes as a program changes phase, and the off functions it
		 * un-rated are rated by the next window); counted functions are
		 * exact, their averages need no haste. */
		first = tb.win_sampled > 0 && tb.wins++ == 0;
		tb.win_len = now - tb.win_start;
		tb.win_next = now + tr_window_gap(lost ? TR_WIN_NS : tb.win_len, first);
		tb.win_end = now;
	}
	/* The ratios weigh each window half as much as the next: a program
	 * whose mix of calls changes is followed within a few windows. */
	for (size_t i = 0; on && i < tb.n; i++) {
		tb.fns[i].w_calls /= 2;
		tb.fns[i].w_open = tb.fns[i].w_calls;
		tb.fns[i].w_missed |= !tb_windowed(&tb.fns[i]);
		tb.fns[i].w_rating = tb.fns[i].mode == PROTO_FMODE_OFF && !tb.fns[i].off_rated;
	}
	if (on) {
		tb.w_anchor /= 2;
		tb.w_anchor_open = tb.w_anchor;
	}
	for (size_t i = 0; i < tb.n; i++)
		pick[i] = tb.fns[i].mode != PROTO_FMODE_TIMED;   /* off ones too: rated in it, or not */
	tb.win = on;              /* tb_apply's modes are the window's, or not */
	tb_apply(pick);
	tm_select_window(tb.win);
	tb_switched(&tb.win, on);
	tb.win_anchor = 0;
	if (on) {
		tb.win_cpu_ns = 0;        /* kept after it closes: tb_reanchor reads it */
		tb.win_start = proto_now_ns();  /* the switch took a while (a world stop) */
	}
	tb_dec_reset();           /* a window's cost is not the steady cost: no decision on it */
	free(pick);
	return lost;
}

/* See timing_budget.h.  The engine writes the probe's entry either way
 * (a world stop); the calls it makes meanwhile are accounted outside the
 * spell.  Each spell weighs half as much as the next: the rate follows a
 * program whose pace changes within a few. */
void tb_spell(bool on, uint64_t now)
{
	bool *pick = xcalloc(tb.n + 1, sizeof *pick);

	assert(tb.probe > 0 && tb.probe <= tb.n);
	if (on) {
		tb.pr_calls /= 2;
		tb.pr_cpu_ns /= 2;
	} else {
		agent_log("budget: a spell of %.1f ms: the probe %s made %.0f calls, %.3g per us of "
		    "the program's CPU", (double)(now - tb.sp_start) / 1e6, tm_report_name(tb.probe - 1),
		    tb.sp_calls, tb.pr_cpu_ns > 0 ? tb.pr_calls / tb.pr_cpu_ns * 1e3 : 0);
	}
	pick[tb.probe - 1] = true;
	tb.spell = on;            /* tb_apply's and the tables' state are the spell's, or not */
	tb_apply(pick);
	tb_tabs_build();
	tb_switched(&tb.spell, on);
	tb.sp_calls = tb.sp_cpu_ns = 0;
	if (on)
		tb.sp_start = proto_now_ns();
	tb_dec_reset();           /* a spell's cost is not the steady cost */
	free(pick);
}

/* See timing_int.h. */
void tm_budget_fig(size_t k, struct tm_fig *now, struct proto_ag_func *f)
{
	struct tb_fn *b;

	if (k >= tb.n)
		return;
	b = &tb.fns[k];
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

/* See timing_int.h: what is shown starts again from 0; modes stay.  The
 * interval up to the reset's harvest is accounted first. */
void tm_budget_reset(void)
{
	tm_budget_account();
	for (size_t i = 0; i < tb.n; i++) {
		struct tb_fn *f = &tb.fns[i];

		f->sh_calls = f->sh_total = f->sh_self = 0;
		f->es_calls = f->es_total = f->es_self = 0;
		f->es_hold = f->iv_anchor = f->iv_est = f->owed = f->owed_est = 0;
		f->calls_est = f->time_est = false;
	}
}
