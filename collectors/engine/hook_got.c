/*
 * hook_got.c - level 3: the program's calls into system libraries, timed per
 * library function by patching the GOT of its own modules.
 *
 * For every jump-slot and GOT-data relocation (the back-end's rel_jump_slot,
 * rel_glob_dat) of a
 * function symbol in an own module whose bound target lies in a module that
 * is not own (a system library; not the agent), the GOT entry is replaced
 * (mprotect over RELRO, one 8-byte atomic store) by the address of a
 * per-import block in a trampoline region: the same block as a prologue
 * site's (hook.h) whose "relocated prologue" is the back-end's absolute
 * branch (jump_abs) to the real function, so the call is timed by the same stubs and frames as any site, under the
 * library function's own address (the report names it by the library's
 * symbol, module = the library).  The site's name, for the log, is
 * "function@libname".  A level below 3, or the overhead budget, flips the
 * switch; an entry only called through (JUMP_SLOT, or a wrapper's pointer)
 * then follows it (hook_got_sync): the block while the site is watched, the
 * function itself while not, so an unwatched import costs its calls nothing
 * (the block's disabled path is two indirect jumps, on every libc call an
 * interpreter makes).  A GLOB_DAT entry keeps the block: its value may be
 * kept as a function pointer and compared.
 *
 * Attach mode (hook_got_bind): an attached agent interposes nothing, so
 * every module's PLT calls of dlopen and dlclose are bound to the agent's
 * wrappers in its GOT, and given back at detach.
 *
 * Lazy binding: a JUMP_SLOT not yet bound still points into the module's own
 * PLT.  Keeping that as the continuation would let the loader's resolver
 * overwrite our entry on the first call, so the target is resolved now with
 * dlsym on the module's own handle (its lookup scope), or dlvsym with the
 * version the module requires (hook_got_resolve).  A resolver running concurrently in another
 * thread may still overwrite the entry with the real target: that import is
 * then untimed (no harm).  Functions that must see their real return address
 * or never return (setjmp family, vfork, dlsym, exit, ...) are left alone.
 * Function pointers taken through a GLOB_DAT entry point at the block: calls
 * through them are timed, comparisons with the library's address differ.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent.h"
#include "bind.h"
#include "hook.h"
#include "hook_int.h"
#include "protocol.h"


/* Imports never redirected: they read or replace their return address, never
 * return, return twice, or are part of the agent's own machinery. */
static const char *const hook_got_deny[] = {
	"setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "longjmp", "_longjmp", "siglongjmp",
	"__longjmp_chk", "vfork", "clone", "clone3", "__libc_start_main", "exit", "_exit", "_Exit",
	"abort", "pthread_exit", "__cxa_throw", "__cxa_rethrow", "__cxa_finalize", "getcontext",
	"setcontext", "swapcontext", "makecontext", "dlopen", "dlmopen", "dlclose", "dlsym", "dlvsym",
	"__tls_get_addr", "__stack_chk_fail", "__assert_fail", "__fortify_fail", "__gmon_start__",
	"backtrace", "__cyg_profile_func_enter", "__cyg_profile_func_exit",
};

/* Is name on the deny list (or an unwinder entry)? */
static bool hook_got_denied(const char *name)
{
	if (strncmp(name, "_Unwind_", 8) == 0 || strncmp(name, "_ITM_", 5) == 0)
		return true;
	for (size_t i = 0; i < sizeof hook_got_deny / sizeof hook_got_deny[0]; i++)
		if (strcmp(name, hook_got_deny[i]) == 0)
			return true;
	return false;
}

/* The module of mods containing addr, or -1. */
static int hook_got_owner(const struct hook_mods *ms, uintptr_t addr)
{
	for (int i = 0; i < ms->n; i++)
		if (addr >= ms->m[i].lo && addr < ms->m[i].hi)
			return i;
	return -1;
}

/* The library's file name (last path part), for site names. */
static const char *hook_got_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b != NULL ? b + 1 : path;
}

/* Do a and b lie in the same loaded object? */
static bool hook_got_same_object(void *a, void *b)
{
	Dl_info ia, ib;

	return dladdr(a, &ia) != 0 && dladdr(b, &ib) != 0 && ia.dli_fbase == ib.dli_fbase;
}

/* Resolve an import not bound yet, in the lookup scope of module m: the
 * first definition, as the loader binds it.  An unversioned definition
 * earlier in the scope (a sanitizer runtime's calloc) satisfies a versioned
 * reference, but dlvsym skips it; so the required version is taken only
 * when it names a definition of the same object (a library's older
 * version of the symbol). */
