/*
 * hook_patch.c - find the functions of the program's own modules and patch
 * them, once, with every other thread stopped.
 *
 * Own modules: the executable and every library outside the system library
 * directories, but not the agent itself.  A module that imports
 * __cyg_profile_func_enter (built with -finstrument-functions) is own but
 * not patched: the timing hooks already see its functions; it gets import
 * sites only.  Candidates: the function symbols of the module's
 * symbol table (symbols.h) that lie in an executable segment.  The slow part
 * (symbols, decoding, writing the blocks) runs while the target runs; only
 * the 5-byte writes happen with the threads stopped (hook_write.c).  A module whose
 * compiler left one 5-byte NOP per function and a table of them goes to
 * hook_nop.c instead: no relocation and no stop (its code is rewritten live
 * by hook_live_sync, after each level change).  Each own module's calls into
 * system libraries get import sites (hook_got.c).  Modules dlopened later are
 * patched by hook_engine_rescan, called from the dlopen wrapper (hook_wrap.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "hook.h"
#include "hook_int.h"
#include "protocol.h"
#include "symbols.h"



/* See hook_int.h. */
void hook_mod_describe(const struct dl_phdr_info *info, struct hook_mod *m)
{
	m->bias = info->dlpi_addr;
	m->lo = UINTPTR_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = m->bias + ph->p_vaddr, e = s + ph->p_memsz;

		if (ph->p_type == PT_GNU_RELRO) {
			m->relro_start = s;
			m->relro_end = e;
		}
		if (ph->p_type == PT_DYNAMIC)
			m->dyn = s;
		if (ph->p_type != PT_LOAD)
			continue;
		if (s < m->lo)
			m->lo = s;
		if (e > m->hi)
			m->hi = e;
		if ((ph->p_flags & PF_X) && m->nsegs < HOOK_MAX_SEGS) {
			m->segs[m->nsegs].start = s;
			m->segs[m->nsegs].end = e;
			m->segs[m->nsegs].prot = PROT_EXEC | (ph->p_flags & PF_R ? PROT_READ : 0) |
			    (ph->p_flags & PF_W ? PROT_WRITE : 0);
			m->nsegs++;
		}
	}
}

/* dl_iterate_phdr callback: note each module's executable segments. */
/* The modules loaded now, read at each scan and forget (under the engine's
 * lock): 64 paths of 4 KB, not allocated and cleared each time. */
static struct hook_mods hook_mods_now;

static int hook_mods_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct hook_mods *ms = arg;
	struct hook_mod *m;

	(void)size;
	if (ms->n >= HOOK_MAX_MODS)
		return 1;
	m = &ms->m[ms->n];
	memset(m, 0, sizeof *m);
	if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0') {
		if (ms->n != 0)
			return 0;       /* only the first nameless one is the program */
		ssize_t k = readlink("/proc/self/exe", m->path, sizeof m->path - 1);

		if (k <= 0)
			return 0;
		m->path[k] = '\0';
	} else {
		snprintf(m->path, sizeof m->path, "%s", info->dlpi_name);
	}
	hook_mod_describe(info, m);
	ms->n++;
	return 0;
}

/* See engine.h. */
void hook_mods_read(struct hook_mods *ms)
{
	uintptr_t self = (uintptr_t)hook_mods_read;

	ms->n = 0;
	dl_iterate_phdr(hook_mods_cb, ms);
	for (int i = 0; i < ms->n; i++)
		ms->m[i].agent = self >= ms->m[i].lo && self < ms->m[i].hi;
}

/* Is the module one of the program's own (see the top of the file)?  The
 * executable (idx 0) always is, wherever it lives (/usr/bin/sqlite3, or a
 * program under /usr/lib/...). */
static bool hook_mod_own(struct hook_mod *m, int idx)
{
	static const char *const sys[] = { "/lib/", "/usr/lib/", "/lib64/", "/usr/lib64/" };

	if (m->nsegs == 0 || (idx != 0 && strchr(m->path, '/') == NULL))
		return false;           /* the vdso */
	if (m->agent)
		return false;
	for (size_t i = 0; i < sizeof sys / sizeof sys[0] && idx != 0; i++)
		if (strncmp(m->path, sys[i], strlen(sys[i])) == 0)
			return false;
	if (hook_dyn_has_import(m, "__cyg_profile_func_enter")) {
		agent_log("hook: %s is built with -finstrument-functions: timed by its own "
		    "hooks, not patched (its library calls get import sites)", m->path);
		m->finstr = true;
	}
	return true;
}

/* See hook_int.h. */
bool hook_mod_exec(const struct hook_mod *m, uintptr_t a, size_t len)
{
	for (int i = 0; i < m->nsegs; i++)
		if (a >= m->segs[i].start && a + len <= m->segs[i].end)
			return true;
	return false;
}

/* Is this symbol a function entered by a call?  Not gcc's split-off cold
 * parts (NAME.cold, NAME.cold.N): they are reached by a jump from their
 * function, with no return address on top of the stack to replace.  Not
 * _start, which is never called and never returns. */
