/*
 * hook_site.c - the hook engine as a collector: the sites table, the level
 * selection and the per-site switches, detach.
 *
 * On by default where the engine has a back-end; HOOKSCOPE_ENGINE=0 keeps it out of the way.
 *
 * Patching happens once, the first time the level is 1 or more (in the
 * agent's constructor when the target starts at such a level, else on the
 * reporter thread, with the other threads stopped).  Every candidate of
 * level 4 is patched then; a level change afterwards only flips switches.
 * Selection per level: select.h, plus at level 3 and up the own modules'
 * calls into system libraries (import sites, hook_got.c).
 * A dlopen after the first patch patches the new own modules at the
 * current level (hook_engine_loaded, on the loading thread, under the same
 * lock as level changes).
 * Timing itself is the timing collector's (tm_site_enter/exit in
 * timing_site.c): same per-thread table, same figures.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "collector.h"
#include "hook.h"
#include "hook_int.h"
#include "protocol.h"
#include "select.h"
#include "timing.h"

struct hook_engine hook_g;                /* hook_hot.c reads its sites */
static bool hook_patched;
static bool hook_on;                      /* init succeeded */
static int hook_level;                    /* the last level set */
static bool hook_detached;                /* hook_engine_detach succeeded: for good */
static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;   /* level vs dlopen */
/* The thread holding hook_lock (valid while hook_owned): the engine's own
 * dlopens and dlcloses on that thread pass through.  Not a __thread flag:
 * the agent's static TLS stays one pointer (attach: doc/architecture.md). */
static pthread_t hook_owner;
static bool hook_owned;
static uint8_t hook_mode_start;           /* enum hook_mode of sites given none */
static struct hook_site **hook_byfn;      /* the sites sorted by fn (hook_lock) */
static size_t hook_nbyfn;
static uint64_t hook_gen;                 /* hook_lock sections left (hook_lock) */

/* See hook_int.h.  A dlopen may add sites while another thread holds the
 * table: the old table is kept (retired), the new one published with a
 * release store once filled; capacity doubles, so few are ever retired. */
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

/* See hook_int.h. */
void hook_engine_seal(struct hook_engine *g, const struct hook_region *r, size_t first,
    const char *what)
{
	if (hook_tramp_seal(r) == 0) {
		g->regions = xrealloc(g->regions, (g->nregions + 1) * sizeof *g->regions);
		g->regions[g->nregions++] = *r;
		return;
	}
	agent_warn("hook: cannot make the blocks of %s executable: %s; not patched", what,
	    strerror(errno));
	for (size_t i = first; i < g->nsites; i++)
		g->sites[i]->dead = true;
}

/* Is site s timed at this level? */
static bool hook_selected(const struct hook_site *s, int level)
{
	return select_level(level, s->name, s->global, s->exported);
}

/* Log the outcome of the patching, once. */
static void hook_report_patch(const struct hook_engine *g)
{
	char why[512];
	char kinds[256];
	size_t off = 0, koff = 0, total = 0, far = 0, n[HOOK_K_COUNT] = { 0 };

	for (size_t i = 0; i < g->nsites; i++)
		if (g->sites[i]->patched && !g->sites[i]->dead) {
			n[g->sites[i]->kind]++;
			far += g->sites[i]->kind == HOOK_K_RELOC && g->sites[i]->entry != HOOK_PATCH_LEN;
		}
	why[0] = '\0';
	for (int r = 1; r < HOOK_R_COUNT; r++)
		if (g->refused[r] && off < sizeof why)
			off += (size_t)snprintf(why + off, sizeof why - off, "%s%zu %s",
			    off ? ", " : "", g->refused[r], hook_why_name(r));
	for (int k = 0; k < HOOK_K_COUNT; k++) {
		total += n[k];
		koff += (size_t)snprintf(kinds + koff, sizeof kinds - koff, "%s%zu %s",
		    k ? ", " : "", n[k], hook_kinds[k].what);
		if (koff >= sizeof kinds)
			koff = sizeof kinds - 1;
	}
	if (far > 0)            /* the back-end's longer entry (hook_layout.h) */
		snprintf(kinds + koff, sizeof kinds - koff, "; %zu of the relocated with the far entry",
		    far);
	agent_log("hook: %zu functions patched in %.2f ms: %s (threads stopped "
	    "%.2f ms for the relocated and the wrappers); refused: %s", total,
	    (double)(g->prep_ns + g->stop_ns) / 1e6, kinds,
	    (double)g->stop_ns / 1e6, off ? why : "none");
}

