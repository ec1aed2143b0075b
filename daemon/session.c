/*
 * session.c - one target process as its agent reported it.
 *
 * Figures are cumulative in the agent, so a funcs record replaces a
 * function's figures instead of adding to them; running time (calls in
 * flight) is replaced too, and stays as last reported once the agent is
 * gone (what the target was doing when it was lost or exited).
 *
 * Rates come from a ring of samples of every function's call count, taken
 * at reports at least DAEMON_RATE_SPACING_NS apart: the rate is (calls now - calls at the newest
 * sample at least 1 s old) over the time between them, so the window is
 * 1 to 1.25 s (shorter only in a session's first second).  All times are the
 * daemon's monotonic clock at receipt, passed in so tests can drive it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon_lines.h"
#include "daemon_collector.h"
#include "report.h"

/* A new, empty session for pid (not live until daemon_session_hello). */
struct daemon_session *
daemon_session_new(int32_t pid, uint64_t now_ns)
{
	struct daemon_session *s = xcalloc(1, sizeof *s);

	s->pid = pid;
	s->state = PROTO_TARGET_LOST;
	s->started_ms = proto_wall_ms();
	s->exit_status = -1;
	s->ref_ns = now_ns;
	s->baseline = true;
	return s;
}

/* Free the session and everything it owns. */
void
daemon_session_free(struct daemon_session *s)
{
	if (s == NULL)
		return;
	daemon_session_collectors_free(s);
	daemon_lines_free(s);
	free(s->name);
	free(s->exe);
	free(s->build_id);
	free(s->cmdline);
	free(s);
}

/* Replace a heap string. */
static void
session_set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = src ? xstrdup(src) : NULL;
}

/* The process's short name: /proc/PID/comm, else the basename of exe. */
static char *
session_comm(int32_t pid, const char *exe)
{
	char path[64], buf[64];
	const char *slash;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "re")) != NULL) {
		if (fgets(buf, sizeof buf, f) != NULL) {
			buf[strcspn(buf, "\n")] = '\0';
			if (buf[0] != '\0') {
				fclose(f);
				return xstrdup(buf);
			}
		}
		fclose(f);
	}
	if (exe != NULL && *exe != '\0') {
		slash = strrchr(exe, '/');
		return xstrdup(slash && slash[1] ? slash + 1 : exe);
	}
	snprintf(buf, sizeof buf, "pid %d", (int)pid);
	return xstrdup(buf);
}

/* An agent said hello: take its identity, go live, restart the rates. */
void
daemon_session_hello(struct daemon_session *s, const struct proto_ag_hello *h,
    uint64_t now_ns)
{
	session_set_str(&s->exe, h->exe);
	session_set_str(&s->build_id, h->build_id);
	session_set_str(&s->cmdline, h->cmdline);
	free(s->name);
	s->name = session_comm(s->pid, h->exe);
	s->level = h->level;
	s->attached = h->attached;
	s->overhead_ps = h->overhead_ps;
	s->budget_ppm = h->budget_ppm;
	s->state = PROTO_TARGET_LIVE;
	s->ended_ms = 0;
	s->bye = false;
	s->exit_status = -1;
	/* The agent resends everything cumulative: its history is unknown, so
	 * the first record is the rate baseline, not a burst of calls. */
	s->baseline = true;
	s->last_report_ns = now_ns;
	s->gen++;
}

/* Names for addresses (C++ names demangled, the module kept as its
 * basename). */
static void
session_syms(struct daemon_session *s, const struct proto_agent_rec *r)
{
	for (size_t i = 0; i < r->nsyms; i++) {
		const struct proto_ag_sym *y = &r->syms[i];
		struct daemon_func *f = daemon_functab_get(&s->funcs, y->addr);
		const char *base;
		char *plain;

		if (f == NULL)
			continue;
		if ((plain = daemon_demangle(y->name)) != NULL) {
			free(f->name);
			f->name = plain;
		} else {
			session_set_str(&f->name, y->name && *y->name ? y->name : NULL);
		}
		base = y->module ? strrchr(y->module, '/') : NULL;
		session_set_str(&f->module, base && base[1] ? base + 1 :
		    (y->module && *y->module ? y->module : NULL));
	}
}

/* Restart the samples: one, at now, with every function's calls as they are
 * (after a reconnect) or zero (after a reset). */
