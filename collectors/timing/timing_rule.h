/*
 * timing_rule.h - the overhead budget's decisions and estimators as pure
 * functions of figures (timing_rule.c): no state, no threads, no clock, so
 * they are tested on synthetic figures (tests/unit/test-budget.c).  The
 * accounting that feeds them is timing_account.c; timing_budget.c applies
 * their choices.
 */
#ifndef HOOKSCOPE_TIMING_RULE_H
#define HOOKSCOPE_TIMING_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Demotion stops at this share of the budget, promotion may not pass this
 * one (per mille): the gap between them and the budget is the hysteresis. */
#define TR_LOW_PERMILLE   800
#define TR_PROMOTE_PERMILLE 500
/* timed -> counted only when the function's average is at most this many
 * times a timed hook's own cost (else counting saves too little: sampled). */
#define TR_COUNT_FACTOR   8

/* One function as the controller sees it over its decision window. */
struct tr_fn {
	double   calls;           /* calls in the window: exact, or the estimate of
	                           * what it would have made if watched */
	uint64_t avg_ps;          /* its average inclusive time per call (0: unknown) */
	uint8_t  mode;            /* enum proto_fmode now; tr_decide writes the new one */
	bool     named;           /* the user named it (level 1): demoted last */
	bool     held;            /* changed too recently to be promoted */
	bool     anchor;          /* counted as the anchor since a window lost the one
	                           * before: demotion keeps it while the other exact
	                           * functions make fewer calls than the floor and it
	                           * costs at most half the budget */
	bool     probe;           /* the probe (tr_probe): in, the one now; out, the
	                           * one after the decision */
	bool     changed;         /* out: tr_decide changed mode */
};

struct tr_params {
	uint32_t budget_ppm;      /* 1..1000000 */
	double   cpu_ps;          /* the target threads' CPU time in the window */
	double   timed_ps;        /* what one timed call costs */
	double   counted_ps;      /* what one counted call costs */
	uint32_t duty_ppm;        /* a sampled function's share of time timed */
	double   path_ps;         /* what call paths add to a timed call (0: they
	                           * cannot be turned on); in timed_ps while on */
	bool     paths_held;      /* paths changed too recently to come back */
	bool     off_seen;        /* off functions' calls were seen (a lost window
	                           * timed them), not the rates they went off at:
	                           * one may be the anchor or the probe */
};

/* What one call of a function in mode costs, ps. */
double tr_mode_cost(const struct tr_params *p, unsigned mode);
/* Keep the projected cost within the budget: over it, demote one step at a
 * time the function whose hooks cost the most relative to its own time
 * (weight: calls x its mode's cost x timed cost / (timed cost + average)),
 * the named ones last, weighing it again at its new mode, until the cost
 * is at TR_LOW_PERMILLE of the budget; under TR_PROMOTE_PERMILLE of it,
 * promote functions not held one step each, the named first, then the
 * cheapest, while the cost stays under that share.  Returns the projected
 * cost after the changes, ppm of cpu_ps. */
uint32_t tr_decide(struct tr_fn *f, size_t n, const struct tr_params *p);
/* The anchor (tr_est_calls): a demotion that samples functions keeps at
 * least this many calls per ns of CPU counted exactly, a window's
 * TR_WIN_ANCHOR in TR_WIN_NS, else no sampled call could be estimated (a
 * loop whose every function is tiny and hot).  When the functions still
 * exact make fewer, one sampled function stays counted: the one with the
 * fewest calls that make the floor alone, if counting it costs at most
 * half the budget (sampled calls estimated by nothing are a window's
 * only, and look free to promote), else with p->off_seen an off one so
 * chosen; the others are demoted around it, to what demotion aims at plus
 * the anchor's cost, never over the budget. */
#define TR_ANCHOR_PER_NS ((double)TR_WIN_ANCHOR / TR_WIN_NS)
/* That choice alone (f's modes after a demotion, calls over p->cpu_ps):
 * the function to keep counted, or n when the exact ones make the floor,
 * fewer than two sampled or off ones made calls (at the rate an off one
 * went off at, unless p->off_seen) or none is cheap enough. */
size_t tr_anchor(const struct tr_fn *f, size_t n, const struct tr_params *p, double budget);
/* When an anchor is needed and none is cheap enough to count (every hot
 * function tiny and about as hot as the others), or one function alone is
 * sampled, a demotion names the probe instead (tr_fn.probe): the sampled
 * function tr_anchor would choose, cost aside; none sampled, with
 * p->off_seen, the off one so chosen among those whose sampling costs at
 * most half what demotion aims at, sampled again.  It is counted alone in
 * short spells, which give its calls per ns of the program's CPU; between
 * them that rate times the CPU time is the anchor's calls
 * (timing_account.c).  A decision keeps the probe while it is
 * sampled and an anchor is still needed (it names no other: a new probe's
 * rate takes a spell), and demotion spares it while sampling it costs at
 * most half what it aims at.  The choice alone: n when no anchor is
 * needed. */
size_t tr_probe(const struct tr_fn *f, size_t n, const struct tr_params *p);
/* The same with call paths (*paths: on now; out: on after): over the
 * budget, paths go off first, and functions are demoted only if that is
 * not enough; under TR_PROMOTE_PERMILLE, paths come back last: in a
 * decision that promoted nothing, every function timed, paths not held,
 * if the cost with them stays under that share. */