static uintptr_t hook_got_resolve(const struct hook_mod *m, bool main, const struct hook_got_imp *imp)
{
	void *h = dlopen(main ? NULL : m->path, RTLD_LAZY | RTLD_NOLOAD);
	void *p, *v = NULL;

	if (h == NULL)
		return 0;
	p = dlsym(h, imp->name);
	if (imp->ver != NULL)
		v = dlvsym(h, imp->name, imp->ver);
	if (p == NULL || (v != NULL && v != p && hook_got_same_object(p, v)))
		p = v;
	dlclose(h);
	return (uintptr_t)p;
}

/* The pages of m's RELRO part the loader made read-only, [*lo, *hi); false
 * when there are none. */
static bool hook_got_relro(const struct hook_mod *m, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	*lo = m->relro_start & ~(pg - 1);
	*hi = m->relro_end & ~(pg - 1);
	return m->relro_end > m->relro_start && *hi > *lo;
}

/* Store v into the GOT entry at slot: the page made writable for the
 * store, read-only again when it lies in the module's RELRO part. */
static int hook_got_store(const struct hook_mod *m, uintptr_t slot, uintptr_t v)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), page = slot & ~(pg - 1), lo, hi;
	bool ro = hook_got_relro(m, &lo, &hi) && page >= lo && page + pg <= hi;

	if (ro && mprotect((void *)page, pg, PROT_READ | PROT_WRITE) != 0)
		return -1;
	__atomic_store_n((uintptr_t *)slot, v, __ATOMIC_RELEASE);
	if (ro && mprotect((void *)page, pg, PROT_READ) != 0)
		return -1;
	return 0;
}

/* A run of GOT stores into one module after another: each module's RELRO
 * part made writable once for its run (in a threaded process every
 * mprotect is a TLB shootdown on the other cores), else a store each. */
struct hook_got_batch {
	const struct hook_mod *m;       /* the module of the run, NULL: none */
	bool writable;                  /* its RELRO part is writable now */
	uintptr_t lo, hi;
};

/* End the batch's run: its module's RELRO part read-only again. */
static void hook_got_batch_end(struct hook_got_batch *b)
{
	if (b->writable && mprotect((void *)b->lo, b->hi - b->lo, PROT_READ) != 0)
		agent_warn("hook: cannot make the GOT of %s read-only again: %s", b->m->path,
		    strerror(errno));
	b->m = NULL;
	b->writable = false;
}

/* Store v into m's GOT entry at slot within the batch. */
static int hook_got_batch_store(struct hook_got_batch *b, const struct hook_mod *m, uintptr_t *slot,
    uintptr_t v)
{
	if (b->m != m) {
		hook_got_batch_end(b);
		b->m = m;
		b->writable = hook_got_relro(m, &b->lo, &b->hi) &&
		    mprotect((void *)b->lo, b->hi - b->lo, PROT_READ | PROT_WRITE) == 0;
	}
	if (!b->writable)
		return hook_got_store(m, (uintptr_t)slot, v);
	__atomic_store_n(slot, v, __ATOMIC_RELEASE);
	return 0;
}

/* See hook_int.h.  An entry the program rewrote since is left alone.  Each
 * is one atomic store: threads may run meanwhile. */
void hook_got_unbind(struct hook_engine *g)
{
	/* Newest first: a wrapper bound on top of another gives the entry
	 * back to that one, which then gives it back to the library. */
	for (size_t i = g->nbinds; i-- > 0;) {
		struct hook_bind *b = &g->binds[i];

		if (b->mod < 0 || __atomic_load_n(b->slot, __ATOMIC_ACQUIRE) != b->mine)
			continue;
		if (hook_got_store(&g->mods->m[b->mod], (uintptr_t)b->slot, b->orig) < 0)
			agent_warn("hook: cannot restore the GOT of %s: %s", g->mods->m[b->mod].path,
			    strerror(errno));
		b->mod = -1;
	}
}

/* See hook_int.h. */
void hook_got_restore(struct hook_engine *g)
{
	hook_got_unbind(g);
	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];
		const struct hook_mod *m = &g->mods->m[s->mod];

		if (s->kind != HOOK_K_GOT || !s->patched ||
		    (*s->got_slot != (uintptr_t)s->blk && *s->got_slot != s->fn))
			continue;
		if (hook_got_store(m, (uintptr_t)s->got_slot, s->got_orig) < 0)
			agent_warn("hook: cannot restore the GOT of %s: %s", m->path,
			    strerror(errno));
		else
			s->patched = false;
	}
}

