/*
 * hook_unwind.c - keep unwinders working through timed calls.
 *
 * A timed call's return address is its site block's return point, which
 * has no unwind information, so an unwinder walking the stack stops there: a
 * C++ exception thrown through it would terminate the program, pthread_exit
 * and pthread_cancel would end the thread without running the cleanups of
 * the frames above it, backtrace() would end there.  Every one of them goes
 * through libgcc_s's unwinder entry points (glibc reaches them through its
 * own dlopen and dlsym of libgcc_s, so no symbol interposition or GOT entry
 * catches pthread_exit, pthread_cancel or backtrace; and an attached agent
 * interposes nothing).  So the engine patches those entry points themselves,
 * as sites of their own: the block's switch holds one of the wrappers below
 * for good, and the block's relocated prologue is the original function.
 * Each wrapper first puts the real return addresses back (tm_site_unhook,
 * timing_shadow.c):
 *   _Unwind_RaiseException, _Unwind_Resume_or_Rethrow (throw, rethrow),
 *   _Unwind_ForcedUnwind (pthread_exit, pthread_cancel): the frames are
 *     detached for good, since the walk does not come back; their calls are
 *     still counted, when they are seen to have returned;
 *   _Unwind_Backtrace (glibc's backtrace, and direct users): the blocks'
 *     return points go back in after the walk, and the wrapper's own frame
 *     is hidden from the callback.
 * libgcc_s is loaded (and kept) when the engine first patches, which glibc
 * would do anyway at the first pthread_exit, cancel or backtrace.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <unwind.h>

#include "agent.h"
#include "hook.h"
#include "hook_int.h"
#include "timing.h"

#define HOOK_UNWIND_LIB "libgcc_s.so.1"
typedef _Unwind_Reason_Code (*hook_raise_fn)(struct _Unwind_Exception *);
typedef _Unwind_Reason_Code (*hook_forced_fn)(struct _Unwind_Exception *, _Unwind_Stop_Fn, void *);
typedef _Unwind_Reason_Code (*hook_bt_fn)(_Unwind_Trace_Fn, void *);

enum { HOOK_UW_RAISE, HOOK_UW_RETHROW, HOOK_UW_FORCED, HOOK_UW_BT, HOOK_UW_COUNT };

/* The originals: each wrap site's relocated prologue (its block + 32). */
static uintptr_t hook_uw_orig[HOOK_UW_COUNT];

/* C++ throw (phase 1 and 2 walk the whole stack). */
static _Unwind_Reason_Code hook_uw_raise(struct _Unwind_Exception *e)
{
	tm_site_unhook(true, NULL, 0);
	return ((hook_raise_fn)hook_uw_orig[HOOK_UW_RAISE])(e);
}

/* C++ rethrow (`throw;`). */
static _Unwind_Reason_Code hook_uw_rethrow(struct _Unwind_Exception *e)
{
	tm_site_unhook(true, NULL, 0);
	return ((hook_raise_fn)hook_uw_orig[HOOK_UW_RETHROW])(e);
}

/* pthread_exit and cancellation: glibc's forced unwind of the thread. */
static _Unwind_Reason_Code hook_uw_forced(struct _Unwind_Exception *e, _Unwind_Stop_Fn stop,
    void *arg)
{
	tm_site_unhook(true, NULL, 0);
	return ((hook_forced_fn)hook_uw_orig[HOOK_UW_FORCED])(e, stop, arg);
}

/* The caller's callback, behind one frame to skip (the wrapper's). */
struct hook_uw_trace {
	_Unwind_Trace_Fn fn;
	void            *arg;
	int              skip;
};

static _Unwind_Reason_Code hook_uw_trace_cb(struct _Unwind_Context *c, void *p)
{
	struct hook_uw_trace *t = p;

	if (t->skip > 0) {
		t->skip--;
		return _URC_NO_REASON;
	}
	return t->fn(c, t->arg);
}

/* A stack walk that comes back: real return addresses during the walk
 * only.  The walk starts at its caller, this wrapper: hidden. */
static _Unwind_Reason_Code hook_uw_backtrace(_Unwind_Trace_Fn fn, void *arg)
{
	struct hook_uw_trace t = { .fn = fn, .arg = arg, .skip = 1 };
	uint32_t done[TM_STACK];
	_Unwind_Reason_Code r;
	size_t n;

	n = tm_site_unhook(false, done, TM_STACK);
	r = ((hook_bt_fn)hook_uw_orig[HOOK_UW_BT])(hook_uw_trace_cb, &t);
	tm_site_rehook(done, n);
	return r;
}

