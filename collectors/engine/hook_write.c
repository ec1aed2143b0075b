/*
 * hook_write.c - the entries' branches written with the other threads
 * stopped: new sites' first branch, and a relocated site's branch again
 * after its own bytes were back (the overhead budget's sampling windows, a
 * level change).  A thread stopped inside the bytes an entry covers moves
 * to the same instruction of the relocated copy, or the site waits.
 *
 * Relocated sites with a one-branch entry are written leaving the threads
 * blocked in a system call running (hook_stop.c: a stop signal would end
 * their sleep early with EINTR), when none is blocked inside an entry to
 * write: with the trap protocol (hook_live.c), since a left thread may wake
 * meanwhile.  The trap at byte 0 of each entry, barrier; then the left
 * threads that ran since, and threads new since, are stopped too (one of
 * them may have been inside an entry before its trap); bytes 1-4, barrier;
 * byte 0, barrier.  A thread that runs into a trap goes on along the site's
 * disabled path.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "hook.h"
#include "hook_int.h"

#define HOOK_TRIES     5              /* stops tried while a thread is in the way */

/* Futex word: 1 while a write leaves threads running (one at a time: the
 * engine's lock); a fork waits for it (hook_engine_atfork_prepare). */
static uint32_t hook_write_leaving;

/* See engine.h.  A thread left running may wake and fork while the entries
 * are half written; the write does not wait for it (it sleeps here, in a
 * system call, or is stopped like any running thread). */