/* Collector init: on unless HOOKSCOPE_ENGINE=0 (where a back-end exists). */
static int hook_init(void)
{
	const char *e = getenv("HOOKSCOPE_ENGINE");

	if (e != NULL && strcmp(e, "0") == 0) {
		agent_log("hook: the engine is off (HOOKSCOPE_ENGINE=0)");
		return -1;
	}
	hook_on = true;
	return 0;
}

/* What site s's switch holds for its selection (want) and mode. */
static uintptr_t hook_switch_to(struct hook_site *s, bool want)
{
	if (!s->mode_set) {
		s->mode = hook_mode_start;
		s->mode_set = true;
	}
	if (!want || s->mode == HOOK_M_OFF)
		return s->reloc;
	if (s->mode != HOOK_M_COUNTED)
		return s->on_addr;
	if (!s->sc_noted) {           /* before the block counts: whose counts they are */
		tm_sc_note(s->index, s->fn);
		s->sc_noted = true;
	}
	return s->count_addr;
}

/* Flip each site's switch for the level (hook_lock held).  Modules
 * unloaded behind the dlclose wrapper's back (an attached agent interposes
 * nothing) are forgotten first, so no code is written where they were. */
static void hook_apply(int level)
{
	size_t on = 0, all = 0;

	if (hook_patched)
		hook_engine_forget(&hook_g);
	for (size_t i = 0; i < hook_g.nsites; i++) {
		struct hook_site *s = hook_g.sites[i];
		bool want = s->patched && hook_selected(s, level);

		if (!hook_kinds[s->kind].levelled || s->dead)
			continue;
		s->on = want;
		__atomic_store_n(s->sw, hook_switch_to(s, want), __ATOMIC_RELAXED);
	}
	hook_live_sync(&hook_g);        /* entries: the branch, or their own bytes */
	for (size_t i = 0; i < hook_g.nsites; i++) {      /* a site's first branch may refuse it */
		const struct hook_site *s = hook_g.sites[i];

		if (hook_kinds[s->kind].levelled && !s->dead) {
			all++;
			on += s->on;
		}
	}
	if (hook_patched)
		agent_log("hook: level %d: %zu of %zu sites on", level, on, all);
}

/* Take the engine's lock and note the owner. */
static void hook_enter(void)
{
	pthread_mutex_lock(&hook_lock);
	__atomic_store_n(&hook_owner, pthread_self(), __ATOMIC_RELAXED);
	__atomic_store_n(&hook_owned, true, __ATOMIC_RELEASE);
}

/* Leave it: what changed inside is a new generation (hook_engine_stats). */
static void hook_leave(void)
{
	hook_gen++;
	__atomic_store_n(&hook_owned, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&hook_lock);
}

/* Is the calling thread inside the engine (holding its lock)? */
static bool hook_mine(void)
{
	return __atomic_load_n(&hook_owned, __ATOMIC_ACQUIRE) &&
	    pthread_equal(__atomic_load_n(&hook_owner, __ATOMIC_RELAXED), pthread_self());
}

/* See engine.h. */
void hook_engine_modules_held(void (*fn)(void *arg), void *arg)
{
	if (hook_mine()) {
		fn(arg);
		return;
	}
	hook_enter();
	fn(arg);
	hook_leave();
}

/* See engine.h. */
int hook_engine_stopped(void (*fn)(const struct hook_stopped_thread *t, int n, void *arg), void *arg,
    char *err, size_t errlen)
{
	struct hook_stopped st;
	int r;

	hook_enter();
	r = hook_stop_world(&st, NULL, err, errlen);
	if (r == 0) {
		fn(st.ts, st.n, arg);
		hook_stop_resume(&st);
	}
	hook_leave();
	return r;
}

/* Patch on first use, then flip each site's switch for the level. */
static void hook_set_level(int level)
{
	hook_enter();
	hook_level = level;
	if (hook_detached) {
		hook_leave();
		return;
	}
	if (level >= 1 && !hook_patched) {
		hook_patched = true;
		hook_cal_run(&hook_g);  /* before any site exists (hook_cal.c) */
		hook_engine_patch(&hook_g);
		hook_apply(level);
		hook_report_patch(&hook_g);     /* with the level's refusals */
	} else {
		hook_apply(level);
	}
	hook_leave();
}