static const struct {
	const char *name;
	void       *wrapper;
} hook_uw_table[HOOK_UW_COUNT] = {
	[HOOK_UW_RAISE]   = { "_Unwind_RaiseException",    (void *)hook_uw_raise },
	[HOOK_UW_RETHROW] = { "_Unwind_Resume_or_Rethrow", (void *)hook_uw_rethrow },
	[HOOK_UW_FORCED]  = { "_Unwind_ForcedUnwind",      (void *)hook_uw_forced },
	[HOOK_UW_BT]      = { "_Unwind_Backtrace",         (void *)hook_uw_backtrace },
};

/* See hook_int.h.  Before the modules are scanned, so libgcc_s is among
 * them. */
void hook_unwind_load(void)
{
	if (dlopen(HOOK_UNWIND_LIB, RTLD_NOW | RTLD_NODELETE) == NULL)
		agent_warn("hook: cannot load %s (%s): exceptions, pthread_exit and backtrace() "
		    "through timed calls will not work", HOOK_UNWIND_LIB, dlerror());
}

/* The module of g that holds address a, or -1. */
static int hook_unwind_mod(const struct hook_engine *g, uintptr_t a)
{
	for (int i = 0; i < g->mods->n; i++)
		if (hook_mod_exec(&g->mods->m[i], a, 1))
			return i;
	return -1;
}

/* See hook_int.h. */
void hook_unwind_prepare(struct hook_engine *g)
{
	void *h = dlopen(HOOK_UNWIND_LIB, RTLD_NOW | RTLD_NOLOAD);
	struct hook_region r;
	size_t first;
	int mi = -1, k = 0;

	if (h == NULL)
		return;
	for (int i = 0; i < HOOK_UW_COUNT && mi < 0; i++) {
		void *fn = dlsym(h, hook_uw_table[i].name);

		if (fn != NULL)
			mi = hook_unwind_mod(g, (uintptr_t)fn);
	}
	if (mi < 0 || hook_tramp_map(g->mods->m[mi].lo, g->mods->m[mi].hi, HOOK_UW_COUNT, &r) < 0) {
		agent_warn("hook: %s: no room for the unwinder wrappers", HOOK_UNWIND_LIB);
		dlclose(h);
		return;
	}
	hook_engine_grow(g, HOOK_UW_COUNT);
	first = g->nsites;
	for (int i = 0; i < HOOK_UW_COUNT; i++) {
		const ElfW(Sym) *sym = NULL;
		struct hook_plan p;
		struct hook_site *s;
		enum hook_why why;
		Dl_info info;
		void *fn = dlsym(h, hook_uw_table[i].name);

		if (fn == NULL || dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 ||
		    sym == NULL || hook_unwind_mod(g, (uintptr_t)fn) != mi)
			why = HOOK_R_DECODE;
		else if ((why = hook_backend.plan(fn, sym->st_size, (uintptr_t)fn,
		    (uintptr_t)hook_tramp_blk(&r, (size_t)k) + HOOK_BLK_HEAD, &p)) == HOOK_OK)
			why = hook_backend.sweep(fn, sym->st_size, (uintptr_t)fn, p.n);
		if (why != HOOK_OK) {
			agent_warn("hook: cannot wrap %s (%s): it will not see through timed calls",
			    hook_uw_table[i].name, hook_why_name(why));
			continue;
		}
		s = xcalloc(1, sizeof *s);
		g->sites[g->nsites++] = s;
		s->fn = (uintptr_t)fn;
		s->name = hook_uw_table[i].name;
		s->n = p.n;
		s->entry = p.entry;
		s->mod = mi;
		s->kind = HOOK_K_WRAP;
		s->bounds = p.bounds;
		hook_tramp_fill(&r, (size_t)k++, (uint32_t)(g->nsites - 1), s, &p);
		hook_uw_orig[i] = s->reloc;
		__atomic_store_n(s->sw, (uintptr_t)hook_uw_table[i].wrapper, __ATOMIC_RELEASE);
	}
	hook_engine_seal(g, &r, first, HOOK_UNWIND_LIB);
	dlclose(h);             /* RTLD_NODELETE: it stays */
}