uint32_t tr_decide_paths(struct tr_fn *f, size_t n, const struct tr_params *p, bool *paths);

/* A sampled function's calls while it was not watched: its calls in the
 * windows per unit of the anchor (the exactly counted calls of the other
 * functions) over those windows, times the anchor outside them. */
double tr_est_calls(double win_calls, double win_anchor, double off_anchor);
/* A window closes: the interval since the last one, estimated at before
 * with the ratios at its start, is estimated at now with those at its end.
 * What to add to it (negative: to hold back from the calls after it): the
 * difference times share, the part of the interval's anchor calls the
 * ratios at its end stand for: all of it, or when the ratios restart from
 * this window (the program changed phase somewhere in the interval) the
 * part after the change (tr_ticks_after), or not seen there, half (the
 * least wrong at worst). */
double tr_mend(double before, double now, double share);

/* The interval's ticks: the anchor's calls and the program's own CPU in
 * each, and the anchor's calls by function in TR_MIX classes (function
 * index modulo TR_MIX), to tell where in it the program changed phase.  A
 * phase change shows in the anchor's pace (its calls per ns of CPU) or its
 * mix (which exact functions make them) as much as in the ratios: the
 * exactly counted functions do other work too.  At TR_TICKS_MAX the ticks
 * merge in pairs (the point is found to a coarser tick). */
#define TR_TICKS_MAX     128
#define TR_MIX           8
#define TR_CHANGE_BY     0.05   /* a change of pace (relative) or mix (shares moved) under this is none */
#define TR_CHANGE_SPLIT  0.5    /* and it explains at least this of the ticks' variance */
#define TR_CHANGE_EDGE   0.05   /* each side at least this share of the CPU */
struct tr_ticks {
	double anchor[TR_TICKS_MAX], cpu[TR_TICKS_MAX], mix[TR_TICKS_MAX][TR_MIX];
	size_t n;
};
/* mix: the tick's anchor calls by class (NULL: all in the first). */
void tr_ticks_add(struct tr_ticks *t, double anchor, double cpu_ns, const double *mix);
/* The anchor's calls after the one change the ticks show, in pace or in
 * mix (the split that fits them best with one pace, or mix, on each side;
 * of the two, the one that explains more), or -1 if they show none: the
 * sides differ by less than TR_CHANGE_BY, the split explains less than
 * TR_CHANGE_SPLIT of the ticks' variance, or a side has less than
 * TR_CHANGE_EDGE of their CPU. */
double tr_ticks_after(const struct tr_ticks *t);

/* Sampling windows.  A window lasts until the anchor made TR_WIN_ANCHOR
 * calls in it, at least TR_WIN_MIN_NS and at most TR_WIN_MAX_NS: a program
 * whose anchor calls are few and the sampled calls come in bursts between
 * them (a dispatcher calling tiny functions thousands of times per call)
 * would otherwise get a ratio off by the share of a burst a window's edge
 * cuts; one whose anchor makes them sooner pays for no more window than
 * that (every demoted function is timed in it: on python3 a window costs a
 * third of its time).  TR_WIN_NS is the window an anchor at the floor
 * (TR_ANCHOR_PER_NS) fills; the next window is as much later as this one
 * was longer, so the windows' share of the time stays at most TR_WIN_NS /
 * TR_PERIOD_NS.  A window whose anchor made no call while the sampled
 * functions made TR_WIN_ANCHOR closes as well (the anchor is lost: waiting
 * tells no more).
 * The first window with sampled calls of a set of ratios (the first
 * demotion's, a restart's) is confirmed by a second one TR_CONFIRM_NS
 * later: it comes as a program starts or changes phase, often in a
 * warm-up (a dictionary filling, a cache warming); the interval until the
 * next window is estimated with its ratios, then again with the next
 * one's (timing_account.c). */
#define TR_WIN_NS      10000000ull        /* a window at the anchor's floor */
#define TR_WIN_MIN_NS  2000000ull         /* a window, at least */
#define TR_WIN_MAX_NS  (20 * TR_WIN_NS)   /* and at most */
#define TR_WIN_ANCHOR  2000               /* anchor calls a window waits for */
#define TR_PERIOD_NS   1000000000ull      /* one window per second */
#define TR_CONFIRM_NS  100000000ull       /* and the first's confirmation this soon */
/* Is a window open for open_ns, with anchor calls and sampled calls in
 * it, done? */
bool tr_window_done(uint64_t open_ns, double anchor, double sampled);
/* How much longer a window open for open_ns, with anchor calls in it,
 * should be given before it is looked at again: the time its anchor needs
 * for the rest at its rate so far, within [TR_WIN_MIN_NS / 2, TR_WIN_NS]
 * (until it is TR_WIN_MIN_NS old: the rest of that). */
uint64_t tr_window_wait(uint64_t open_ns, double anchor);
/* A sampled function's share of the time it is timed, ppm, when windows
 * last len_ns (0: none yet, taken as TR_WIN_NS). */
uint32_t tr_window_duty(uint64_t len_ns);
/* The time from a window's close to the next one's opening, after it was
 * open for open_ns; first: it was the first with sampled calls. */
uint64_t tr_window_gap(uint64_t open_ns, bool first);

#endif