static bool hook_sym_entry(const char *name)
{
	const char *c = strstr(name, ".cold");

	if (c != NULL && (c[5] == '\0' || c[5] == '.'))
		return false;
	return strcmp(name, "_start") != 0;
}

/* The symbols [i, end) of t (sorted by address) that one region serves:
 * all of them in a module smaller than half the branch reach (the region
 * is then in reach of all of it, data too, as the relocated prologues'
 * PC-relative forms may need), else those whose functions lie within half
 * the reach of the first one's start.  Returns end; [*lo, *hi) is what the
 * region must be in reach of; *ncand gets how many are candidates (a block
 * each). */
static size_t hook_mod_part(const struct hook_mod *m, const struct symtab *t, size_t i,
    uintptr_t *lo, uintptr_t *hi, size_t *ncand)
{
	bool whole = m->hi - m->lo < HOOK_REACH / 2;
	size_t end = i;

	*ncand = 0;
	for (; end < t->n && (whole || end == i ||
	    t->syms[end].offset + t->syms[end].size - t->syms[i].offset < HOOK_REACH / 2); end++)
		*ncand += t->syms[end].size >= HOOK_PATCH_LEN;
	*lo = whole ? m->lo : m->bias + t->syms[i].offset;
	*hi = whole ? m->hi : m->bias + t->syms[end - 1].offset + t->syms[end - 1].size;
	return end;
}

/* Plan and write the blocks of the functions of symbols [i, end) of module
 * m (ncand candidates), in a region in reach of [lo, hi) or, where the
 * back-end has a far entry, anywhere; the sites are appended to the
 * engine's table (not patched yet). */
static void hook_mod_prepare_part(const struct hook_mod *m, struct hook_engine *g,
    const struct symtab *t, size_t i, size_t end, uintptr_t lo, uintptr_t hi, size_t ncand)
{
	struct hook_region r;
	size_t k = 0, first;

	if (hook_tramp_map(lo, hi, ncand, &r) < 0 &&
	    (HOOK_PATCH_MAX == HOOK_PATCH_LEN || hook_tramp_map_any(ncand, &r) < 0)) {
		g->refused[HOOK_R_NEAR] += ncand;
		agent_log("hook: %s: %s", m->path, hook_why_name(HOOK_R_NEAR));
		return;
	}
	hook_engine_grow(g, ncand);
	first = g->nsites;
	for (; i < end; i++) {
		const struct symtab_sym *y = &t->syms[i];
		struct hook_site *s;
		struct hook_plan p;
		uintptr_t fn = m->bias + y->offset;
		enum hook_why why;

		if (y->size < HOOK_PATCH_LEN)
			continue;
		if (!hook_mod_exec(m, fn, y->size) || !hook_sym_entry(y->name)) {
			k++;
			continue;
		}
		why = hook_backend.plan((const uint8_t *)fn, y->size, fn,
		    (uintptr_t)hook_tramp_blk(&r, k) + HOOK_BLK_HEAD, &p);
		if (why != HOOK_OK) {
			g->refused[why]++;
			agent_log("hook: %s: %s", y->name, hook_why_name(why));
			k++;
			continue;
		}
		s = xcalloc(1, sizeof *s);
		g->sites[g->nsites++] = s;
		s->fn = fn;
		s->name = y->name;
		s->n = p.n;
		s->size = y->size;
		s->entry = p.entry;
		s->global = y->bind != SYM_BIND_LOCAL;
		s->exported = s->global && y->vis == SYM_VIS_DEFAULT;
		s->mod = (int)(m - g->mods->m);
		s->bounds = p.bounds;
		hook_tramp_fill(&r, k++, (uint32_t)(g->nsites - 1), s, &p);
	}
	hook_engine_seal(g, &r, first, m->path);
}

/* Plan and write the blocks of one module's functions, one region per part
 * of it (hook_mod_part). */
static void hook_mod_prepare(const struct hook_mod *m, struct hook_engine *g)
{
	struct symtab *t = NULL;
	char err[256];

	if (symtab_load_module(m->path, &t, err, sizeof err) < 0) {
		agent_log("hook: %s: %s", m->path, err);
		return;
	}
	if (g->ntabs == g->captabs) {
		g->captabs = g->captabs ? g->captabs * 2 : HOOK_MAX_MODS;
		g->tabs = xrealloc(g->tabs, g->captabs * sizeof *g->tabs);
	}
	g->tabs[g->ntabs++] = t;
	if (hook_nop_prepare(g, m, t) == 0)
		return;         /* compiler-assisted sites (hook_nop.c) */
	for (size_t i = 0; i < t->n; i++)
		g->refused[HOOK_R_SHORT] += t->syms[i].size < HOOK_PATCH_LEN;
	for (size_t i = 0, end, ncand; i < t->n; i = end) {
		uintptr_t lo, hi;

		end = hook_mod_part(m, t, i, &lo, &hi, &ncand);
		if (ncand > 0)
			hook_mod_prepare_part(m, g, t, i, end, lo, hi, ncand);
	}
}