/* See hook_int.h: called by the dlopen wrapper on the loading thread.  The
 * engine's own dlopens (while it loads symbols) are left alone. */
void hook_engine_loaded(void)
{
	if (!hook_on || hook_mine())
		return;
	hook_enter();
	if (hook_patched && !hook_detached) {
		hook_engine_rescan(&hook_g);
		hook_apply(hook_level);
	}
	hook_leave();
}

/* See hook_int.h.  The engine's own dlcloses (the lock is held already)
 * only forward. */
int hook_engine_unloading(int (*real)(void *), void *h)
{
	int r;

	if (!hook_on || hook_mine())
		return real(h);
	hook_enter();
	r = real(h);
	if (r == 0 && hook_patched)
		hook_engine_forget(&hook_g);
	hook_leave();
	return r;
}

/* See engine.h.  Switches off and NOPs back first, with the threads running
 * (hook_apply, the trap protocol), then the stopped part (hook_detach.c). */
int hook_engine_detach(char *err, size_t errlen)
{
	struct timespec nap = { 0, 1000000 };
	int r = 0;

	/* A thread in the dlopen wrapper may be about to take the lock:
	 * let it through first (bounded; hook_detach.c checks again). */
	for (int i = 0; i < 2000 && __atomic_load_n(&hook_wrap_inflight, __ATOMIC_ACQUIRE); i++)
		nanosleep(&nap, NULL);
	hook_enter();
	if (!hook_detached) {
		if (hook_patched)
			hook_apply(0);
		r = hook_detach_run(&hook_g, err, errlen);
		hook_detached = r == 0;
	}
	hook_leave();
	return r;
}

/* qsort comparator: sites by function, the older first. */
static int hook_cmp_fn(const void *a, const void *b)
{
	const struct hook_site *x = *(struct hook_site *const *)a, *y = *(struct hook_site *const *)b;

	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Bring hook_byfn up to hook_g.sites, which only grows: the sites added
 * since are sorted alone and merged in from the back, so a module loaded
 * late costs its own sites' sort, not all of them again (python3 loads a
 * dozen after its start; a large program hundreds).  hook_lock held. */
static void hook_byfn_update(void)
{
	size_t i = hook_nbyfn, n = hook_g.nsites, j = n - hook_nbyfn, o = n;
	struct hook_site **add;

	if (j == 0)
		return;
	hook_byfn = xrealloc(hook_byfn, (n + 1) * sizeof *hook_byfn);
	add = xmalloc(j * sizeof *add);
	memcpy(add, hook_g.sites + hook_nbyfn, j * sizeof *add);
	qsort(add, j, sizeof *add, hook_cmp_fn);
	while (j > 0)
		hook_byfn[--o] = i > 0 && hook_cmp_fn(&hook_byfn[i - 1], &add[j - 1]) > 0 ?
		    hook_byfn[--i] : add[--j];
	assert(o == i);           /* every new site placed, the old prefix in place */
	free(add);
	hook_nbyfn = n;
}

/* The first of the sites of fn in hook_byfn, or hook_nbyfn; hook_lock
 * held. */
