/*
 * hook_detach.c - take the hook engine out of a running process (detach).
 *
 * With every site switched off and the compiler-assisted NOPs put back
 * (hook_site.c does that first, with threads running), the GOT entries
 * bound to the collectors' wrappers are given back and the threads asleep
 * inside a wrapper (recv, poll...) let out of it (bind_let_out), so none
 * holds the agent on its stack while it waits.  Then the other threads
 * are stopped; while one of them is inside the agent's code or a site's
 * block, they are released and stopped again a little later, since such a
 * thread may be about to call through a block or return into a stub.  With
 * all of them outside:
 *   - the 5 bytes of every relocated-prologue site get their original
 *     bytes back, and every redirected GOT entry its original value;
 *   - every timed call in flight, on any thread, gets its real return
 *     address back in its stack slot (tm_site_unhook_all), so no return
 *     goes through a block or a stub any more.
 * The trampoline regions stay mapped: a copied GOT value (a function
 * pointer the program took through its GOT) may point at an import block.
 * With the switches off, the blocks only jump back into the original code;
 * they reference nothing in the agent, which can then be unloaded.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "bind.h"
#include "hook.h"
#include "hook_int.h"
#include "timing.h"

#define HOOK_DETACH_TRIES 200        /* 1 ms apart */
#define HOOK_LET_OUT_MS   1000       /* threads asleep in a wrapper: bind_let_out */

/* Is a stopped thread inside the agent, a site's block or a site's entry
 * branch of several instructions, or inside a call the agent's dlopen or
 * dlclose wrapper made (it returns into the agent)? */
static bool hook_detach_busy(const struct hook_engine *g, const struct hook_stopped *st)
{
	if (__atomic_load_n(&hook_wrap_inflight, __ATOMIC_ACQUIRE) != 0)
		return true;
	for (int i = 0; i < st->n; i++) {
		uintptr_t pc = st->pcs[i];

		for (int mi = 0; mi < g->mods->n; mi++) {
			const struct hook_mod *m = &g->mods->m[mi];

			if (m->agent && pc >= m->lo && pc < m->hi)
				return true;
		}
		for (size_t k = 0; k < g->nsites; k++) {
			const struct hook_site *s = g->sites[k];

			if (s->blk != NULL && pc >= (uintptr_t)s->blk &&
			    pc < (uintptr_t)s->blk + HOOK_BLK_SIZE)
				return true;
			/* inside a far entry (past its load, before its br) */
			if (s->patched && s->code_on && s->entry > HOOK_PATCH_LEN && pc > s->fn &&
			    pc < s->fn + s->entry)
				return true;
		}
	}
	return false;
}

/* Is there nothing but data (GOT entries) to give back: no site's code
 * patched?  (A program whose threads block every signal, such as Mesa's
 * worker threads, cannot be stopped: then no code was patched either.) */
static bool hook_detach_data_only(const struct hook_engine *g)
{
	for (size_t i = 0; i < g->nsites; i++)
		if (g->sites[i]->patched && g->sites[i]->kind != HOOK_K_GOT)
			return false;
	return true;
}

/* Put the original bytes back at every relocated-prologue site (world
 * stopped: a thread stopped at a function's first byte resumes on the
 * original instruction).  -1 with err if a module cannot be written. */
static int hook_detach_code(struct hook_engine *g, char *err, size_t errlen)
{
	for (int mi = 0; mi < g->mods->n; mi++) {
		const struct hook_mod *m = &g->mods->m[mi];
		bool opened = false;

		for (size_t i = 0; i < g->nsites; i++) {
			struct hook_site *s = g->sites[i];

			if (s->mod != mi || !s->patched || !hook_kinds[s->kind].entry_branch)
				continue;
			if (!opened && hook_mod_protect(m, true) < 0) {
				snprintf(err, errlen, "cannot write the code of %s: %s", m->path,
				    strerror(errno));
				return -1;
			}
			opened = true;
			hook_code_copy((void *)s->fn, s->orig, s->entry);
			s->patched = false;
		}
		if (opened && hook_mod_protect(m, false) < 0)
			agent_warn("hook: cannot restore the protection of %s: %s", m->path,
			    strerror(errno));
	}
	return 0;
}

/* See hook_int.h. */
int hook_detach_run(struct hook_engine *g, char *err, size_t errlen)
{
	struct timespec nap = { 0, 1000000 };
	struct hook_stopped st;
	size_t unhooked = 0;
	int r;

	if (g->mods == NULL)
		return 0;               /* never patched */
	/* No new call enters a wrapper; the threads asleep in one leave it. */
	hook_got_unbind(g);
	if (bind_let_out(HOOK_LET_OUT_MS, err, errlen) < 0)
		return -1;
	for (int tries = 0;; tries++) {
		if (hook_stop_world(&st, NULL, err, errlen) < 0) {
			if (!hook_detach_data_only(g))
				return -1;
			/* Only data to give back: each GOT entry is one atomic
			 * store, and with every switch off no call enters a
			 * block any more (one that was about to return through
			 * a block finds its frame given back). */
			agent_log("hook: detaching without stopping the threads (%s): no code "
			    "was patched", err);
			hook_got_restore(g);
			unhooked = tm_site_unhook_all();
			goto out;
		}
		if (!hook_detach_busy(g, &st))
			break;
		hook_stop_resume(&st);
		if (tries + 1 >= HOOK_DETACH_TRIES) {
			snprintf(err, errlen, "a thread stayed inside the hooks for %d ms",
			    HOOK_DETACH_TRIES);
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	r = hook_detach_code(g, err, errlen);
	if (r == 0) {
		hook_got_restore(g);
		unhooked = tm_site_unhook_all();
	}
	hook_stop_resume(&st);
	if (r < 0)
		return -1;
out:
	hook_live_untrap();
	hook_stop_uninstall();
	agent_log("hook: detached: code and GOT entries restored, %zu calls in flight "
	    "given their return addresses back", unhooked);
	return 0;
}