void hook_engine_atfork_prepare(void)
{
	while (__atomic_load_n(&hook_write_leaving, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &hook_write_leaving, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
}

/* Mark a write that may leave threads running begun (1) or over (0). */
static void hook_write_leaving_set(uint32_t v)
{
	__atomic_store_n(&hook_write_leaving, v, __ATOMIC_RELEASE);
	if (v == 0)
		syscall(SYS_futex, &hook_write_leaving, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

/* Move every stopped thread inside site s's patched bytes (past the first)
 * to the same instruction of the relocated copy, which goes on into the
 * original code after them.  False when one is not at an instruction the
 * plan knows (then the site is busy). */
static bool hook_site_vacate(const struct hook_site *s, struct hook_stopped *st)
{
	for (int i = 0; i < st->n; i++) {
		uintptr_t pc = st->pcs[i];
		int k;

		if (pc <= s->fn || pc >= s->fn + s->n)
			continue;
		for (k = 0; k < s->bounds.n && s->bounds.orig[k] != pc - s->fn; k++)
			;
		if (k == s->bounds.n)
			return false;
		hook_stop_move(st, i, s->reloc + s->bounds.reloc[k]);
	}
	return true;
}

/* What the stopped writer does for site s. */
enum hook_need {
	HOOK_NEED_NONE,
	HOOK_NEED_ADOPT,        /* new, and not watched: its own bytes stay (saved) */
	HOOK_NEED_BRANCH,       /* its branch must be written */
};

static enum hook_need hook_write_need(const struct hook_site *s)
{
	uintptr_t to;

	if (s->dead || !hook_kinds[s->kind].entry_branch)
		return HOOK_NEED_NONE;
	to = hook_live_branch_to(s);
	if (!s->patched)
		return to != 0 ? HOOK_NEED_BRANCH : HOOK_NEED_ADOPT;
	return s->code_on || to == 0 ? HOOK_NEED_NONE : HOOK_NEED_BRANCH;
}

/* Site s, with the world stopped, before its branch is written: a new
 * site's own bytes saved (for detach, and the entry put back), a new one
 * the level does not watch adopted as it is, stopped threads inside moved
 * (else it counts in busy).  True when its branch is to be written now. */
static bool hook_write_ready(struct hook_site *s, struct hook_stopped *st, size_t *busy)
{
	enum hook_need need = hook_write_need(s);

	if (need == HOOK_NEED_NONE)
		return false;
	if (!s->patched)
		hook_code_copy(s->orig, (void *)s->fn, s->entry);
	if (need == HOOK_NEED_ADOPT) {
		s->patched = true;
		return false;
	}
	if (!hook_site_vacate(s, st)) {
		(*busy)++;
		return false;
	}
	return true;
}

/* With the world stopped: write the branch of every site that needs one,
 * once no thread is inside its bytes, their pages already open (nothing is
 * allocated or opened while the other threads are stopped: one of them may
 * hold the allocator's or the kernel's mapping lock).  Returns how many
 * stayed busy. */
static size_t hook_write_all(struct hook_engine *g, struct hook_stopped *st)
{
	size_t busy = 0;

	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];
		uint8_t branch[HOOK_PATCH_MAX];

		if (!hook_write_ready(s, st, &busy))
			continue;
		s->code_to = hook_live_branch_to(s);
		/* a far entry is several instructions: written whole only
		 * with the world stopped and no thread inside, as here */
		hook_backend.branch(branch, s->fn, s->code_to, s->entry);
		hook_code_gather((void *)s->fn, branch, s->entry);
		s->patched = s->code_on = true;
	}
	hook_code_flush();              /* before the threads run on */
	return busy;
}

/* The stop's filter for a relight: a thread blocked with its resume
 * address near no entry to write (a restarted system call resumes 2 bytes
 * before; the margin covers it) may be left running. */
static bool hook_write_leave(uintptr_t pc, void *arg)
{
	const struct hook_engine *g = arg;

	for (size_t i = 0; i < g->nsites; i++) {
		const struct hook_site *s = g->sites[i];

		if (pc + 8 > s->fn && pc < s->fn + s->n + 8 &&
		    hook_write_need(s) == HOOK_NEED_BRANCH)
			return false;
	}
	return true;
}

/* A relight with threads left running (see the top); mark[i]: site i is
 * being written.  Returns how many sites stayed busy. */
static size_t hook_write_relight(struct hook_engine *g, struct hook_stopped *st, bool *mark)
{
	uint8_t code[HOOK_PATCH_LEN];
	size_t busy = 0, n = 0;
	char err[256];
	bool again;

	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];

		mark[i] = hook_write_ready(s, st, &busy);
		if (mark[i]) {
			hook_code_put1((void *)s->fn, hook_backend.trap);
			n++;
		}
	}
	if (n == 0)
		return busy;
	hook_live_barrier();
	again = hook_stop_again(st, err, sizeof err) == 0;
	if (!again)
		agent_log("hook: a thread that woke could not be stopped (%s): %zu sites stay "
		    "unwatched for now", err, n);
	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];

		if (mark[i] && (!again || !hook_site_vacate(s, st))) {
			hook_code_put1((void *)s->fn, s->orig[0]);  /* bytes 1-4 are its own still */
			mark[i] = false;
			busy++;
		}
		if (!mark[i])
			continue;
		hook_backend.branch(code, s->fn, hook_live_branch_to(s), HOOK_PATCH_LEN);
		hook_code_write((uint8_t *)s->fn + 1, code + 1, HOOK_PATCH_LEN - 1);
	}
	hook_live_barrier();
	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];

		if (!mark[i])
			continue;
		s->code_to = hook_live_branch_to(s);
		hook_backend.branch(code, s->fn, s->code_to, HOOK_PATCH_LEN);
		hook_code_put1((void *)s->fn, code[0]);
		s->patched = s->code_on = true;
	}
	hook_live_barrier();
	return busy;
}

/* New sites that never got their branch die (busy: still in the way; or
 * the world could not be stopped): never written again.  When it could
 * not be stopped (a thread blocks the stop signal, as a thread that leaves
 * every signal to a sigwait thread does), so do sites whose own bytes are
 * back and are watched again: they would wait for a stop each time, a
 * second lost on each. */