/* Calls an attached agent binds to its own wrappers (see hook_got_bind):
 * they return soon and hand out no pointer to themselves. */
static const char *const hook_got_bound[] = { "dlopen", "dlclose" };

/* The agent's own handle (preloaded or attached), looked up once. */
static void *hook_got_self(void)
{
	static void *self;
	Dl_info info;

	if (self == NULL && (self = agent_attach_handle()) == NULL &&
	    dladdr((void *)hook_got_self, &info) != 0 && info.dli_fname != NULL)
		self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	return self;
}

/* The agent's own definition of name (an export that interposes when the
 * agent is preloaded), or 0. */
static uintptr_t hook_got_mine(const struct hook_engine *g, const char *name)
{
	void *h = hook_got_self();
	uintptr_t p = h != NULL ? (uintptr_t)dlsym(h, name) : 0;

	for (int i = 0; p != 0 && i < g->mods->n; i++)
		if (g->mods->m[i].agent)
			return p >= g->mods->m[i].lo && p < g->mods->m[i].hi ? p : 0;
	return 0;
}

/* GOT entries bound to a wrapper (hook_got_wrap, bind tables), and where
 * the wrapper keeps the function it calls: hook_got_prepare times that
 * function by pointing the wrapper's pointer at the import site's block, so
 * a level-3 import stays timed under a wrapper.  Appended on the thread that
 * binds (the constructor, then the reporter or a dlopen under the engine's
 * lock), read by the engine; the count is published after the entry. */
struct hook_wrapped {
	uintptr_t  slot, wrapper, target;
	uintptr_t *real;
};
#define HOOK_WRAPPED_MAX 1024
static struct hook_wrapped hook_wrapped[HOOK_WRAPPED_MAX];
static size_t hook_nwrapped;

/* Remember that slot now holds wrapper, in front of target. */
static void hook_got_wrapped_add(uintptr_t slot, uintptr_t wrapper, uintptr_t target,
    uintptr_t *real)
{
	size_t w = hook_nwrapped;

	if (w < HOOK_WRAPPED_MAX) {
		hook_wrapped[w] = (struct hook_wrapped){ .slot = slot, .wrapper = wrapper,
			.target = target, .real = real };
		__atomic_store_n(&hook_nwrapped, w + 1, __ATOMIC_RELEASE);
	}
}

/* The function import imp of module m is bound to now: its GOT value, or
 * for an entry the loader has not bound yet, what it would bind (the
 * module's lookup scope first, then the global one); 0 if none. */
static uintptr_t hook_got_current(const struct hook_mod *m, bool main, const struct hook_got_imp *imp)
{
	uintptr_t cur = __atomic_load_n((uintptr_t *)imp->slot, __ATOMIC_ACQUIRE);

	if (cur >= m->lo && cur < m->hi) {
		cur = hook_got_resolve(m, main, imp);
		if (cur == 0)
			cur = (uintptr_t)dlsym(RTLD_DEFAULT, imp->name);
	}
	return cur;
}

/* Bind import imp of module mi to wrapper mine, whose real-function slot
 * is real (NULL: the engine's own, which look theirs up).  A wrapper bound
 * on top of another one (two collectors wrap the symbol) gets that one as
 * its real function: calls go through both.  1 if bound. */
static int hook_got_bind_one(struct hook_engine *g, int mi, const struct hook_got_imp *imp,
    uintptr_t mine, void **real)
{
	const struct hook_mod *m = &g->mods->m[mi];
	uintptr_t orig = __atomic_load_n((uintptr_t *)imp->slot, __ATOMIC_ACQUIRE), cur = 0;

	if (mine == 0 || orig == mine)
		return 0;
	if (real != NULL) {
		cur = hook_got_current(m, mi == 0, imp);
		if (cur == 0 || cur == mine)
			return 0;
		if (__atomic_load_n(real, __ATOMIC_ACQUIRE) == NULL)
			__atomic_store_n(real, (void *)cur, __ATOMIC_RELEASE);
		else
			cur = (uintptr_t)*real;
	}
	if (hook_got_store(m, imp->slot, mine) < 0)
		return 0;
	if (real != NULL)
		hook_got_wrapped_add(imp->slot, mine, cur, (uintptr_t *)real);
	g->binds = xrealloc(g->binds, (g->nbinds + 1) * sizeof *g->binds);
	g->binds[g->nbinds++] = (struct hook_bind){
		.slot = (uintptr_t *)imp->slot, .orig = orig, .mine = mine, .mod = mi };
	return 1;
}

