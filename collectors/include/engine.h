/*
 * engine.h - the hook engine as the rest of the agent sees it: figures for
 * the "sites" record, site lookups for symbolization, the modules and the
 * GOT import wrapper (power), detach.  The engine's internals (site table,
 * patching, the architecture back-end) are in collectors/engine/.
 */
#ifndef HOOKSCOPE_ENGINE_H
#define HOOKSCOPE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a function was not patched (counted per reason). */
enum hook_why {
	HOOK_OK = 0,
	HOOK_R_SHORT,           /* smaller than the 5-byte jmp */
	HOOK_R_DECODE,          /* an instruction that does not decode */
	HOOK_R_INTO,            /* a branch of the function targets the patched bytes */
	HOOK_R_INSN,            /* an instruction we cannot relocate (loop, jrcxz, ...) */
	HOOK_R_CALL,            /* a call inside the patched bytes that does not end them */
	HOOK_R_RANGE,           /* a relocated target out of rel32 reach */
	HOOK_R_BIG,             /* relocated prologue larger than the block */
	HOOK_R_BUSY,            /* a stopped thread was inside the patched bytes */
	HOOK_R_NEAR,            /* no trampoline region within +/-2 GB */
	HOOK_R_STOP,            /* the other threads could not be stopped */
	HOOK_R_COUNT
};

const char *hook_why_name(enum hook_why why);

#define HOOK_MAX_MODS  64
#define HOOK_MAX_SEGS  8

/* A loaded module as dl_iterate_phdr shows it (hook_patch.c). */
struct hook_mod {
	char      path[4096];
	uintptr_t bias, lo, hi;
	struct { uintptr_t start, end; int prot; } segs[HOOK_MAX_SEGS];
	int       nsegs;
	uintptr_t relro_start, relro_end;   /* PT_GNU_RELRO, runtime addresses */
	uintptr_t dyn;                /* PT_DYNAMIC, runtime address, or 0 */
	bool      own;                /* patched (hook_patch.c's rule) */
	bool      finstr;             /* own, but built with -finstrument-functions:
	                               * only its import sites (hook_got.c) */
	bool      agent;              /* the agent itself */
};

struct hook_mods {
	struct hook_mod m[HOOK_MAX_MODS];
	int             n;
};

/* Read-only figures of the engine for the "sites" record (hook_site.c). */
struct hook_stats {
	bool   patched;                   /* patching has happened */
	size_t active;                    /* relocated prologue, switched on */
	size_t disabled;                  /* relocated prologue, switched off */
	size_t far_active, far_disabled;  /* the same with the back-end's far entry
	                                   * (not among the two above) */
	size_t nop_active, nop_disabled;  /* the same for compiler-assisted sites */
	size_t got_active, got_disabled;  /* and for import sites (GOT entries) */
	size_t refused[HOOK_R_COUNT];     /* skipped, per reason */
};
void hook_engine_stats(struct hook_stats *st);
/* The name of the newest site at fn, patched or dead (its module may be
 * unloaded: the name outlives it), or NULL. */
const char *hook_engine_name(uintptr_t fn);
/* The name of the newest site at fn whose module was unloaded after it was
 * patched, when no patched site is at fn now (the function there now, if
 * any, is another module's: its symbol is not the timed one's), or NULL. */
const char *hook_engine_gone_name(uintptr_t fn);
/* Is fn the address of a patched site?  (Sites do not move once patched.) */
bool hook_engine_has(uintptr_t fn);
/* The function whose trampoline block holds addr (a return address into
 * a block, seen in a sampled stack), or 0.  Takes the engine's lock. */
uintptr_t hook_engine_block_fn(uintptr_t addr);

/* How a site's calls are watched while its level selects it: timed, only
 * counted (the back-end's cheaper path), or not at all (the overhead
 * budget's choice, timing_budget.c). */
enum hook_mode { HOOK_M_TIMED = 0, HOOK_M_COUNTED, HOOK_M_OFF };
/* Set the mode of every site of fns[k] to modes[k] (k < n), live; sites of
 * other functions keep theirs.  Reporter thread. */
void hook_engine_modes(const uintptr_t *fns, const uint8_t *modes, size_t n);
/* The mode of sites given none (before the first patching). */
void hook_engine_start_mode(enum hook_mode m);

/* The interrupted pc in a signal handler's ucontext (the back-end's;
 * async-signal-safe). */
uintptr_t hook_engine_uc_pc(const void *uc);

/* Run fn holding the engine's lock, which the agent's dlclose holds
 * around the real one: the modules fn reads (hook_mods_read) stay mapped
 * while it runs.  fn must not wait for another thread that may dlclose. */
void hook_engine_modules_held(void (*fn)(void *arg), void *arg);
/* hook_dyn.c: does the loaded module info import function sym (a
 * JUMP_SLOT or GLOB_DAT relocation of it)?  Read where the loader mapped
 * it: no file is opened (the -finstrument-functions modules are found so
 * in every module list). */
struct dl_phdr_info;
bool hook_image_imports(const struct dl_phdr_info *info, const char *sym);
/* hook_patch.c: the modules loaded now (the agent flagged), for users of
 * the GOT outside the engine (hook_got_wrap; under
 * hook_engine_modules_held when another thread may dlclose). */
void hook_mods_read(struct hook_mods *ms);
/* hook_got.c: a generic import wrapper (the power collector's table rows):
 * bind every import of names[k] (JUMP_SLOT or GLOB_DAT) in module m (not
 * the agent) to wrappers[k].  reals[k] gets the function the entry was
 * bound to (a lazy entry: what the loader would bind, the first definition
 * in the global scope) when it is 0; an entry already at the wrapper is
 * left.  Entries bound, or -1 (unreadable module).  Works at any level and
 * before the engine patched anything; hook_got_prepare later times the
 * function behind a wrapped entry through reals[k].  The entries are not
 * given back at detach: an attached agent does not use this (power.c). */
int  hook_got_wrap(const struct hook_mod *m, bool main, const char *const *names,
    const uintptr_t *wrappers, uintptr_t *reals, size_t n);

/* Take the engine out of the process for good (detach; hook_detach.c):
 * every patched byte and GOT entry restored, every timed call in flight
 * given its real return address back, no thread left in a stub or a block,
 * the engine's signal handlers given back; later level changes and dlopens
 * patch nothing.  The trampoline regions stay mapped (anonymous, a few
 * pages per module; see hook_detach.c).  0, or -1 with err. */
int  hook_engine_detach(char *err, size_t errlen);

/* A stopped thread: its stack pointer in the stop's signal handler
 * (everything from there to the end of its stack's mapping is its live
 * stack, its saved registers included), and the part of the signal frame
 * that holds its floating-point and vector registers, [vec_lo, vec_hi)
 * (empty when the kernel saved none). */
struct hook_stopped_thread {
	uintptr_t sp, vec_lo, vec_hi;
};

/* Stop every other thread (not the reporter), call fn with the n stopped
 * threads, then let them run on.  fn must not take a lock a target thread
 * may hold (no malloc).  Serialised with patching.  0, or -1 with err (no
 * thread stopped). */
int  hook_engine_stopped(void (*fn)(const struct hook_stopped_thread *t, int n, void *arg), void *arg,
    char *err, size_t errlen);

/* The calling thread runs agent code only and blocks every signal (the
 * reporter): never stopped, so a dlopen on another thread can patch. */
void hook_stop_exempt(void);
/* fork() is about to run (its prepare handler): wait until no write of
 * entries that left threads running is under way, so a child never starts
 * with an entry half written. */
void hook_engine_atfork_prepare(void);

#endif
