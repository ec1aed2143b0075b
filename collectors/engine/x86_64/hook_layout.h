/*
 * hook_layout.h - the x86-64 back-end's site block (included by hook.h:
 * the engine's include path holds the chosen back-end's folder).
 *
 * A site is one function of an "own" module.  Patching (once, all other
 * threads stopped) writes a 5-byte jmp rel32 at the function's start to the
 * site's out-of-line block in a trampoline region mapped within +/-2 GB:
 *
 *   blk+0   jmp *switch(%rip)            8-byte switch in the region's data,
 *                                        then the site's function
 *   blk+6   call *enter(%rip)            enabled: to hook_enter_common
 *   blk+12  leaq 8(%rsp), %rsp           drop the caller's return address
 *   blk+17  call blk+32                  the relocated prologue, as a call
 *   blk+22  jmp *exit(%rip)              returned: to hook_exit_common
 *   blk+28  .long index                  the site's index (data; the timed path
 *                                        finds the site through the switch)
 *   blk+32  relocated prologue           (hook_x86.c)
 *           jmp fn+n
 *   blk+64  call *count(%rip)            counted, the general way: to
 *   blk+70  jmp blk+32                   hook_count_common, then the function
 *   blk+75  int3
 *   blk+76  push %rax                    counted by the block itself: the
 *   blk+77  mov %fs:tpoff, %rax          thread's counts (timing_count.c),
 *   blk+86  test %rax, %rax              NULL when the thread has none:
 *   blk+89  je blk+101                   then the general way
 *   blk+91  incq index*8(%rax)
 *   blk+98  pop %rax
 *   blk+99  jmp blk+32
 *   blk+101 pop %rax
 *   blk+102 jmp blk+64
 *
 * The switch holds blk+6 (timed), blk+76 (counted; blk+64 where the block
 * cannot count itself: an index past TM_SC_MAX, a TLS offset out of disp32
 * reach) or blk+32 (disabled), so a level or mode change is one relaxed
 * 8-byte store per site and a disabled site costs one predicted indirect
 * jump; no register is touched on either path.  A counted call costs a
 * push, a TLS load, a test and an increment, no clock read, no
 * shadow-stack frame; rax is given back and the flags are dead at a
 * function's entry.  The general way costs the count stub (hook_tramp.c):
 * a hash lookup in the thread's table; its return to blk+70 is predicted.  The
 * word after the switch holds the site's function (HOOK_SW_FN), so the
 * enabled path finds it from the block alone: the jmp's rel32, then that
 * word (two dependent loads, no table).
 *
 * Enabled, hook_enter_common (hook_tramp.c) calls hook_site_enter, which
 * opens a timing frame holding the caller's return address.  The block then
 * pops that address and calls the function, so the call's own return
 * address (blk+22) lands in the same stack slot: the function sees the
 * stack it would have seen, and both returns -- the function's to blk+22
 * and hook_exit_common's to the caller -- are predicted by the return stack
 * buffer (a jmp through a shared trampoline would not be).  A call not
 * timed (no frame) goes straight on at blk+32 with the address in place.
 *
 * The stubs save only the general registers: their C half (hook_hot.c,
 * timing_hot.c) is built with -mgeneral-regs-only and reaches code that
 * may touch vector registers only through tm_vec_call, which saves the whole
 * extended state (see timing_hot.c).  Sanitizer builds, whose runtime calls
 * are everywhere, save every xmm register as well.
 */
#ifndef HOOKSCOPE_HOOK_LAYOUT_H
#define HOOKSCOPE_HOOK_LAYOUT_H

#include <stdint.h>
#include <string.h>

#define HOOK_PATCH_LEN  5           /* jmp rel32 */
#define HOOK_PATCH_MAX  HOOK_PATCH_LEN   /* no other entry form */
#define HOOK_BLK_SIZE   128         /* out-of-line block per site */
#define HOOK_BLK_ON     6           /* the enabled path (see above) */
#define HOOK_BLK_ENTERED 12         /* hook_enter_common's return address */
#define HOOK_BLK_RET    22          /* the function's return address */
#define HOOK_BLK_INDEX  28          /* the site's index, 4 bytes */
#define HOOK_BLK_HEAD   32          /* the relocated prologue */
#define HOOK_BLK_HEAD_MAX 32        /* its room */
#define HOOK_BLK_COUNT_STUB 64      /* the counted path through hook_count_common */
#define HOOK_BLK_COUNTED 70         /* hook_count_common's return address */
#define HOOK_BLK_COUNT  76          /* the counted path in the block */
#define HOOK_BLK_COUNT_TLS (HOOK_BLK_COUNT + 6)  /* its mov's disp32: the TLS offset */
#define HOOK_BLK_COUNT_IDX (HOOK_BLK_COUNT + 18) /* its incq's disp32: index * 8 */
#define HOOK_BLK_SWREL  2           /* the jmp's rel32 to the switch, from blk+6 */
#define HOOK_SW_FN      1           /* switch[1]: the site's function */
#define HOOK_REACH      ((uintptr_t)0x7ff00000)   /* rel32: a little under 2 GB */
#define HOOK_FILL       0xccccccccu /* unused block bytes: int3 */

/* The switch of the block at blk (the target of its first jmp). */
static inline uintptr_t *hook_blk_switch(const uint8_t *blk)
{
	int32_t rel;

	memcpy(&rel, blk + HOOK_BLK_SWREL, sizeof rel);
	return (uintptr_t *)(blk + HOOK_BLK_ON + rel);
}

#endif