static void
session_restart_samples(struct daemon_session *s, uint64_t now_ns, bool zero)
{
	for (size_t k = 0; k < s->funcs.n; k++) {
		struct daemon_func *f = &s->funcs.v[k];

		for (unsigned i = 0; i < DAEMON_RATE_SLOTS; i++)
			f->samp_calls[i] = zero ? 0 : f->calls;
	}
	s->samp_head = 0;
	s->samp_n = 1;
	s->samp_ns[0] = now_ns;
}

/* Take a new rate sample if the newest one is old enough. */
static void
session_sample(struct daemon_session *s, uint64_t now_ns)
{
	unsigned h;

	if (s->samp_n > 0 && now_ns < s->samp_ns[s->samp_head] + DAEMON_RATE_SPACING_NS)
		return;
	h = s->samp_n > 0 ? (s->samp_head + 1) % DAEMON_RATE_SLOTS : 0;
	for (size_t k = 0; k < s->funcs.n; k++)
		s->funcs.v[k].samp_calls[h] = s->funcs.v[k].calls;
	s->samp_ns[h] = now_ns;
	s->samp_head = h;
	if (s->samp_n < DAEMON_RATE_SLOTS)
		s->samp_n++;
}

/* How f is watched now, the per-mode counts following. */
static void
session_func_mode(struct daemon_session *s, struct daemon_func *f, const struct proto_ag_func *g)
{
	if (g->mode != f->mode) {
		s->nmode[f->mode] -= f->mode != PROTO_FMODE_TIMED;
		s->nmode[g->mode] += g->mode != PROTO_FMODE_TIMED;
		f->mode = g->mode;
	}
	f->calls_est = g->calls_est;
	f->time_est = g->time_est;
	f->mode_since_ns = g->mode_since_ns;
	f->hook_ppm = g->hook_ppm;
}

/* See daemon.h. */
uint64_t
daemon_session_nmode(const struct daemon_session *s, unsigned mode)
{
	uint64_t demoted = 0;

	if (mode != PROTO_FMODE_TIMED)
		return s->nmode[mode];
	for (unsigned m = 0; m < PROTO_FMODE_N; m++)
		demoted += m != PROTO_FMODE_TIMED ? s->nmode[m] : 0;
	return s->funcs.n - demoted;
}

/* See daemon.h (ip_agent <= ip_samples: session_funcs holds it so). */
bool
daemon_session_cost_sampled(const struct daemon_session *s, uint32_t *ppm)
{
	if (s->ip_samples < DAEMON_IP_MIN)
		return false;
	*ppm = (uint32_t)((uint64_t)s->ip_agent * 1000000 / s->ip_samples);
	return true;
}

/* See daemon.h. */
uint64_t
daemon_func_mode_age_ms(const struct daemon_func *f, uint64_t now_ns)
{
	if (f->mode_since_ns == 0)
		return 0;
	return now_ns > f->mode_since_ns + 1000000 ? (now_ns - f->mode_since_ns) / 1000000 : 1;
}

/* Cumulative figures: replace, then sample for the rates. */
static void
session_funcs(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns)
{
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct proto_ag_func *g = &r->funcs[i];
		struct daemon_func *f = daemon_functab_get(&s->funcs, g->addr);

		if (f == NULL)
			continue;
		f->calls = g->calls;
		f->total_ns = g->total_ns;
		f->self_ns = g->self_ns;
		f->max_ns = g->max_ns;
		f->slow = g->slow;
		f->running_ns = g->running_ns;
		session_func_mode(s, f, g);
	}
	daemon_paths_record(&s->paths, r, s->baseline);
	s->threads = r->threads;
	s->dropped = r->dropped;
	s->cost_ppm = r->cost_ppm;
	s->budget_ppm = r->budget_ppm;
	s->ip_samples = r->ip_samples;
	s->ip_agent = r->ip_agent < r->ip_samples ? r->ip_agent : r->ip_samples;
	/* A function new on this connection had no calls at older samples
	 * (its samp_calls start at zero), so its rate counts from zero. */
	if (s->baseline) {
		session_restart_samples(s, now_ns, false);
		s->baseline = false;
	} else {
		session_sample(s, now_ns);
	}
	s->ref_ns = now_ns;
	s->last_report_ns = now_ns;
}

/* The agent connection is gone. */
void
daemon_session_detach(struct daemon_session *s, bool process_gone)
{
	s->agent = NULL;
	daemon_lines_free(s);
	s->state = process_gone ? PROTO_TARGET_EXITED : PROTO_TARGET_LOST;
	if (!process_gone && s->attached && s->bye)   /* an attached agent unloaded */
		s->state = PROTO_TARGET_DETACHED;
	s->ended_ms = proto_wall_ms();
}

