/*
 * hook_live.c - a site's entry rewritten while the program runs.
 *
 * A relocated or compiler-assisted site's entry holds a branch to its block
 * while the site is watched (its switch is not the disabled path), and its
 * own bytes while it is not: the original prologue, or the NOP.  So a
 * function the level or the overhead budget leaves unwatched runs as it does
 * without the agent.  The block's disabled path (a branch to the relocated
 * prologue and one back) costs about 2 ns a call on real code, and the
 * functions left unwatched are precisely the tiny ones called most: on a
 * Python interpreter tens of millions of calls a second.
 *
 * hook_live_sync brings every entry in line with its switch, after the
 * switches changed:
 *   - a branch replaced by the own bytes, or (NOP site) by another branch or
 *     the NOP: one instruction by one, or a branch by the prologue it covered,
 *     which no thread can be inside (it was a single branch): the trap
 *     protocol with the threads running.  The trap at byte 0, barrier, bytes
 *     1-4, barrier, byte 0, barrier (membarrier SYNC_CORE): no core executes
 *     a mix of old and new bytes.  Each step writes every stale entry, those
 *     of one page in one write.  A thread that runs into the trap goes on
 *     along the site's disabled path (the relocated prologue; after the NOP).
 *   - a relocated site's own bytes replaced by the branch: a thread may be
 *     between two of the instructions it covers, so this is written with the
 *     world stopped and no thread inside them, as the first patch was
 *     (hook_engine_write; threads asleep in a system call are left running
 *     and the writes trap: hook_write.c).
 * Without membarrier SYNC_CORE nothing is rewritten live: relocated sites
 * keep their branch and are disabled through their switch only; a NOP
 * module is relocated instead (hook_nop.c).  Where the back-end has
 * code_swap (arm64: an entry is one 4-byte instruction, and the
 * architecture lets a core run a NOP or a branch while another swaps one
 * for the other, not any other instruction), a NOP site's entry is
 * rewritten with one store and no trap, and relocated sites keep their
 * branch as without SYNC_CORE.  So does a relocated site whose entry is a
 * back-end's far form (several instructions: written once, world stopped).
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "agent.h"
#include "hook.h"
#include "hook_int.h"

/* One trap entry: a site's function and where a thread that runs into
 * its trap goes on. */
struct hook_trap_ent {
	uintptr_t fn, to;
};

/* The live sites' entries, sorted, for the trap handler: published whole
 * with a release store; a replaced table is never freed (a handler may be
 * reading it; one per dlopen or dlclose of a module with sites). */
struct hook_trap_tab {
	struct hook_trap_tab *prev;     /* the replaced one, kept (and reachable) */
	size_t    n;
	uintptr_t sum;                  /* of the addresses: with n, tells a changed set */
	struct hook_trap_ent e[];
};
static struct hook_trap_tab *hook_trap_tab;
static struct sigaction hook_trap_old;  /* the SIGTRAP action we chain to */

/* membarrier(2) wrapper. */
static int hook_live_membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

static bool hook_live_trapless;          /* a thread of the program blocks SIGTRAP */
#define HOOK_LIVE_RELOOK_NS  2000000     /* a thread seen blocking SIGTRAP: looked at again */
#define HOOK_LIVE_RELOOK_MAX 64

/* See hook_int.h: registered once. */
bool hook_live_can_sync(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = hook_live_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE) == 0;
	return ok == 1 && !__atomic_load_n(&hook_live_trapless, __ATOMIC_RELAXED);
}

/* Before traps are written with the threads running: may every thread of
 * the program meet one?  A thread that blocks SIGTRAP and runs into a trap
 * is killed (the kernel forces the default action on a blocked trap): a
 * program whose threads block every signal, for a thread that takes them
 * with sigwait, died at the first rewrite they met.  Once such a thread is
 * seen, no entry is rewritten live again in this process: relocated sites
 * keep their branch and the switches alone decide, as without SYNC_CORE (a
 * site whose own bytes are back by then waits for a stop of the world),
 * and NOP sites keep their entry.  A thread being created blocks every
 * signal for a moment (glibc's pthread_create, until the new thread sets
 * its mask), so one that blocks SIGTRAP is looked at again a little later;
 * the agent's own threads, which block every signal but never run the
 * program's code, do not count. */
static bool hook_live_traps_ok(void)
{
	const struct timespec later = { 0, HOOK_LIVE_RELOOK_NS };
	int seen[HOOK_LIVE_RELOOK_MAX], n = 0;
	struct dirent *e;
	DIR *d;

	if (__atomic_load_n(&hook_live_trapless, __ATOMIC_RELAXED))
		return false;
	if ((d = opendir("/proc/self/task")) == NULL)
		return true;    /* no /proc: nothing to go by (the threads' masks are unknown) */
	while ((e = readdir(d)) != NULL && n < HOOK_LIVE_RELOOK_MAX) {
		int tid = atoi(e->d_name);

		if (tid > 0 && !agent_tid_ours(tid) && agent_task_blocks(tid, SIGTRAP))
			seen[n++] = tid;
	}
	closedir(d);
	if (n > 0)
		nanosleep(&later, NULL);
	for (int i = 0; i < n; i++)
		if (!agent_tid_ours(seen[i]) && agent_task_blocks(seen[i], SIGTRAP)) {
			__atomic_store_n(&hook_live_trapless, true, __ATOMIC_RELAXED);
			agent_log("hook: thread %d blocks SIGTRAP: entries are no longer rewritten "
			    "while the program runs (the switches alone decide)", seen[i]);
			return false;
		}
	return true;
}