/* See hook_int.h.  An attached agent interposes nothing (it is loaded after
 * everything, RTLD_LOCAL), so the PLT calls of module mi that the agent must
 * see are bound to its wrappers in the module's GOT: the engine's dlopen and
 * dlclose, and every collector's bind table (bind.h) whose scope holds the
 * module, in the order the tables were added.  GLOB_DAT entries are left:
 * their value may be kept as a pointer.  A wrapper's real function is the
 * value of the first entry it replaced.  Every entry is given back at
 * detach (hook_got_unbind). */
void hook_got_bind(struct hook_engine *g, int mi)
{
	const struct hook_mod *m = &g->mods->m[mi];
	struct hook_got_imp *imps;
	int n, bound = 0;

	if (!agent_attached() || m->agent)
		return;
	n = hook_dyn_imports(m, &imps);
	for (int i = 0; i < n; i++) {
		bool engine = false;

		if (!imps[i].call)
			continue;
		for (size_t k = 0; k < sizeof hook_got_bound / sizeof hook_got_bound[0]; k++)
			engine |= strcmp(imps[i].name, hook_got_bound[k]) == 0;
		if (engine) {
			bound += hook_got_bind_one(g, mi, &imps[i], hook_got_mine(g, imps[i].name), NULL);
			continue;
		}
		for (size_t k = 0; k < bind_ntables(); k++) {
			const struct bind_fn *f = bind_find(k, imps[i].name, m->path, m->own);

			if (f != NULL)
				bound += hook_got_bind_one(g, mi, &imps[i], (uintptr_t)f->wrapper, f->real);
		}
	}
	if (bound > 0)
		agent_log("hook: %s: %d calls bound to the agent's wrappers", m->path, bound);
	free(imps);
}

/* The wrapper's pointer for a GOT entry that holds a hook_got_wrap
 * wrapper (*cur becomes the function behind it), or NULL. */
static uintptr_t *hook_got_wrapped(uintptr_t slot, uintptr_t *cur)
{
	size_t n = __atomic_load_n(&hook_nwrapped, __ATOMIC_ACQUIRE);

	for (size_t i = 0; i < n; i++)
		if (hook_wrapped[i].slot == slot && hook_wrapped[i].wrapper == *cur) {
			*cur = hook_wrapped[i].target;
			return hook_wrapped[i].real;
		}
	return NULL;
}

/* See hook_int.h. */
void hook_got_prepare(struct hook_engine *g, int mi)
{
	const struct hook_mod *m = &g->mods->m[mi];
	struct hook_got_imp *imps;
	struct hook_region r;
	struct hook_got_batch batch = { 0 };
	int n, done = 0;

	n = hook_dyn_imports(m, &imps);
	/* near the module if it can (as every region), else anywhere: a GOT
	 * entry holds the block's whole address */
	if (n <= 0 || (hook_tramp_map(m->lo, m->hi, (size_t)n, &r) < 0 &&
	    hook_tramp_map_any((size_t)n, &r) < 0)) {
		if (n > 0)
			agent_log("hook: %s: no room for the import stubs", m->path);
		goto out;
	}
	hook_engine_grow(g, (size_t)n);
	for (int i = 0; i < n; i++) {
		uintptr_t cur = __atomic_load_n((uintptr_t *)imps[i].slot, __ATOMIC_ACQUIRE);
		struct hook_plan p = { .n = 0 };
		struct hook_site *s;
		uintptr_t *via;
		char name[512];
		int owner;

		if (cur == 0 || hook_got_denied(imps[i].name))
			continue;
		/* Bound to a power wrapper: time what the wrapper calls (once:
		 * its pointer is shared by every module's entries). */
		if ((via = hook_got_wrapped(imps[i].slot, &cur)) != NULL &&
		    __atomic_load_n(via, __ATOMIC_ACQUIRE) != cur)
			continue;
		/* Lazy: still the PLT.  A function the preloaded agent wraps
		 * binds to the wrapper on its first call: left alone (dlvsym
		 * with the module's version would pass the unversioned wrapper
		 * by and go to libc). */
		if (cur >= m->lo && cur < m->hi) {
			if (!agent_attached() && hook_got_mine(g, imps[i].name) != 0)
				continue;
			cur = hook_got_resolve(m, mi == 0, &imps[i]);
		}
		owner = cur != 0 ? hook_got_owner(g->mods, cur) : -1;
		if (owner < 0 || g->mods->m[owner].own || g->mods->m[owner].agent)
			continue;               /* own code has its own sites */
		p.len = hook_backend.jump_abs(p.out, cur);
		s = xcalloc(1, sizeof *s);
		snprintf(name, sizeof name, "%s@%s", imps[i].name,
		    hook_got_base(g->mods->m[owner].path));
		s->name = xstrdup(name);
		s->fn = cur;
		s->global = true;       /* level 3 and up */
		s->mod = mi;
		s->kind = HOOK_K_GOT;
		s->got_slot = via != NULL ? via : (uintptr_t *)imps[i].slot;
		s->got_call = via != NULL || imps[i].call;
		g->sites[g->nsites++] = s;
		hook_tramp_fill(&r, (size_t)done++, (uint32_t)(g->nsites - 1), s, &p);
	}
	if (hook_tramp_seal(&r) < 0) {
		agent_warn("hook: cannot make the import stubs of %s executable: %s", m->path,
		    strerror(errno));
		goto out;
	}
	for (size_t i = g->nsites - (size_t)done; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];

		s->got_orig = __atomic_load_n(s->got_slot, __ATOMIC_ACQUIRE);
		if (hook_got_batch_store(&batch, m, s->got_slot, (uintptr_t)s->blk) < 0) {
			agent_warn("hook: cannot write the GOT of %s: %s", m->path, strerror(errno));
			s->dead = true;
			continue;
		}
		s->patched = true;
	}
	hook_got_batch_end(&batch);
	agent_log("hook: %s: %d library imports redirected", m->path, done);
