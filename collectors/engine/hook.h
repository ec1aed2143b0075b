/*
 * hook.h - the hook engine (internal): patching of unmodified code.
 *
 * On by default; HOOKSCOPE_ENGINE=0 in the target's environment turns it off.
 *
 * A site is one function of an "own" module.  Patching (once, all other
 * threads stopped) writes a branch of HOOK_PATCH_LEN bytes (or a back-end's
 * longer form, up to HOOK_PATCH_MAX, where the block is out of the short
 * one's reach) at the function's start to the site's out-of-line block in
 * a trampoline region mapped near the module.  The block's layout, its offsets (HOOK_BLK_*)
 * and the stubs are the architecture back-end's (hook_layout.h, found on
 * the engine's include path in collectors/engine/ARCH/; backend.h).
 */
#ifndef HOOKSCOPE_HOOK_H
#define HOOKSCOPE_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#include "hook_layout.h"

#define HOOK_RELOC_MAX  HOOK_BLK_HEAD_MAX


/* Where each instruction the patch covers starts, in the original bytes
 * and in the relocated copy: a thread stopped between two of them is moved
 * to the same point of the copy, so the branch can be written. */
struct hook_bounds {
	uint8_t n;
	uint8_t orig[HOOK_PATCH_MAX], reloc[HOOK_PATCH_MAX];
};

/* The prologue plan of one function (the back-end's plan op). */
struct hook_plan {
	size_t  n;                  /* original bytes replaced (>= entry) */
	size_t  entry;              /* bytes of the entry's branch: HOOK_PATCH_LEN, or
	                             * the back-end's far form (HOOK_PATCH_MAX) */
	size_t  len;                /* bytes written to out (incl. the jump back) */
	uint8_t out[HOOK_RELOC_MAX];
	struct hook_bounds bounds;  /* its instructions (none: no thread is ever moved) */
};

/* How a site's function reaches its block; what each kind means to the
 * engine's generic code is its row of hook_kinds (hook_kind.c). */
enum hook_kind {
	HOOK_K_RELOC = 0,           /* relocated prologue (hook_patch.c) */
	HOOK_K_NOP,                 /* compiler-assisted entry NOP (hook_nop.c) */
	HOOK_K_GOT,                 /* import site (hook_got.c): fn is the library's */
	HOOK_K_WRAP,                /* an unwinder entry wrapped for good (hook_unwind.c) */
	HOOK_K_COUNT
};

struct hook_kind_ops {
	const char *what;           /* plural, for the patching log */
	bool levelled;              /* the switch follows the level (else never flipped:
	                             * a wrap site's holds the wrapper) */
	bool entry_branch;          /* the function's entry is overwritten with a branch
	                             * to the block with the world stopped, and put back
	                             * from orig at detach */
	bool named;                 /* hook_engine_name answers with the site's name */
	/* The hook_stats counters of an active and a disabled site, or
	 * counted false. */
	bool counted;
	size_t active_off, disabled_off;
};
extern const struct hook_kind_ops hook_kinds[HOOK_K_COUNT];

/* One patchable function (hook_site.c). */
struct hook_site {
	uintptr_t  fn;              /* runtime address */
	uint8_t   *blk;             /* out-of-line block */
	uintptr_t *sw;              /* its switch */
	uintptr_t  on_addr;         /* blk + HOOK_BLK_ON: the switch when enabled */
	uintptr_t  reloc;           /* blk + HOOK_BLK_HEAD: when disabled */
	uintptr_t  count_addr;      /* when counted: blk + HOOK_BLK_COUNT, the block's own
	                             * count, or blk + HOOK_BLK_COUNT_STUB (hook_tramp_fill) */
	uint32_t   index;           /* in the engine's site table (never reused) */
	bool       sc_noted;        /* its counts were noted to the timing collector */
	uint8_t    mode;            /* enum hook_mode: the budget's (while on) */
	bool       mode_set;        /* mode was given (else the starting mode applies) */
	const char *name;           /* the module symtab's storage */
	size_t     n;               /* bytes patched */
	size_t     size;            /* relocated site: the function's bytes, and ... */
	bool       swept;           /* ... whether they were checked for branches into
	                             * the first n (hook_engine_write) */
	size_t     entry;           /* bytes of the entry's branch (its plan's) */
	bool       global;          /* global or weak binding */
	bool       exported;        /* and default visibility */
	int        mod;             /* index in the engine's module list */
	bool       patched;
	bool       dead;            /* could not be patched (busy), or unloaded */
	bool       gone;            /* patched, then its module was unloaded */
	bool       on;
	enum hook_kind kind;        /* how the site is reached (hook_kinds) */
	bool       code_on;         /* nop site: the branch is written (else the NOP) */
	uintptr_t  code_to;         /* nop site: where that branch goes */
	uint8_t    orig[HOOK_PATCH_MAX];   /* the bytes the branch replaced (nop site: the NOP) */
	struct hook_bounds bounds;  /* relocated site: its plan's */
	uintptr_t *got_slot;        /* import site: its GOT entry */
	uintptr_t  got_orig;        /* import site: the entry's value before (for detach) */
	bool       got_call;        /* import site: the entry is only called through (JUMP_SLOT,
	                             * a wrapper's pointer): it follows the switch */
};


