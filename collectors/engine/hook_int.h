/*
 * hook_int.h - the hook engine's state shared by hook_site.c (collector,
 * levels, switches) and hook_patch.c (modules, patching).
 */
#ifndef HOOKSCOPE_HOOK_INT_H
#define HOOKSCOPE_HOOK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "hook.h"

struct symtab;


/* A GOT entry bound to one of the agent's wrappers (attach mode). */
struct hook_bind {
	uintptr_t *slot;
	uintptr_t  orig, mine;
	int        mod;                   /* -1 once given back */
};

struct hook_engine {
	struct hook_mods *mods;           /* the modules seen at patch time */
	struct hook_site **sites;         /* one allocation each: blocks point at them */
	size_t            nsites, cap;
	struct hook_site **retired[32];   /* old tables, read by threads maybe still */
	int               nretired;
	struct symtab   **tabs;           /* kept: the sites name their strings */
	size_t            ntabs, captabs;
	struct hook_region *regions;      /* the sealed ones: blocks by address */
	size_t            nregions;
	struct hook_bind *binds;          /* attach mode: hook_got_bind */
	size_t            nbinds;
	size_t            refused[HOOK_R_COUNT];
	size_t            ngone;          /* sites gone with their module: read unlocked */
	uint64_t          prep_ns;        /* symbols, decoding, blocks */
	uint64_t          stop_ns;        /* the stopped part */
};

/* The engine (hook_site.c). */
extern struct hook_engine hook_g;

/* Seal region r, whose blocks belong to sites first.. (what: for the
 * message); if it cannot be made executable, those sites are dead. */
struct hook_region;
void hook_engine_seal(struct hook_engine *g, const struct hook_region *r, size_t first,
    const char *what);

/* Copy n bytes from or to live code; store one byte of it (the
 * back-end's, past the sanitizers). */
static inline void hook_code_copy(void *dst, const void *src, size_t n)
{
	hook_backend.code_copy(dst, src, n);
}

static inline void hook_code_store1(void *dst, uint8_t v)
{
	hook_backend.code_store1(dst, v);
}

/* Make room for n more site pointers. */
void hook_engine_grow(struct hook_engine *g, size_t n);


/* hook_cal.c: calibrate the site path's cost (timing.c) through the real
 * stubs; only before the first site exists. */
void hook_cal_run(struct hook_engine *g);

/* One function import of a loaded module (hook_dyn.c). */
struct hook_got_imp {
	uintptr_t   slot;             /* runtime address of the GOT entry */
	const char *name;             /* in the module's DT_STRTAB */
	const char *ver;              /* required version, or NULL */
	bool        call;             /* JUMP_SLOT (PLT calls), not GLOB_DAT */
	bool        own;              /* the module defines it too (an interposable call) */
};
/* The function imports of m (JUMP_SLOT, GLOB_DAT) from its dynamic section
 * into *outp (allocated; the caller frees it).  How many, or -1. */
int hook_dyn_imports(const struct hook_mod *m, struct hook_got_imp **outp);
/* Is sym among them, defined elsewhere (the agent's own calls of
 * __cyg_profile_func_enter do not make it an instrumented module)? */
bool hook_dyn_has_import(const struct hook_mod *m, const char *sym);
/* hook_patch.c: fill m's ranges, segments and dynamic section from info
 * (not its path); m is cleared by the caller. */
void hook_mod_describe(const struct dl_phdr_info *info, struct hook_mod *m);

/* hook_patch.c: find, plan and patch every candidate (once). */
void hook_engine_patch(struct hook_engine *g);
/* hook_patch.c: patch the own modules loaded since the last call (after a
 * dlopen); nothing before hook_engine_patch. */
void hook_engine_rescan(struct hook_engine *g);
/* hook_site.c: a dlopen succeeded: patch new modules at the current level. */
void hook_engine_loaded(void);
/* hook_site.c: run real(h) (dlclose) so that no level change or patching
 * runs meanwhile, then forget the modules it unloaded.  Its result. */
int  hook_engine_unloading(int (*real)(void *), void *h);
/* hook_patch.c: kill the sites of modules no longer loaded. */
void hook_engine_forget(struct hook_engine *g);
/* hook_got.c: redirect own module mi's GOT entries for functions of system
 * libraries to per-import sites (patched at once, switched off). */
void hook_got_prepare(struct hook_engine *g, int mi);
/* Make a module's executable segments writable (or back): 0 or -1. */
int  hook_mod_protect(const struct hook_mod *m, bool writable);
/* hook_pages.c: the pages of live code a batch of writes opens, written
 * through /proc/self/mem or made writable. */
