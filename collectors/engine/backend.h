/*
 * backend.h - what the hook engine's arch-neutral core asks of an
 * architecture back-end (collectors/engine/ARCH/, chosen by the Makefile's
 * ENGINE_ARCH): one const ops table, hook_backend, plus the trampoline
 * region and stub functions declared in hook.h (hook_tramp_*, the stubs),
 * which every back-end defines.  The core never looks at an
 * instruction or a register itself.
 */
#ifndef HOOKSCOPE_HOOK_BACKEND_H
#define HOOKSCOPE_HOOK_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hook.h"

struct hook_backend {
	const char *arch;
	/* Relocate the first instructions of the function at addr (size
	 * bytes; code = a readable copy or the function) to run at dst, then
	 * continue at addr + p->n; p->entry is the length of the entry's
	 * branch (HOOK_PATCH_LEN, or HOOK_PATCH_MAX where a block out of the
	 * direct branch's reach of addr needs a longer one).  HOOK_OK or the
	 * refusal reason.  Whether the function branches back into those
	 * bytes is sweep's: it reads the whole function, so the core asks
	 * only before a site's first branch is written. */
	enum hook_why (*plan)(const uint8_t *code, size_t size, uint64_t addr, uint64_t dst,
	    struct hook_plan *p);
	/* Does the function at addr (size bytes) branch into its first n
	 * bytes?  HOOK_OK or the refusal reason (HOOK_R_INTO). */
	enum hook_why (*sweep)(const uint8_t *code, size_t size, uint64_t addr, size_t n);
	/* The len bytes of an entry's branch at 'from' to 'to': len is
	 * HOOK_PATCH_LEN (a direct branch: 'to' within its reach) or, where
	 * the back-end has a longer form reaching anywhere, HOOK_PATCH_MAX
	 * (the plan's entry length says which). */
	void (*branch)(uint8_t *out, uintptr_t from, uintptr_t to, size_t len);
	/* A position-independent jump to the absolute address 'to' at out
	 * (at most HOOK_RELOC_MAX bytes); its length. */
	size_t (*jump_abs)(uint8_t *out, uintptr_t to);
	/* Is p a compiler-reserved function entry of HOOK_PATCH_LEN bytes
	 * that can be swapped for a branch live (one instruction)? */
	bool (*entry_nop)(const uint8_t *p);
	/* Is p a reserved entry made of several instructions (cannot be
	 * swapped live)? */
	bool (*entry_nops)(const uint8_t *p);
	/* The one-byte trap instruction written first when a live entry is
	 * swapped (the trap handler steps over the entry meanwhile). */
	uint8_t trap;
	/* Or NULL: store the HOOK_PATCH_LEN bytes of an entry in one store
	 * that a core running it sees whole, old or new (an architecture
	 * where swapping a NOP and a branch so is allowed): no trap then. */
	void (*code_swap)(void *dst, const uint8_t code[HOOK_PATCH_LEN]);
	/* The interrupted pc of a signal's ucontext, and setting it. */
	uintptr_t (*uc_pc)(const void *uc);
	void (*uc_set_pc)(void *uc, uintptr_t pc);
	/* The part of the signal frame holding the floating-point and vector
	 * registers (not the general ones): [*lo, *hi), empty if none. */
	void (*uc_vec)(const void *uc, uintptr_t *lo, uintptr_t *hi);
	/* Copy bytes from or to live code, past the sanitizers'
	 * instrumentation (TSan has no shadow for a module's text: an
	 * instrumented store there faults). */
	void (*code_copy)(void *dst, const void *src, size_t n);
	/* Store one byte of live code with release ordering. */
	void (*code_store1)(void *dst, uint8_t v);
	/* The calibration function (hook_cal.c): one instruction the plan
	 * relocates (at least HOOK_PATCH_LEN bytes), then a return. */
	uint8_t cal_fn[8];
	uint8_t cal_fn_len;
	/* The ELF relocation types of PLT entries and of GOT data entries. */
	int rel_jump_slot, rel_glob_dat;
};

extern const struct hook_backend hook_backend;

#endif