static void hook_engine_bury(struct hook_engine *g, enum hook_why why)
{
	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];

		if (s->dead || !hook_kinds[s->kind].entry_branch || (s->patched &&
		    (why != HOOK_R_STOP || hook_write_need(s) != HOOK_NEED_BRANCH)))
			continue;
		if (s->patched)
			agent_log("hook: %s: its branch cannot be written again (%s)", s->name,
			    hook_why_name(why));
		s->dead = true;
		g->refused[why]++;
	}
}

/* Before relocated site s's first branch: does its function branch back
 * into the bytes it covers?  Then it dies (refused).  Asked only now, not
 * when the site is planned: the sweep reads the whole function, and most
 * functions are never watched at the levels below 4. */
static void hook_site_sweep(struct hook_engine *g, struct hook_site *s)
{
	enum hook_why why;

	if (s->kind != HOOK_K_RELOC || s->swept)
		return;
	s->swept = true;
	why = hook_backend.sweep((const uint8_t *)s->fn, s->size, s->fn, s->n);
	if (why != HOOK_OK) {
		s->dead = true;
		g->refused[why]++;
		agent_log("hook: %s: %s", s->name, hook_why_name(why));
	}
}

/* See hook_int.h. */
void hook_engine_write(struct hook_engine *g)
{
	struct hook_pages pages = { 0 };
	struct hook_stop_leave leave = { hook_write_leave, g };
	struct hook_stopped st;
	char err[256];
	size_t busy = 0, adopt = 0;
	int left;
	bool relight = hook_live_can_sync() && hook_backend.code_swap == NULL, *mark = NULL;

	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];
		enum hook_need need = hook_write_need(s);

		if (need == HOOK_NEED_BRANCH) {
			hook_site_sweep(g, s);  /* may refuse it */
			need = hook_write_need(s);
		}
		if (need == HOOK_NEED_BRANCH)
			hook_pages_add(&pages, &g->mods->m[s->mod], s->fn, s->entry);
		busy += need == HOOK_NEED_BRANCH;
		adopt += need == HOOK_NEED_ADOPT;
		/* only relocated sites with a one-branch entry */
		if (need == HOOK_NEED_BRANCH && (s->kind != HOOK_K_RELOC || s->entry != HOOK_PATCH_LEN))
			relight = false;
	}
	if (busy == 0) {
		if (adopt > 0)          /* nothing to write: no stop */
			hook_write_all(g, &(struct hook_stopped){ 0 });
		return;
	}
	/* Open before the stop: nothing is opened with the world stopped. */
	if (hook_pages_open(&pages) < 0) {
		agent_warn("hook: cannot write the code of %s: %s", pages.failed->path, strerror(errno));
		hook_engine_bury(g, HOOK_R_BUSY);
		return;
	}
	if (relight)
		hook_write_leaving_set(1);
	for (int tries = 0; tries < HOOK_TRIES; tries++) {
		struct timespec nap = { 0, 2000000 };

		if (hook_stop_world(&st, relight ? &leave : NULL, err, sizeof err) < 0) {
			agent_warn("hook: cannot stop the other threads (%s); nothing patched", err);
			hook_engine_bury(g, HOOK_R_STOP);
			break;
		}
		if (st.left > 0 && mark == NULL) {
			/* the traps' table and handler, allocated and installed
			 * with no thread stopped (a start-up with no other thread
			 * never needs them), then the stop again */
			hook_stop_resume(&st);
			mark = xcalloc(g->nsites, sizeof *mark);
			hook_live_trap_install(g);
			tries--;
			continue;
		}
		left = st.left;
		busy = left > 0 ? hook_write_relight(g, &st, mark) : hook_write_all(g, &st);
		hook_stop_resume(&st);
		if (left > 0)
			agent_log("hook: entries written with %d threads left in system calls, "
			    "%zu busy", left, busy);
		if (busy == 0)
			break;
		nanosleep(&nap, NULL);
	}
	if (relight)
		hook_write_leaving_set(0);
	free(mark);
	hook_pages_close(&pages);
	hook_engine_bury(g, HOOK_R_BUSY);
}

