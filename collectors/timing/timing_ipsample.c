/*
 * timing_ipsample.c - self time by sampling, while the overhead budget has
 * functions that are not timed (doc/architecture.md, "the overhead
 * budget"): a caller's hooks cannot tell its own time from that of callees
 * no longer timed, and a timed callee's hooks cost far more than a tiny
 * callee itself, so neither subtracting estimated child times nor the
 * hooks' figures keep self time true.  The pc does: each live thread gets
 * a timer on its own CPU clock (one signal per TM_IP_PERIOD_NS of its CPU
 * time), created by the reporter for that thread (SIGEV_THREAD_ID), so the
 * hot path makes no syscall.  The handler stores the interrupted pc in the
 * thread's block (tm_ip_record); the reporter maps each pc to its function
 * (the symbol catalogue, or the site whose trampoline block holds it).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "collector.h"
#include "engine.h"
#include "symbols.h"
#include "timing_int.h"

#define TM_IP_SIG (SIGRTMAX - 5)          /* hook_stop uses -3, block -4 */

static bool tm_ip_installed;
static bool tm_ip_want;
static uint32_t tm_ip_n, tm_ip_agent_n;   /* tm_ip_share (reporter only) */

/* The sample signal: the interrupted pc, on the thread it interrupted. */
static void tm_ip_handler(int sig, siginfo_t *si, void *uc)
{
	int e = errno;

	(void)sig;
	(void)si;
	tm_ip_record(hook_engine_uc_pc(uc));
	errno = e;
}

/* Install the handler once. */
static bool tm_ip_install(void)
{
	struct sigaction sa;

	if (tm_ip_installed)
		return true;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = tm_ip_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(TM_IP_SIG, &sa, NULL) != 0) {
		agent_warn("timing: cannot install the self-time sampling handler: %s", strerror(errno));
		return false;
	}
	tm_ip_installed = true;
	return true;
}

/* Start b's thread's timer. */
static void tm_ip_start(struct tm_block *b)
{
	struct sigevent ev;
	struct itimerspec its = {
		.it_interval = { 0, TM_IP_PERIOD_NS }, .it_value = { 0, TM_IP_PERIOD_NS },
	};
	timer_t t;

	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = TM_IP_SIG;
	ev._sigev_un._tid = b->tid;
	if (timer_create(agent_tid_clock(b->tid), &ev, &t) != 0)
		return;           /* the thread is gone: its block retires soon */
	if (timer_settime(t, 0, &its, NULL) != 0) {
		timer_delete(t);
		return;
	}
	b->ip_timer = t;
	b->ip_tail = __atomic_load_n(&b->ip_head, __ATOMIC_ACQUIRE);
	b->ip_on = true;
}

/* See timing_int.h. */
void tm_ip_block_gone(struct tm_block *b)
{
	if (b->ip_on)
		timer_delete((timer_t)b->ip_timer);
	b->ip_on = false;
}

/* See timing_int.h.  Threads that got a block since are started here too. */
void tm_ip_set(bool on)
{
	tm_ip_want = on && tm_ip_install();
	if (!tm_ip_want)
		tm_ip_n = tm_ip_agent_n = 0;      /* no samples: no recent share */
	for (struct tm_block *b = __atomic_load_n(&tm_head, __ATOMIC_ACQUIRE); b != NULL; b = b->next) {
		if (__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) == TM_DEAD || !tm_ip_want)
			tm_ip_block_gone(b);
		else if (!b->ip_on)
			tm_ip_start(b);
	}
}

/* Is pc in the agent's own text (the hot paths, the wrappers)? */
static bool tm_ip_in_agent(uintptr_t pc)
{
	static uintptr_t lo, hi;          /* reporter only */

	if (hi == 0)
		agent_text(&lo, &hi);
	return pc >= lo && pc < hi;
}

/* Account one sample: the function whose code holds pc gets it (a site's
 * block holds its function's first instructions), and the share of the
 * agent's code, its text or a block, is the hooks' cost as the program
 * pays it, caches and branch predictors included, where the budget charges
 * calibrated costs (both sent: tm_budget_rec).  The agent's text is no
 * function of the program's: not looked up (nor its symbols read for it). */
static void tm_ip_account(uintptr_t pc, void (*add)(uintptr_t fn, void *arg), void *arg)
{
	struct sym_info si;
	uintptr_t fn;

	tm_ip_n++;
	if (tm_ip_in_agent(pc)) {
		tm_ip_agent_n++;
		return;
	}
	if (sym_resolve(pc, &si) == 0)
		fn = pc - (uintptr_t)si.offset + (uintptr_t)si.start;
	else if ((fn = hook_engine_block_fn(pc)) != 0)
		tm_ip_agent_n++;
	if (fn != 0)
		add(fn, arg);
}

/* See timing_int.h. */
void tm_ip_drain(void (*add)(uintptr_t fn, void *arg), void *arg)
{
	for (struct tm_block *b = __atomic_load_n(&tm_head, __ATOMIC_ACQUIRE); b != NULL; b = b->next) {
		uint32_t h;

		if (!b->ip_on)
			continue;
		h = __atomic_load_n(&b->ip_head, __ATOMIC_ACQUIRE);
		if (h - b->ip_tail > TM_IPS)
			b->ip_tail = h - TM_IPS;          /* overrun: the newest only */
		for (; b->ip_tail != h; b->ip_tail++)
			tm_ip_account(__atomic_load_n(&b->ips[b->ip_tail % TM_IPS], __ATOMIC_RELAXED),
			    add, arg);
	}
	if (tm_ip_n > TM_IP_RECENT) {
		tm_ip_n /= 2;
		tm_ip_agent_n /= 2;
	}
}

/* See timing_int.h. */
void tm_ip_share(uint32_t *n, uint32_t *agent)
{
	*n = tm_ip_n;
	*agent = tm_ip_agent_n;
}