/* Let rates decay when nothing is reported (idle, lost or exited). */
static void
session_funcs_tick(struct daemon_session *s, uint64_t now_ns)
{
	if (s->state == PROTO_TARGET_LIVE &&
	    now_ns < s->last_report_ns + DAEMON_RATE_STALE_NS)
		return;
	if (s->baseline || now_ns <= s->ref_ns)
		return;
	/* No report for a while: nothing was called since the last one. */
	s->ref_ns = now_ns;
	session_sample(s, now_ns);
	/* The rates decay, unless they are all 0 already: with no calls since,
	 * every later sample holds the calls of the one they were taken from,
	 * so they stay 0 and the rankings of this generation stay true. */
	if (!s->rates_zero || s->rates_gen != s->gen)
		s->gen++;
}

/* Zero every figure and restart the rates from zero at now. */
static void
session_funcs_reset(struct daemon_session *s, uint64_t now_ns)
{
	for (size_t k = 0; k < s->funcs.n; k++) {
		struct daemon_func *f = &s->funcs.v[k];

		f->calls = f->total_ns = f->self_ns = f->max_ns = f->slow = 0;
		f->running_ns = 0;        /* the agent's next record brings it back */
		f->rate = 0;
	}
	daemon_paths_reset(&s->paths);
	session_restart_samples(s, now_ns, true);
	s->ref_ns = now_ns;
	s->baseline = false;
}

/* A syms or funcs record. */
static void
session_funcs_record(struct daemon_session *s, const struct proto_agent_rec *r,
    uint64_t now_ns)
{
	if (r->type == PROTO_AG_SYMS)
		session_syms(s, r);
	else
		session_funcs(s, r, now_ns);
}

static void
session_funcs_free(struct daemon_session *s)
{
	daemon_functab_free(&s->funcs);
	daemon_paths_free(&s->paths);
	daemon_rank_views_free(s);
}

static const struct daemon_threshold session_funcs_thresholds[] = {
	{ .name = "slow", .unit = "ms", .ns_per_unit = 1e6, .max = 3600e3,
	  .help = "calls longer than it count as slow" },
};

extern const struct report_section report_section_funcs;   /* report_funcs.c */

/* The timing collector's row; the frame's rows are ranked per view
 * (frame.c, rank_view.c), so it fills no part of its own. */
const struct daemon_collector daemon_collector_funcs = {
	.name = "funcs",
	.records = { PROTO_AG_SYMS, PROTO_AG_FUNCS },
	.on_record = session_funcs_record,
	.tick = session_funcs_tick,
	.reset = session_funcs_reset,
	.free = session_funcs_free,
	.report = &report_section_funcs,
	.thresholds = session_funcs_thresholds,
	.nthresholds = sizeof session_funcs_thresholds / sizeof session_funcs_thresholds[0],
};

/* calls/s of every function, from the newest sample at least a window
 * older than ref_ns (or the oldest one) to ref_ns. */
void
daemon_session_rates(struct daemon_session *s)
{
	unsigned base = s->samp_head;
	uint64_t w;

	for (unsigned j = 0; j < s->samp_n; j++) {
		base = (s->samp_head + DAEMON_RATE_SLOTS - j) % DAEMON_RATE_SLOTS;
		if (s->samp_ns[base] + DAEMON_RATE_WINDOW_NS <= s->ref_ns)
			break;
	}
	w = s->samp_n > 0 && s->ref_ns > s->samp_ns[base] ?
	    s->ref_ns - s->samp_ns[base] : 0;
	s->rates_zero = w != 0;
	s->rates_gen = s->gen;
	for (size_t k = 0; k < s->funcs.n; k++) {
		struct daemon_func *f = &s->funcs.v[k];
		uint64_t then = f->samp_calls[base];

		f->rate = (w != 0 && f->calls > then) ?
		    (double)(f->calls - then) * 1e9 / (double)w : 0.0;
		if (f->rate != 0)
			s->rates_zero = false;
	}
}

/* Alive = exists and is not a zombie waiting to be reaped. */
bool
daemon_process_alive(int32_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	if (pid <= 0)
		return false;
	if (kill(pid, 0) < 0 && errno != EPERM)
		return false;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return true;            /* no /proc: trust kill() */
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold ')' so take the last one. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return true;
	return p[2] != 'Z' && p[2] != 'X';
}
