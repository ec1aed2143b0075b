/*
 * hook_site.c - the hook engine as a collector: the sites table, the level
 * selection and the per-site switches, and the C side of the stubs.
 *
 * EXPERIMENTAL (issue 3 in progress): only with HOOKSCOPE_ENGINE=1; without
 * it init fails and the engine stays out of the way.
 *
 * Patching happens once, the first time the level is 1 or more (in the
 * agent's constructor when the target starts at such a level, else on the
 * reporter thread, with the other threads stopped).  Every candidate of
 * level 4 is patched then; a level change afterwards only flips switches.
 * Selection per level (design.md):
 *   1  main and the functions named by HOOKSCOPE_FUNCS (globs, ':' or ',')
 *   2  + global/weak functions with default visibility
 *   3  + every global/weak function, and the own modules' calls into system
 *        libraries (import sites, hook_got.c)
 *   4  + every function with a symbol
 * A dlopen after the first patch patches the new own modules at the
 * current level (hook_engine_loaded, on the loading thread, under the same
 * lock as level changes).
 * Timing itself is the timing collector's (tm_site_enter/exit in
 * timing_hot.c): same per-thread table, same figures.
 */
#include <assert.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "collector.h"
#include "hook.h"
#include "hook_int.h"
#include "protocol.h"
#include "timing.h"

struct hook_engine hook_g;                /* hook_hot.c reads its sites */
static bool hook_patched;
static bool hook_on;                      /* init succeeded */
static int hook_level;                    /* the last level set */
static bool hook_detached;                /* hook_engine_detach succeeded: for good */
static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;   /* level vs dlopen */
static __thread bool hook_in_loaded;      /* inside the engine: its own dlopens pass */
static char *hook_funcs;                  /* HOOKSCOPE_FUNCS, or NULL */

/* See hook_int.h.  Threads may be reading the table (hook_site_enter)
 * while a dlopen adds sites: the old table is kept (retired), the new one
 * published with a release store once filled; capacity doubles, so few are
 * ever retired. */
void hook_engine_grow(struct hook_engine *g, size_t n)
{
	struct hook_site **p;
	size_t cap;

	if (g->nsites + n <= g->cap)
		return;
	cap = g->cap * 2 > g->nsites + n ? g->cap * 2 : g->nsites + n;
	p = xcalloc(cap, sizeof *p);
	if (g->nsites)
		memcpy(p, g->sites, g->nsites * sizeof *p);
	if (g->sites != NULL) {
		assert(g->nretired < (int)(sizeof g->retired / sizeof g->retired[0]));
		g->retired[g->nretired++] = g->sites;
	}
	__atomic_store_n(&g->sites, p, __ATOMIC_RELEASE);
	g->cap = cap;
}

/* Does name match one of the HOOKSCOPE_FUNCS globs? */
static bool hook_named(const char *name)
{
	const char *p = hook_funcs;

	while (p != NULL && *p) {
		size_t len = strcspn(p, ":,");
		char glob[256];

		if (len > 0 && len < sizeof glob) {
			memcpy(glob, p, len);
			glob[len] = '\0';
			if (fnmatch(glob, name, 0) == 0)
				return true;
		}
		p += len;
		p += *p != '\0';
	}
	return false;
}

/* Is site s timed at this level? */
static bool hook_selected(const struct hook_site *s, int level)
{
	switch (level) {
	case 0:
		return false;
	case 1:
		return strcmp(s->name, "main") == 0 || hook_named(s->name);
	case 2:
		return s->exported || hook_selected(s, 1);
	case 3:
		return s->global || hook_selected(s, 1);
	default:
		return true;
	}
}

/* Log the outcome of the patching, once. */
static void hook_report_patch(const struct hook_engine *g)
{
	char why[512];
	size_t off = 0, patched = 0;

	for (size_t i = 0; i < g->nsites; i++)
		patched += g->sites[i]->patched;
	why[0] = '\0';
	for (int r = 1; r < HOOK_R_COUNT; r++)
		if (g->refused[r] && off < sizeof why)
			off += (size_t)snprintf(why + off, sizeof why - off, "%s%zu %s",
			    off ? ", " : "", g->refused[r], hook_why_name(r));
	agent_log("hook: %zu functions patched in %.2f ms (threads stopped %.2f ms); refused: %s",
	    patched, (double)(g->prep_ns + g->stop_ns) / 1e6, (double)g->stop_ns / 1e6,
	    off ? why : "none");
}