/* See hook_int.h. */
void hook_live_barrier(void)
{
	if (hook_live_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) != 0)
		agent_warn("hook: membarrier(SYNC_CORE) failed: %s", strerror(errno));
}

/* qsort/bsearch order of trap entries (a key is an entry too). */
static int hook_trap_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const struct hook_trap_ent *)a)->fn, y = ((const struct hook_trap_ent *)b)->fn;

	return x < y ? -1 : x > y;
}

/* Is site s's entry rewritten live (a relocated or a NOP site, alive)? */
static bool hook_live_kind(const struct hook_site *s)
{
	return (s->kind == HOOK_K_RELOC || s->kind == HOOK_K_NOP) && s->patched && !s->dead;
}

/* May site s's entry hold a trap of ours: a relocated or NOP site, alive
 * (not yet written too: hook_write.c writes a new entry's trap first). */
static bool hook_live_trappable(const struct hook_site *s)
{
	return (s->kind == HOOK_K_RELOC || s->kind == HOOK_K_NOP) && !s->dead;
}

/* SIGTRAP: a thread ran into the trap of an entry being rewritten: it goes
 * on along the site's disabled path, so such a call is not watched.  Any
 * other trap goes to the previous action.  Async-signal-safe: a table is
 * read-only once published. */
static void hook_live_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	struct hook_trap_ent key = { hook_backend.uc_pc(uc) - 1, 0 };
	const struct hook_trap_tab *t = __atomic_load_n(&hook_trap_tab, __ATOMIC_ACQUIRE);
	const struct hook_trap_ent *e = t != NULL ?
	    bsearch(&key, t->e, t->n, sizeof key, hook_trap_cmp) : NULL;

	if (e != NULL) {
		hook_backend.uc_set_pc(uc, e->to);
		return;
	}
	if (hook_trap_old.sa_flags & SA_SIGINFO) {
		hook_trap_old.sa_sigaction(sig, si, ctx);
	} else if (hook_trap_old.sa_handler == SIG_DFL) {
		/* Not ours: die of it as without us (raised again on return). */
		sigaction(SIGTRAP, &hook_trap_old, NULL);
		raise(SIGTRAP);
	} else if (hook_trap_old.sa_handler != SIG_IGN) {
		hook_trap_old.sa_handler(sig);
	}
}

/* See hook_int.h.  The table is rebuilt when the live sites changed (a
 * dlopen or dlclose). */