/* See hook_int.h. */
int hook_mod_protect(const struct hook_mod *m, bool writable)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (int i = 0; i < m->nsegs; i++) {
		uintptr_t a = m->segs[i].start & ~(pg - 1);
		int prot = writable ? PROT_READ | PROT_WRITE | PROT_EXEC : m->segs[i].prot;

		if (mprotect((void *)a, m->segs[i].end - a, prot) != 0)
			return -1;
	}
	return 0;
}

/* Modules of g no longer in now were dlclosed: their sites die (never
 * written again: the addresses may belong to another module by now), and a
 * reload of the same file is a new module. */
static void hook_engine_gone(struct hook_engine *g, const struct hook_mods *now)
{
	for (int k = 0; k < g->mods->n; k++) {
		bool there = g->mods->m[k].path[0] == '\0';

		for (int i = 0; i < now->n && !there; i++)
			there = g->mods->m[k].bias == now->m[i].bias &&
			    strcmp(g->mods->m[k].path, now->m[i].path) == 0;
		if (there)
			continue;
		g->mods->m[k].path[0] = '\0';
		for (size_t i = 0; i < g->nsites; i++) {
			struct hook_site *s = g->sites[i];

			if (s->mod == k) {
				if (s->patched && !s->gone)     /* before the reporter looks: hook_engine_gone_name */
					__atomic_add_fetch(&g->ngone, 1, __ATOMIC_RELEASE);
				s->gone |= s->patched;
				s->dead = true;
				s->patched = s->on = s->code_on = false;
			}
		}
	}
}

/* See hook_int.h. */
void hook_engine_forget(struct hook_engine *g)
{
	if (g->mods == NULL)
		return;
	hook_mods_now.n = 0;
	dl_iterate_phdr(hook_mods_cb, &hook_mods_now);
	hook_engine_gone(g, &hook_mods_now);
}

/* Add the modules loaded since the last scan to the engine's list, decide
 * which are own, then prepare their sites (all flags first: the import
 * sites need to know which targets are own).  How many were added. */
static int hook_engine_scan(struct hook_engine *g)
{
	struct hook_mods *now = &hook_mods_now;
	uintptr_t self = (uintptr_t)hook_engine_scan;
	int added[HOOK_MAX_MODS], nadded = 0;

	now->n = 0;
	dl_iterate_phdr(hook_mods_cb, now);
	hook_engine_gone(g, now);
	for (int i = 0; i < now->n; i++) {
		struct hook_mod *m = &now->m[i];
		bool known = false;
		int slot = g->mods->n;

		for (int k = 0; k < g->mods->n && !known; k++)
			known = g->mods->m[k].bias == m->bias &&
			    strcmp(g->mods->m[k].path, m->path) == 0;
		if (known)
			continue;
		/* The list is full: reuse the slot of a module dlclosed since
		 * (its sites are dead, never written again). */
		for (int k = 1; slot >= HOOK_MAX_MODS && k < g->mods->n; k++)
			if (g->mods->m[k].path[0] == '\0')
				slot = k;
		if (slot >= HOOK_MAX_MODS) {
			agent_log("hook: more than %d modules: %s not patched", HOOK_MAX_MODS, m->path);
			continue;
		}
		m->agent = self >= m->lo && self < m->hi;
		m->own = hook_mod_own(m, slot);
		g->mods->m[slot] = *m;
		if (slot == g->mods->n)
			g->mods->n++;
		added[nadded++] = slot;
	}
	for (int k = 0; k < nadded; k++)
		hook_got_bind(g, added[k]);
	for (int k = 0; k < nadded; k++)
		if (g->mods->m[added[k]].own) {
			if (!g->mods->m[added[k]].finstr)
				hook_mod_prepare(&g->mods->m[added[k]], g);
			hook_got_prepare(g, added[k]);
		}
	return nadded;
}

/* See hook_int.h. */
void hook_engine_patch(struct hook_engine *g)
{
	uint64_t t0 = proto_now_ns(), t1;

	g->mods = xcalloc(1, sizeof *g->mods);
	hook_unwind_load();
	hook_engine_scan(g);
	hook_unwind_prepare(g);
	t1 = proto_now_ns();
	hook_engine_write(g);
	g->stop_ns = proto_now_ns() - t1;
	g->prep_ns = t1 - t0;
}

/* See hook_int.h. */
void hook_engine_rescan(struct hook_engine *g)
{
	uint64_t t0 = proto_now_ns(), t1;
	size_t before = g->nsites;
	int added;

	if (g->mods == NULL)
		return;
	added = hook_engine_scan(g);
	t1 = proto_now_ns();
	hook_engine_write(g);
	g->stop_ns += proto_now_ns() - t1;
	g->prep_ns += t1 - t0;
	if (added > 0)
		agent_log("hook: %d modules loaded later; %zu new sites", added, g->nsites - before);
}
