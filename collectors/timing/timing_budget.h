/*
 * timing_budget.h - the overhead budget's state, shared by its decisions
 * (timing_budget.c: modes, ticks, the cost) and its accounting
 * (timing_account.c: each interval's figures, the sampled functions'
 * windows and estimates).  Reporter thread only, with the cycle lock.
 */
#ifndef HOOKSCOPE_TIMING_BUDGET_H
#define HOOKSCOPE_TIMING_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timing_int.h"
#include "timing_rule.h"

/* One function's budget state (index: its aggregate's, timing_report.c). */
struct tb_fn {
	uint8_t  mode;            /* enum proto_fmode */
	bool     named;           /* level 1 selects it */
	bool     calls_est, time_est;   /* since the reset */
	uint32_t hook_ppm;
	uint64_t since_ns;
	uint64_t held_until;
	bool     anchor;          /* counted as the anchor after a lost window (tb_reanchor) */
	struct tm_fig prev;       /* the sums at the last accounting */
	uint64_t ref_calls, ref_total, ref_self;   /* clean figures (averages) */
	double   w_calls;         /* calls in the windows since the ratios' restart */
	double   w_open;          /* w_calls when the open window opened */
	bool     w_missed;        /* not watched in one of those windows (tb_windowed) */
	double   owed;            /* anchor calls it was not seen in (sampled: outside the windows; off: all) */
	double   owed_est;        /* off: the calls shown for them already */
	double   off_ratio;       /* off: its calls per anchor call, from the windows */
	bool     off_rated;       /* off: off_ratio is known (else a window times it) */
	bool     w_rating;        /* off, not rated: timed in the open window */
	double   iv_anchor, iv_est;   /* sampled: since the last window, the anchor */
	                          /* calls outside windows and the calls estimated for them */
	double   es_hold;         /* estimated calls shown too many: held back from the next */
	uint64_t sh_calls, sh_total, sh_self;      /* shown since the reset: exact part */
	double   es_calls, es_total, es_self;      /* and estimated part */
	uint64_t samples;         /* self-time samples since the last accounting */
	double   dec_calls;       /* calls since the last decision (estimated if need be) */
	double   rate;            /* calls per ns of CPU at the last decision */
};

/* The budget's state (timing_budget.c defines it). */
struct tb_state {
	struct tb_fn *fns;
	size_t   n, cap;
	size_t   demoted;         /* functions not in start's mode */
	uint8_t  start;           /* the mode functions start in (HOOKSCOPE_MODE) */
	bool     ip;              /* self time from samples (timing_ipsample.c) */
	bool     win;             /* a sampling window is open */
	uint64_t win_start, win_next, win_end;
	uint64_t win_len;         /* the last window's length, ns (0: none yet) */
	double   win_anchor;      /* anchor calls in the open window */
	double   win_sampled;     /* and sampled functions' calls */
	double   win_cpu_ns;      /* and the program's own CPU (the hooks' cost out) */
	unsigned wins;            /* windows with sampled calls since the ratios' restart */
	double   w_anchor;        /* the anchor's calls in the windows since the ratios' restart */
	double   w_anchor_open;   /* w_anchor when the open window opened */
	struct tr_ticks iv_ticks; /* the anchor, its mix and the CPU tick by tick since the last window */
	bool     ratio_new;       /* the ratios restarted: a window is due */
	double   dec_cpu_ns, dec_cost_ps;   /* the threads' CPU and the hooks' cost since the last decision */
	/* The probe (tr_probe): an anchor from the CPU time when no function
	 * is cheap enough to count.  Counted alone in a spell every
	 * TB_SPELL_EVERY_NS, its calls over the program's CPU in the spells
	 * (the hooks' cost taken out; each spell weighs half as much as the
	 * next) are its rate; between spells the rate times the CPU is the
	 * anchor's calls, and its own. */
	size_t   probe;           /* its index + 1 (0: none) */
	bool     spell;           /* a spell is open */
	uint64_t sp_start;
	uint64_t sp_due;          /* the next spell opens (not in a window) */
	double   sp_calls;        /* its calls in the open spell */
	double   sp_cpu_ns;       /* and the program's own CPU in it */
	double   pr_calls, pr_cpu_ns;   /* in the spells, and their CPU (0: no spell yet) */
};

extern struct tb_state tb;
extern uint32_t tb_ppm;                   /* the budget, ppm of the threads' CPU (0: off) */
extern uint32_t tb_cost_ppm;              /* the hooks' cost the last decision saw */
extern uint64_t tb_paths_held_until;      /* call paths may not come back before */

#define TB_DECIDE_CPU_NS 5000000ull       /* target CPU between decisions */
#define TB_HOLD_NS       2000000000ull    /* no promotion this soon after a change */

/* timing_budget.c */
double tb_timed_ps(void);                 /* a timed call's calibrated cost, ps */
double tb_counted_ps(void);               /* and a counted one's */
bool tb_exact(unsigned mode);             /* timed or counted: every call seen */
bool tb_windowed(const struct tb_fn *f);  /* timed in a window: all but off ones rated */
void tb_apply(const bool *pick);          /* the engine's modes of the functions picked (NULL: all) */
void tb_dec_reset(void);                  /* a new decision interval */
void tb_tabs_build(void);                 /* the -finstrument path's states, published */
uint32_t tb_cost_now(void);               /* the hooks' cost since the last decision, ppm */
double tb_process_cpu_ms(void);           /* the process's CPU time so far, for the log */

/* Decisions (timing_decide.c).  Run the rule on the figures since the last
 * decision and apply its changes: true when a mode or the call paths
 * changed. */
bool tb_decide(uint64_t now);
/* The window just closed lost its anchor: keep another (or a probe). */
void tb_reanchor(uint64_t now);
/* Every function back to the starting mode (the budget turned off). */
void tb_restore(uint64_t now);
/* The hot path's state of function i now, in a window or not (the
 * probe is counted in its spell). */
uint8_t tb_fn_st(size_t i, bool win);

/* timing_account.c */
/* Open or close the sampling window (its switch accounted outside it).
 * Closing, true when its anchor made no call while the sampled functions
 * made TR_WIN_ANCHOR: the anchor is lost. */
bool tb_window(bool on, uint64_t now);
/* Function i is in the anchor's set: exact, or the probe. */
bool tb_anchors(size_t i);
/* Open or close the probe's spell (its switch accounted outside it). */
void tb_spell(bool on, uint64_t now);
/* The anchor's set of functions changed: the ratios against the new set. */
void tb_ratio_rebase(void);
/* Every ratio starts again with the next window. */
void tb_ratio_restart(void);
/* A decision (v: its figures and new modes; tb.fns still the old ones)
 * samples functions it saw counted exactly: how far off their calls in
 * the interval decided on would the windows' ratios, re-based on the new
 * anchor, have put them?  The worst, as a fraction (*worst: its index).
 * Past TB_RATIO_OFF the windows were taken in another phase of the
 * program (a start-up's window, then its main loop's functions sampled):
 * the ratios restart, a window follows. */
#define TB_RATIO_OFF       0.10
#define TB_RATIO_MIN_CALLS 1000   /* fewer calls in the interval tell nothing */
double tb_ratio_off(const struct tr_fn *v, size_t *worst);

#endif