void hook_live_trap_install(const struct hook_engine *g)
{
	const struct hook_trap_tab *cur_tab = __atomic_load_n(&hook_trap_tab, __ATOMIC_ACQUIRE);
	struct sigaction sa, cur;
	size_t live = 0;
	uintptr_t sum = 0;

	for (size_t i = 0; i < g->nsites; i++)
		if (hook_live_trappable(g->sites[i])) {
			live++;
			sum += g->sites[i]->fn;
		}
	if (cur_tab == NULL || cur_tab->n != live || cur_tab->sum != sum) {
		struct hook_trap_tab *t = xcalloc(1, sizeof *t + (live + 1) * sizeof t->e[0]);

		t->sum = sum;
		t->prev = (struct hook_trap_tab *)cur_tab;
		for (size_t i = 0; i < g->nsites; i++) {
			const struct hook_site *s = g->sites[i];

			if (!hook_live_trappable(s))
				continue;
			/* a NOP site's disabled path is the instruction after the NOP */
			t->e[t->n].fn = s->fn;
			t->e[t->n++].to = s->kind == HOOK_K_NOP ? s->fn + HOOK_PATCH_LEN : s->reloc;
		}
		qsort(t->e, t->n, sizeof t->e[0], hook_trap_cmp);
		__atomic_store_n(&hook_trap_tab, t, __ATOMIC_RELEASE);
	}
	if (sigaction(SIGTRAP, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == hook_live_trap)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = hook_live_trap;
	/* SA_NODEFER: a thread inside the handler does not read as one that
	 * blocks SIGTRAP (hook_live_traps_ok); the handler runs no trap. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &hook_trap_old) != 0)
		agent_warn("hook: cannot install the SIGTRAP handler: %s", strerror(errno));
}

/* See hook_int.h. */
void hook_live_untrap(void)
{
	struct sigaction cur;

	if (sigaction(SIGTRAP, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == hook_live_trap)
		sigaction(SIGTRAP, &hook_trap_old, NULL);
}

/* See hook_int.h. */
uintptr_t hook_live_branch_to(const struct hook_site *s)
{
	uintptr_t to = __atomic_load_n(s->sw, __ATOMIC_RELAXED);

	switch (s->kind) {
	case HOOK_K_NOP:        /* straight to the timed or the counted path */
		return s->on && to != s->reloc ? to : 0;
	case HOOK_K_RELOC:      /* to the block, whose switch decides; for good
	                         * where only a NOP and a branch swap live (code_swap)
	                         * and where the entry is several instructions (far);
	                         * where nothing is rewritten live, an unwatched
	                         * entry keeps what it has, its own bytes or the branch */
		if (to != s->reloc || hook_backend.code_swap != NULL || s->entry != HOOK_PATCH_LEN)
			return (uintptr_t)s->blk;
		if (!hook_live_can_sync())
			return s->patched && !s->code_on ? 0 : (uintptr_t)s->blk;
		return 0;
	default:                /* a wrap site's branch is for good */
		return (uintptr_t)s->blk;
	}
}

/* The HOOK_PATCH_LEN bytes site s should hold: the branch, or its own
 * (a far entry is never rewritten live: hook_live_branch_to). */
static void hook_live_code(const struct hook_site *s, uint8_t out[HOOK_PATCH_LEN])
{
	uintptr_t to = hook_live_branch_to(s);

	assert(s->entry == HOOK_PATCH_LEN);
	if (to == 0)
		memcpy(out, s->orig, HOOK_PATCH_LEN);
	else
		hook_backend.branch(out, s->fn, to, HOOK_PATCH_LEN);
}

/* Does site s's entry differ from what its switch says, in a way the trap
 * protocol can fix (not a relocated site's own bytes to be made a branch:
 * hook_engine_write's)? */
static bool hook_live_stale(const struct hook_site *s)
{
	uintptr_t to;

	if (!hook_live_kind(s))
		return false;
	to = hook_live_branch_to(s);
	if (s->kind == HOOK_K_RELOC && !s->code_on)
		return false;
	return s->code_on != (to != 0) || (to != 0 && s->code_to != to);
}

/* One step of the trap protocol for every stale site: its trap (step 0),
 * bytes 1-4 of its new entry (1), or its first byte, which makes it the
 * new entry (2).  The entries of a page go in one write (hook_code_gather),
 * all of them before the barrier that follows. */
static void hook_live_write(struct hook_engine *g, const bool *stale, int step)
{
	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];
		uint8_t code[HOOK_PATCH_LEN];

		if (!stale[i])
			continue;
		if (step == 0) {
			hook_code_gather((void *)s->fn, &hook_backend.trap, 1);
			continue;
		}
		hook_live_code(s, code);
		if (step == 1) {
			hook_code_gather((uint8_t *)s->fn + 1, code + 1, HOOK_PATCH_LEN - 1);
			continue;
		}
		hook_code_gather((void *)s->fn, code, 1);
		s->code_to = hook_live_branch_to(s);
		s->code_on = s->code_to != 0;
	}
	hook_code_flush();
}

/* See hook_int.h.  Three barriers for all the stale entries at once, then
 * one stop of the world for the relocated sites to branch again. */
void hook_live_sync(struct hook_engine *g)
{
	struct hook_pages pages = { 0 };
	bool *stale;
	size_t n = 0;

	if (g->mods == NULL || g->nsites == 0)
		return;
	stale = xcalloc(g->nsites, sizeof *stale);
	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];

		if (!hook_live_stale(s))
			continue;
		hook_pages_add(&pages, &g->mods->m[s->mod], s->fn, HOOK_PATCH_LEN);
		stale[i] = true;
		n++;
	}
	if (n > 0 && hook_backend.code_swap == NULL && !hook_live_traps_ok())
		n = 0;          /* the entries stay as they are */
	if (n > 0 && hook_pages_open(&pages) < 0) {
		agent_warn("hook: cannot write the code of %s: %s (the switches still apply)",
		    pages.failed->path, strerror(errno));
		n = 0;
	}
	if (n > 0 && hook_backend.code_swap != NULL) {
		/* one store per entry (NOP <-> branch), then one barrier */
		for (size_t i = 0; i < g->nsites; i++) {
			struct hook_site *s = g->sites[i];
			uint8_t code[HOOK_PATCH_LEN];

			if (!stale[i])
				continue;
			hook_live_code(s, code);
			hook_backend.code_swap((void *)s->fn, code);
			s->code_to = hook_live_branch_to(s);
			s->code_on = s->code_to != 0;
		}
		hook_live_barrier();
	} else if (n > 0) {
		hook_live_trap_install(g);
		for (int step = 0; step < 3; step++) {
			hook_live_write(g, stale, step);
			hook_live_barrier();
		}
	}
	hook_pages_close(&pages);
	free(stale);
	hook_engine_write(g);
	hook_got_sync(g);
}