/* hook_region.c: regions near a module; the back-end's hook_tramp.c: the
 * blocks, the stubs. */
struct hook_region {
	uint8_t   *base;
	size_t     len;             /* whole mapping */
	size_t     code_len;        /* code part (pages), then the switches */
	size_t     nblk;
};
/* Map a region for nblk blocks whose every byte is within the back-end's branch reach of
 * [lo, hi).  0, or -1 when nothing is free near enough. */
int  hook_tramp_map(uintptr_t lo, uintptr_t hi, size_t nblk, struct hook_region *r);
/* Map a region for nblk blocks anywhere: for sites reached by an absolute
 * address (import sites) or by the back-end's far entry form (where
 * HOOK_PATCH_MAX > HOOK_PATCH_LEN).  0, or -1. */
int  hook_tramp_map_any(size_t nblk, struct hook_region *r);
/* Block i's code and switch (followed by its function's address). */
uint8_t   *hook_tramp_blk(const struct hook_region *r, size_t i);
uintptr_t *hook_tramp_switch(const struct hook_region *r, size_t i);
/* Write block i for the site with this index: head + the plan's bytes; the
 * switch starts disabled. */
void hook_tramp_fill(const struct hook_region *r, size_t i, uint32_t index, struct hook_site *s,
    const struct hook_plan *p);
/* Make the code part read+exec once every block is written. */
int  hook_tramp_seal(const struct hook_region *r);
/* The stubs (the back-end's trampoline code). */
void hook_enter_common(void);
void hook_exit_common(void);
void hook_count_common(void);
/* Called by the stubs (hook_hot.c): open a frame for the call whose return
 * address is in *slot, entered through the block that hook_enter_common
 * returns to at entered (false: not timed, go on untouched); close it and
 * return the real return address. */
bool      hook_site_enter(const uint8_t *entered, uintptr_t *slot);
uintptr_t hook_site_exit(uintptr_t *slot);
/* Called by the count stub, which returns to counted (the block's). */
void      hook_site_count(const uint8_t *counted);


/* hook_stop.c: stop every other thread of the process. */
struct hook_stopped {
	int        n;               /* threads stopped */
	int        left;            /* threads left running, blocked in a system call */
	uintptr_t *pcs;             /* where each one was interrupted (or is moved to) */
	struct hook_stopped_thread *ts;  /* each one's stack and vector state (engine.h) */
};
/* Stopped thread i resumes at pc instead. */
void hook_stop_move(struct hook_stopped *st, int i, uintptr_t pc);
/* Which threads a stop may leave running: those blocked in a system call
 * whose resume address ok accepts (and that do not block SIGTRAP). */
struct hook_stop_leave {
	bool (*ok)(uintptr_t pc, void *arg);
	void *arg;
};
/* 0 with every other thread parked in a signal handler but those leave
 * lets run (NULL: none), or -1 with err (a thread did not answer within
 * the time limit: all are released). */
int  hook_stop_world(struct hook_stopped *st, const struct hook_stop_leave *leave, char *err,
    size_t errlen);
/* Stop the threads the stop left running that leave no longer lets run, and
 * threads new since: 0, or -1 with err and the stopped ones still stopped
 * (the caller undoes its work, then resumes).  A thread keeps its index. */
int  hook_stop_again(struct hook_stopped *st, char *err, size_t errlen);
void hook_stop_resume(struct hook_stopped *st);
/* Give the stop signal its previous action back (detach). */
void hook_stop_uninstall(void);

#endif