static size_t hook_byfn_find(uintptr_t fn)
{
	size_t lo = 0, hi;

	hook_byfn_update();
	hi = hook_nbyfn;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hook_byfn[mid]->fn < fn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* See engine.h.  Switch stores at once; the entries in one sync. */
void hook_engine_modes(const uintptr_t *fns, const uint8_t *modes, size_t n)
{
	if (!hook_on)
		return;
	hook_enter();
	if (hook_patched && !hook_detached) {
		for (size_t k = 0; k < n; k++) {
			for (size_t i = hook_byfn_find(fns[k]); i < hook_nbyfn && hook_byfn[i]->fn == fns[k]; i++) {
				struct hook_site *s = hook_byfn[i];

				s->mode = modes[k];
				s->mode_set = true;
				if (hook_kinds[s->kind].levelled && !s->dead)
					__atomic_store_n(s->sw, hook_switch_to(s, s->on), __ATOMIC_RELAXED);
			}
		}
		hook_live_sync(&hook_g);
	}
	hook_leave();
}

/* See engine.h. */
uintptr_t hook_engine_uc_pc(const void *uc)
{
	return hook_backend.uc_pc(uc);
}

/* See engine.h. */
void hook_engine_start_mode(enum hook_mode m)
{
	hook_mode_start = (uint8_t)m;
}

/* See engine.h: counts for the "sites" record (reporter thread). */
void hook_engine_stats(struct hook_stats *st)
{
	static struct hook_stats cached;
	static uint64_t cached_gen = UINT64_MAX;

	pthread_mutex_lock(&hook_lock);
	if (cached_gen != hook_gen) {     /* counted again only after a change */
		memset(&cached, 0, sizeof cached);
		cached.patched = hook_patched;
		for (size_t i = 0; i < hook_g.nsites; i++) {
			const struct hook_site *s = hook_g.sites[i];
			const struct hook_kind_ops *k = &hook_kinds[s->kind];

			if (!s->patched || s->dead || !k->counted)
				continue;
			if (s->kind == HOOK_K_RELOC && s->entry != HOOK_PATCH_LEN)
				*(s->on ? &cached.far_active : &cached.far_disabled) += 1;
			else
				*(size_t *)((char *)&cached + (s->on ? k->active_off : k->disabled_off)) += 1;
		}
		memcpy(cached.refused, hook_g.refused, sizeof cached.refused);
		cached_gen = hook_gen;
	}
	*st = cached;
	pthread_mutex_unlock(&hook_lock);
}

/* See engine.h: the sites by function (hook_byfn). */
const char *hook_engine_name(uintptr_t fn)
{
	const char *name = NULL;

	pthread_mutex_lock(&hook_lock);
	for (size_t i = hook_byfn_find(fn); i < hook_nbyfn && hook_byfn[i]->fn == fn; i++)
		if (hook_kinds[hook_byfn[i]->kind].named)
			name = hook_byfn[i]->name;      /* the newest is the last */
	pthread_mutex_unlock(&hook_lock);
	return name;
}

/* See engine.h: the sites by function (hook_byfn). */
const char *hook_engine_gone_name(uintptr_t fn)
{
	const char *name = NULL;
	bool live = false;

	/* Nothing unloaded yet (nearly every process): no lock, no search, for
	 * each of the thousands of functions the reporter names. */
	if (__atomic_load_n(&hook_g.ngone, __ATOMIC_ACQUIRE) == 0)
		return NULL;
	pthread_mutex_lock(&hook_lock);
	for (size_t i = hook_byfn_find(fn); i < hook_nbyfn && hook_byfn[i]->fn == fn; i++) {
		const struct hook_site *s = hook_byfn[i];

		live |= s->patched && !s->dead;
		if (s->gone && hook_kinds[s->kind].named)
			name = s->name;         /* the newest is the last */
	}
	pthread_mutex_unlock(&hook_lock);
	return live ? NULL : name;
}

/* See engine.h: the sites by function (hook_byfn); asked for every new
 * timing function, a walk of every site each time cost the reporter a
 * millisecond on python3's 1,862. */
bool hook_engine_has(uintptr_t fn)
{
	bool has = false;

	pthread_mutex_lock(&hook_lock);
	for (size_t i = hook_byfn_find(fn); i < hook_nbyfn && hook_byfn[i]->fn == fn && !has; i++)
		has = hook_byfn[i]->patched && !hook_byfn[i]->dead;
	pthread_mutex_unlock(&hook_lock);
	return has;
}

/* See engine.h: a block is found by its region (a few per module) and
 * the site index it holds; the table grows under the lock (hook_engine_grow
 * swaps it), so it is read with it. */
uintptr_t hook_engine_block_fn(uintptr_t addr)
{
	uintptr_t fn = 0;

	pthread_mutex_lock(&hook_lock);
	for (size_t i = 0; i < hook_g.nregions && fn == 0; i++) {
		const struct hook_region *r = &hook_g.regions[i];
		const struct hook_site *s;
		uint8_t *blk;
		uint32_t index;

		if (addr < (uintptr_t)r->base || addr >= (uintptr_t)r->base + r->nblk * HOOK_BLK_SIZE)
			continue;
		blk = hook_tramp_blk(r, (addr - (uintptr_t)r->base) / HOOK_BLK_SIZE);
		memcpy(&index, blk + HOOK_BLK_INDEX, sizeof index);   /* a trap fill where unused */
		s = index < hook_g.nsites ? hook_g.sites[index] : NULL;
		if (s != NULL && s->blk == blk)
			fn = s->fn;
	}
	pthread_mutex_unlock(&hook_lock);
	return fn;
}

const struct collector_ops hook_collector = {
	.name      = "hook",
	.init      = hook_init,
	.set_level = hook_set_level,
};
