/*
 * hook_layout.h - the arm64 back-end's site block (included by hook.h: the
 * engine's include path holds the chosen back-end's folder).
 *
 * Patching (once, all other threads stopped) writes the function's entry
 * branch to the site's out-of-line block, in one of two forms:
 *   near: one 4-byte B, when the block is within the B's +/-128 MB of the
 *         function (its region is mapped within that reach of the part of
 *         the module it serves, hook_region.c);
 *   far:  16 bytes, "ldr x16, #8; br x16; .quad blk", otherwise (or with
 *         HOOKSCOPE_A64_FAR=1): the first four instructions are relocated.
 *
 *   blk+0   adrp x16, switch; ldr x16, [x16, :lo12:switch]; br x16
 *   blk+12  adr x16, blk+12; adrp x17, enter; ldr x17, [...]; br x17   enabled
 *   blk+28  bl blk+64                            timed: the function, called
 *   blk+32  adrp x17, exit; ldr x17, [...]; br x17    the function's return address
 *   blk+44  adr x16, blk+44; adrp x17, count; ldr x17, [...]; br x17   counted
 *   blk+60  .word index
 *   blk+64  relocated prologue (up to 96 bytes, hook_a64.c)
 *           b fn+n, or ldr x17, #8; br x17; .quad fn+n out of B reach
 *   blk+160 mrs x16, tpidr_el0                   counted by the block itself:
 *           add x16, x16, #tpoff_hi, lsl #12     the thread's counts
 *           ldr x16, [x16, #tpoff_lo]            (timing_count.c), NULL when
 *           cbz x16, blk+44                      it has none: the general way
 *           add x16, x16, #index*8_hi, lsl #12
 *           ldr x17, [x16, #index*8_lo]
 *           add x17, x17, #1
 *           str x17, [x16, #index*8_lo]
 *           b blk+64
 *
 * The switch holds blk+12 (timed), blk+160 (counted; blk+44, the general
 * way through hook_count_common, where the block cannot count itself: the
 * TLS offset or the index out of the two adds' 16 MB) or blk+64 (disabled), so
 * a level or mode change is one relaxed 8-byte store per site.  x16 and x17
 * (IP0, IP1) are free at a function's entry: the AAPCS64 lets a linker's
 * veneer clobber them on any call, and compilers never keep values in them
 * across one.  The stubs are jumped to, not called: x30 still holds the
 * caller's return address.  x16 holds the entry's own address (blk+12 or
 * blk+44, set by its adr: an entry NOP's B enters there directly, past the
 * switch) so the stubs find the block, and they leave by br to blk+64 (or,
 * timed, to blk+28).
 * Under BTI the blocks' pages are not guarded (mapped without PROT_BTI): a
 * far entry's br x16 may land on blk+0; the stubs, in the agent's guarded
 * text, start with bti c, which a br x16 or x17 may land on.
 *
 * Enabled, hook_enter_common (hook_tramp.c) stores x30 in its frame's slot
 * (at the function's entry sp - 16, so the exit stub finds the same address:
 * the call's identity for the shadow stack) and calls hook_site_enter, which
 * opens a timing frame holding it; the stub then goes to blk+28, whose bl
 * calls the function with x30 = blk+32 (a PACIASP of its own signs that
 * address with its own sp, and its AUTIASP checks it: both see the same
 * value); it returns there, and hook_exit_common gives the real address back
 * and returns to it.  A bl rather than x30 set and a br: the return address
 * stack predicts a ret from the entries bl pushed, so both returns -- the
 * function's to blk+32 and the exit stub's to the caller, whose own bl
 * pushed it -- are predicted.  With x30 set by hand the function's ret took
 * the caller's entry, the exit stub's the one below, and every return above
 * was mispredicted in turn (the x86-64 back-end calls its prologue for the
 * same reason).
 *
 * The stubs save x0-x17, x30 and all of q0-q31: the C half (hook_hot.c,
 * timing_hot.c) is built with -mgeneral-regs-only, but a thread's first
 * call reaches libc (mmap, pthread_setspecific), which may use the vector
 * registers, and gcc's -fipa-ra lets a caller keep values in any register
 * its local callee is known not to touch.
 */
#ifndef HOOKSCOPE_HOOK_LAYOUT_H
#define HOOKSCOPE_HOOK_LAYOUT_H

#include <stdint.h>
#include <string.h>

#define HOOK_PATCH_LEN  4           /* b imm26: the near entry */
#define HOOK_PATCH_MAX  16          /* ldr x16, #8; br x16; .quad: the far entry */
#define HOOK_BLK_SIZE   208         /* out-of-line block per site */
#define HOOK_BLK_ON     12          /* the enabled path (see above) */
#define HOOK_BLK_ENTERED 12         /* what hook_enter_common is given (x16) */
#define HOOK_BLK_CALL   28          /* timed: bl to the relocated prologue */
#define HOOK_BLK_RET    32          /* the function's return address */
#define HOOK_BLK_COUNT_STUB 44      /* the counted path through hook_count_common */
#define HOOK_BLK_COUNTED 44         /* what hook_count_common is given (x16) */
#define HOOK_BLK_COUNT  160         /* the counted path in the block */
#define HOOK_BLK_INDEX  60          /* the site's index, 4 bytes */
#define HOOK_BLK_HEAD   64          /* the relocated prologue */
#define HOOK_BLK_HEAD_MAX 96        /* its room: four instructions' worst forms + the way back */
#define HOOK_SW_FN      1           /* switch[1]: the site's function */
#define HOOK_REACH      ((uintptr_t)0x7f00000)    /* b: a little under 128 MB */
#define HOOK_FILL       0xd4200000u /* unused block words: brk #0 */

/* The switch of the block at blk: the target of its first adrp + ldr. */
static inline uintptr_t *hook_blk_switch(const uint8_t *blk)
{
	uint32_t adrp, ldr;
	int64_t page;

	memcpy(&adrp, blk, 4);
	memcpy(&ldr, blk + 4, 4);
	page = (int64_t)((((adrp >> 5) & 0x7ffff) << 2) | ((adrp >> 29) & 3));
	page = (int64_t)((uint64_t)page << 43) >> 31;          /* sign-extend 21 bits, << 12 */
	return (uintptr_t *)((((uintptr_t)blk & ~(uintptr_t)0xfff) + (uintptr_t)page) +
	    ((ldr >> 10) & 0xfff) * 8);
}

#endif