out:
	free(imps);
}

/* See hook_int.h.  Sites of one module are adjacent (prepared module by
 * module): one batch run per module. */
void hook_got_sync(struct hook_engine *g)
{
	struct hook_got_batch batch = { 0 };

	for (size_t i = 0; i < g->nsites; i++) {
		struct hook_site *s = g->sites[i];
		uintptr_t want, cur;

		if (s->kind != HOOK_K_GOT || !s->patched || s->dead || !s->got_call)
			continue;
		want = __atomic_load_n(s->sw, __ATOMIC_RELAXED) != s->reloc ? (uintptr_t)s->blk : s->fn;
		cur = __atomic_load_n(s->got_slot, __ATOMIC_ACQUIRE);
		if (cur == want || (cur != (uintptr_t)s->blk && cur != s->fn))
			continue;       /* in line, or the program's own value since */
		if (hook_got_batch_store(&batch, &g->mods->m[s->mod], s->got_slot, want) < 0)
			agent_warn("hook: cannot write the GOT of %s: %s", g->mods->m[s->mod].path,
			    strerror(errno));
	}
	hook_got_batch_end(&batch);
}

/* See engine.h.  The entries of functions the loader has not bound yet
 * are resolved here, as hook_got_prepare does, so the loader's resolver
 * cannot overwrite the wrapper later. */
int hook_got_wrap(const struct hook_mod *m, bool main, const char *const *names,
    const uintptr_t *wrappers, uintptr_t *reals, size_t n)
{
	struct hook_got_imp *imps;
	int nimp, bound = 0;

	if (m->agent)
		return -1;
	nimp = hook_dyn_imports(m, &imps);
	for (int i = 0; i < nimp; i++)
		for (size_t k = 0; k < n; k++) {
			uintptr_t cur;

			if (strcmp(imps[i].name, names[k]) != 0)
				continue;
			cur = __atomic_load_n((uintptr_t *)imps[i].slot, __ATOMIC_ACQUIRE);
			if (cur == wrappers[k])
				break;
			/* Lazy: what the loader would bind -- the first
			 * definition in the global scope, an unversioned
			 * interposer included (the agent's own wrapper of the
			 * name, a sanitizer runtime's interceptor, which dlvsym
			 * with the module's version would pass by). */
			if (cur >= m->lo && cur < m->hi) {
				void *p = dlsym(RTLD_DEFAULT, names[k]);

				cur = p != NULL ? (uintptr_t)p : hook_got_resolve(m, main, &imps[i]);
			}
			if (cur == 0)
				break;
			if (reals[k] == 0)
				__atomic_store_n(&reals[k], cur, __ATOMIC_RELEASE);
			if (hook_got_store(m, imps[i].slot, wrappers[k]) == 0) {
				bound++;
				hook_got_wrapped_add(imps[i].slot, wrappers[k], cur, &reals[k]);
			}
			break;
		}
	free(imps);
	return nimp < 0 ? -1 : bound;
}