struct hook_pages {
	struct { uintptr_t page; size_t len; int prot, seg; const struct hook_mod *mod; } *p;
	size_t n, cap;
	const struct hook_mod *failed;   /* the module whose pages could not be opened */
	int mem;                         /* /proc/self/mem's fd + 1 while written through it */
	bool lost;                       /* neither way writes: the batch's writes are dropped */
};
/* Add the pages holding [a, a + len) of module m to the batch. */
void hook_pages_add(struct hook_pages *ps, const struct hook_mod *m, uintptr_t a, size_t len);
/* Open the batch for hook_code_write: through /proc/self/mem where the
 * back-end and the kernel allow it, else every page made writable, adjacent
 * ones of a segment in one call: 0, or -1 with errno and failed set (none is
 * left open).  One batch is open at a time (the engine's lock). */
int  hook_pages_open(struct hook_pages *ps);
/* Give every page of the batch its protection back, and empty it. */
void hook_pages_close(struct hook_pages *ps);
/* Write n bytes of live code, or one, in the open batch. */
void hook_code_write(void *dst, const void *src, size_t n);
void hook_code_put1(void *dst, uint8_t v);
/* Write like hook_code_write, perhaps not before the next hook_code_flush
 * (or the batch's close): writes at rising addresses of one page go in one
 * write through /proc/self/mem, with the code's bytes between them, written
 * back as they are: only the engine writes code (under its lock), so a
 * thread running those bytes meanwhile reads what it would have read. */
void hook_code_gather(void *dst, const void *src, size_t n);
void hook_code_flush(void);
/* Is [a, a + len) inside one executable segment of m? */
bool hook_mod_exec(const struct hook_mod *m, uintptr_t a, size_t len);

/* hook_nop.c: compiler-assisted sites.  If module m has a table of 5-byte
 * NOP entries (__patchable_function_entries or __mcount_loc), add a site per
 * named entry (blocks written, code untouched) and return 0; -1 when the
 * module has no usable table or no region in reach of all of it (then
 * prologue relocation applies). */
int  hook_nop_prepare(struct hook_engine *g, const struct hook_mod *m, const struct symtab *t);
/* hook_live.c: bring the entry of every relocated and NOP site in line
 * with its switch (after the switches were set): the branch to the block,
 * or the site's own bytes (the trap protocol, and hook_engine_write). */
void hook_live_sync(struct hook_engine *g);
/* hook_live.c: where site s's entry should branch for its switch; 0 for
 * its own bytes (the prologue or the NOP). */
uintptr_t hook_live_branch_to(const struct hook_site *s);
/* hook_live.c: can entries be rewritten with the threads running
 * (membarrier SYNC_CORE registered)? */
bool hook_live_can_sync(void);
/* hook_live.c: install the trap handler and the live sites' table before a
 * trap is written (again if the program replaced the handler since: then
 * its handler is the one chained to); allocates. */
void hook_live_trap_install(const struct hook_engine *g);
/* hook_live.c: every core running a thread of ours serializes its
 * instruction stream (membarrier SYNC_CORE). */
void hook_live_barrier(void);
/* Give SIGTRAP its previous action back if ours is installed (detach: no
 * trap of ours is left). */
void hook_live_untrap(void);
/* hook_write.c: with the world stopped, write the branch of every entry-branch site that
 * needs one: new sites, and relocated sites whose own bytes are back but are
 * watched again.  Threads inside the bytes are waited for a few times; a new
 * site still in the way dies, a site back to its own bytes waits for the
 * next call. */
void hook_engine_write(struct hook_engine *g);
/* hook_unwind.c: load libgcc_s (before the modules are scanned), then give
 * its unwinder entry points wrap sites (after). */
void hook_unwind_load(void);
void hook_unwind_prepare(struct hook_engine *g);
/* hook_wrap.c: threads inside the dlopen or dlclose wrapper (maybe in the
 * real call, outside the agent's code): detach waits for none. */
extern uint32_t hook_wrap_inflight;
/* hook_got.c: attach mode: bind module mi's PLT calls of dlopen, dlclose
 * and the collectors' wrapped functions (bind.h) to the agent's wrappers. */
void hook_got_bind(struct hook_engine *g, int mi);
/* hook_got.c: give back the entries hook_got_bind bound (threads running). */
void hook_got_unbind(struct hook_engine *g);
/* hook_got.c: put every redirected or bound GOT entry back. */
void hook_got_restore(struct hook_engine *g);
/* hook_got.c: bring every import entry only called through in line with its
 * site's switch: the block while watched, the function while not. */
void hook_got_sync(struct hook_engine *g);
/* hook_detach.c: with the switches off, restore every patched byte and GOT
 * entry and give in-flight timed calls their real return addresses, with
 * the other threads stopped outside the agent and the trampolines.  0, or
 * -1 with err. */
int  hook_detach_run(struct hook_engine *g, char *err, size_t errlen);

#endif