/* Collector init: only with HOOKSCOPE_ENGINE=1. */
static int hook_init(void)
{
	const char *e = getenv("HOOKSCOPE_ENGINE"), *f = getenv("HOOKSCOPE_FUNCS");

	if (e == NULL || strcmp(e, "1") != 0)
		return -1;
#if !defined(__x86_64__)
	agent_warn("HOOKSCOPE_ENGINE: the hook engine supports x86-64 only; ignored");
	return -1;
#endif
	if (f != NULL && *f)
		hook_funcs = xstrdup(f);
	hook_on = true;
	return 0;
}

/* Flip each site's switch for the level (hook_lock held). */
static void hook_apply(int level)
{
	size_t on = 0;

	for (size_t i = 0; i < hook_g.nsites; i++) {
		struct hook_site *s = hook_g.sites[i];
		bool want = s->patched && hook_selected(s, level);

		on += want;
		if (want == s->on)
			continue;
		s->on = want;
		__atomic_store_n(s->sw, want ? s->on_addr : s->reloc,
		    __ATOMIC_RELAXED);
	}
	hook_nop_sync(&hook_g);         /* compiler-assisted sites: NOP or jmp */
	if (hook_patched)
		agent_log("hook: level %d: %zu of %zu sites on", level, on, hook_g.nsites);
}

/* Patch on first use, then flip each site's switch for the level. */
static void hook_set_level(int level)
{
	hook_in_loaded = true;          /* the engine's own dlopens (hook_got.c) */
	pthread_mutex_lock(&hook_lock);
	hook_level = level;
	if (hook_detached) {
		pthread_mutex_unlock(&hook_lock);
		hook_in_loaded = false;
		return;
	}
	if (level >= 1 && !hook_patched) {
		hook_patched = true;
		hook_cal_run(&hook_g);  /* before any site exists (hook_cal.c) */
		hook_engine_patch(&hook_g);
		hook_report_patch(&hook_g);
	}
	hook_apply(level);
	pthread_mutex_unlock(&hook_lock);
	hook_in_loaded = false;
}

/* See hook_int.h: called by the dlopen wrapper on the loading thread.  The
 * engine's own dlopens (while it loads symbols) are left alone. */
void hook_engine_loaded(void)
{
	if (!hook_on || hook_in_loaded)
		return;
	hook_in_loaded = true;
	pthread_mutex_lock(&hook_lock);
	if (hook_patched && !hook_detached) {
		hook_engine_rescan(&hook_g);
		hook_apply(hook_level);
	}
	pthread_mutex_unlock(&hook_lock);
	hook_in_loaded = false;
}

/* See hook.h.  Switches off and NOPs back first, with the threads running
 * (hook_apply, the int3 protocol), then the stopped part (hook_detach.c). */
int hook_engine_detach(char *err, size_t errlen)
{
	int r = 0;

	hook_in_loaded = true;
	pthread_mutex_lock(&hook_lock);
	if (!hook_detached) {
		if (hook_patched)
			hook_apply(0);
		r = hook_detach_run(&hook_g, err, errlen);
		hook_detached = r == 0;
	}
	pthread_mutex_unlock(&hook_lock);
	hook_in_loaded = false;
	return r;
}

/* See hook_int.h: counts for the "sites" record (reporter thread). */
void hook_engine_stats(struct hook_stats *st)
{
	memset(st, 0, sizeof *st);
	pthread_mutex_lock(&hook_lock);
	st->patched = hook_patched;
	for (size_t i = 0; i < hook_g.nsites; i++) {
		const struct hook_site *s = hook_g.sites[i];

		if (!s->patched)
			continue;
		if (s->nop)
			*(s->on ? &st->nop_active : &st->nop_disabled) += 1;
		else
			*(s->on ? &st->active : &st->disabled) += 1;
	}
	memcpy(st->refused, hook_g.refused, sizeof st->refused);
	pthread_mutex_unlock(&hook_lock);
}

/* See hook_int.h: linear, but only called for new timing functions. */
bool hook_engine_has(uintptr_t fn)
{
	bool has = false;

	pthread_mutex_lock(&hook_lock);
	for (size_t i = 0; i < hook_g.nsites && !has; i++)
		has = hook_g.sites[i]->fn == fn && hook_g.sites[i]->patched;
	pthread_mutex_unlock(&hook_lock);
	return has;
}

const struct collector_ops hook_collector = {
	.name      = "hook",
	.init      = hook_init,
	.set_level = hook_set_level,
};
