/*
 * hook_tramp.c - the arm64 blocks and the three assembly stubs (the regions
 * that hold the blocks are the engine's, hook_region.c: within the 4-byte
 * B's +/-128 MB of their module, HOOK_REACH).  The blocks reach the stubs
 * (in the agent, anywhere) through the region's data with adrp + ldr + br
 * x17.  hook_layout.h has the block and the calling convention of the stubs.
 */
#include <string.h>
#include <sys/mman.h>

#include "hook.h"
#include "hook_a64.h"
#include "timing.h"

/* The stubs' frame: x0-x17 and x30 (160 bytes), q0-q31 (512), then the
 * slot at the function's entry sp - 16 (hook_layout.h): 688 bytes. */
#define HOOK_FRAME "688"
#define HOOK_SLOT  "672"
#define HOOK_SAVE \
	"	sub sp, sp, #" HOOK_FRAME "\n" \
	"	stp x0, x1, [sp, #0]\n stp x2, x3, [sp, #16]\n stp x4, x5, [sp, #32]\n" \
	"	stp x6, x7, [sp, #48]\n stp x8, x9, [sp, #64]\n stp x10, x11, [sp, #80]\n" \
	"	stp x12, x13, [sp, #96]\n stp x14, x15, [sp, #112]\n stp x16, x17, [sp, #128]\n" \
	"	str x30, [sp, #144]\n" \
	"	stp q0, q1, [sp, #160]\n stp q2, q3, [sp, #192]\n stp q4, q5, [sp, #224]\n" \
	"	stp q6, q7, [sp, #256]\n stp q8, q9, [sp, #288]\n stp q10, q11, [sp, #320]\n" \
	"	stp q12, q13, [sp, #352]\n stp q14, q15, [sp, #384]\n stp q16, q17, [sp, #416]\n" \
	"	stp q18, q19, [sp, #448]\n stp q20, q21, [sp, #480]\n stp q22, q23, [sp, #512]\n" \
	"	stp q24, q25, [sp, #544]\n stp q26, q27, [sp, #576]\n stp q28, q29, [sp, #608]\n" \
	"	stp q30, q31, [sp, #640]\n"
/* Everything but x16, x17 and x30, which each stub sets itself. */
#define HOOK_RESTORE \
	"	ldp q0, q1, [sp, #160]\n ldp q2, q3, [sp, #192]\n ldp q4, q5, [sp, #224]\n" \
	"	ldp q6, q7, [sp, #256]\n ldp q8, q9, [sp, #288]\n ldp q10, q11, [sp, #320]\n" \
	"	ldp q12, q13, [sp, #352]\n ldp q14, q15, [sp, #384]\n ldp q16, q17, [sp, #416]\n" \
	"	ldp q18, q19, [sp, #448]\n ldp q20, q21, [sp, #480]\n ldp q22, q23, [sp, #512]\n" \
	"	ldp q24, q25, [sp, #544]\n ldp q26, q27, [sp, #576]\n ldp q28, q29, [sp, #608]\n" \
	"	ldp q30, q31, [sp, #640]\n" \
	"	ldp x0, x1, [sp, #0]\n ldp x2, x3, [sp, #16]\n ldp x4, x5, [sp, #32]\n" \
	"	ldp x6, x7, [sp, #48]\n ldp x8, x9, [sp, #64]\n ldp x10, x11, [sp, #80]\n" \
	"	ldp x12, x13, [sp, #96]\n ldp x14, x15, [sp, #112]\n"
#define HOOK_STR(x) HOOK_STR_(x)
#define HOOK_STR_(x) #x

/* Each stub starts with bti c: under BTI (the agent built with
 * -mbranch-protection=standard, its pages guarded) a br x17 must land on
 * one.  A hint: a NOP on cores without BTI. */
__asm__(
	".text\n"
	".p2align 2\n"
	/* hook_enter_common: x16 = blk + HOOK_BLK_ON, x30 = the caller's
	 * return address; sp = the function's entry sp. */
	".globl hook_enter_common\n"
	".hidden hook_enter_common\n"
	".type hook_enter_common, %function\n"
	"hook_enter_common:\n"
	"	hint #34\n"
	HOOK_SAVE
	"	str x30, [sp, #" HOOK_SLOT "]\n"
	"	mov x0, x16\n"
	"	add x1, sp, #" HOOK_SLOT "\n"
	"	bl hook_site_enter\n"
	"	ldr x16, [sp, #128]\n"
	"	ldr x30, [sp, #144]\n"
	"	tst w0, #0xff\n"                              /* timed: to blk + 28 */
	"	add x17, x16, #" HOOK_STR(HOOK_BLK_CALL - HOOK_BLK_ON) "\n"
	"	add x16, x16, #" HOOK_STR(HOOK_BLK_HEAD - HOOK_BLK_ON) "\n"
	"	csel x16, x17, x16, ne\n"
	HOOK_RESTORE
	"	add sp, sp, #" HOOK_FRAME "\n"
	"	br x16\n"
	".size hook_enter_common, .-hook_enter_common\n"
	/* hook_exit_common: the function returned to blk + 32; sp = its entry
	 * sp again.  Back to the real return address. */
	".globl hook_exit_common\n"
	".hidden hook_exit_common\n"
	".type hook_exit_common, %function\n"
	"hook_exit_common:\n"
	"	hint #34\n"
	HOOK_SAVE
	"	add x0, sp, #" HOOK_SLOT "\n"
	"	bl hook_site_exit\n"
	"	mov x30, x0\n"
	HOOK_RESTORE
	"	add sp, sp, #" HOOK_FRAME "\n"
	"	ret\n"
	".size hook_exit_common, .-hook_exit_common\n"
	/* hook_count_common: x16 = blk + HOOK_BLK_COUNTED, x30 = the caller's
	 * return address (untouched). */
	".globl hook_count_common\n"
	".hidden hook_count_common\n"
	".type hook_count_common, %function\n"
	"hook_count_common:\n"
	"	hint #34\n"
	HOOK_SAVE
	"	mov x0, x16\n"
	"	bl hook_site_count\n"
	"	ldr x30, [sp, #144]\n"
	"	ldr x16, [sp, #128]\n"
	"	add x16, x16, #" HOOK_STR(HOOK_BLK_HEAD - HOOK_BLK_COUNTED) "\n"
	HOOK_RESTORE
	"	add sp, sp, #" HOOK_FRAME "\n"
	"	br x16\n"
	".size hook_count_common, .-hook_count_common\n"
);

/* adrp rd, word; ldr rd, [rd, :lo12:word]; br rd at p (12 bytes). */
static void hook_tramp_ind(uint8_t *p, unsigned rd, const void *word)
{
	a64_put(p, a64_adrp(rd, (uintptr_t)p, (uintptr_t)word));
	a64_put(p + 4, a64_ldr_lo12(rd, rd, (uintptr_t)word));
	a64_put(p + 8, a64_br(rd));
}

/* The block's own count at b + HOOK_BLK_COUNT for the site with this index
 * (hook_layout.h); false, writing nothing, where it cannot have one. */
static bool hook_tramp_count(uint8_t *b, uint32_t index)
{
	uint8_t *c = b + HOOK_BLK_COUNT;
	uint64_t at = (uint64_t)index * 8;
	intptr_t off;

	_Static_assert(HOOK_BLK_COUNT + 9 * 4 <= HOOK_BLK_SIZE, "the count fits the block");
	if (!tm_sc_tpoff(&off) || off < 0 || off >= (1 << 24) || off % 8 != 0 ||
	    index >= TM_SC_MAX || at >= (1 << 24))
		return false;
	a64_put(c, A64_MRS_X16_TP);
	a64_put(c + 4, a64_add_hi12(A64_X16, A64_X16, (uint32_t)(off >> 12)));
	a64_put(c + 8, a64_ldr_off(A64_X16, A64_X16, (uint32_t)(off & 0xfff)));
	a64_put(c + 12, a64_cbz(A64_X16, (uintptr_t)c + 12, (uintptr_t)b + HOOK_BLK_COUNT_STUB));
	a64_put(c + 16, a64_add_hi12(A64_X16, A64_X16, (uint32_t)(at >> 12)));
	a64_put(c + 20, a64_ldr_off(A64_X17, A64_X16, (uint32_t)(at & 0xfff)));
	a64_put(c + 24, a64_add_lo12(A64_X17, A64_X17, 1));
	a64_put(c + 28, a64_str_off(A64_X17, A64_X16, (uint32_t)(at & 0xfff)));
	a64_put(c + 32, a64_b((uintptr_t)c + 32, (uintptr_t)b + HOOK_BLK_HEAD, false));
	return true;
}

/* See hook.h (the block layout). */
void hook_tramp_fill(const struct hook_region *r, size_t i, uint32_t index, struct hook_site *s,
    const struct hook_plan *p)
{
	uint8_t *b = hook_tramp_blk(r, i);
	uintptr_t *common = (uintptr_t *)(r->base + r->code_len);

	common[0] = (uintptr_t)hook_enter_common;
	common[1] = (uintptr_t)hook_exit_common;
	common[2] = (uintptr_t)hook_count_common;
	hook_tramp_ind(b, A64_X16, hook_tramp_switch(r, i));
	a64_put(b + HOOK_BLK_ON, A64_ADR_X16_SELF);
	hook_tramp_ind(b + HOOK_BLK_ON + 4, A64_X17, &common[0]);
	_Static_assert(HOOK_BLK_CALL + 4 == HOOK_BLK_RET, "the bl returns to the exit path");
	a64_put(b + HOOK_BLK_CALL, a64_b((uintptr_t)b + HOOK_BLK_CALL, (uintptr_t)b + HOOK_BLK_HEAD, true));
	hook_tramp_ind(b + HOOK_BLK_RET, A64_X17, &common[1]);
	memcpy(b + HOOK_BLK_HEAD, p->out, p->len);
	a64_put(b + HOOK_BLK_COUNT_STUB, A64_ADR_X16_SELF);
	hook_tramp_ind(b + HOOK_BLK_COUNT_STUB + 4, A64_X17, &common[2]);
	memcpy(b + HOOK_BLK_INDEX, &index, 4);
	s->blk = b;
	s->index = index;
	s->sw = hook_tramp_switch(r, i);
	s->sw[HOOK_SW_FN] = s->fn;
	s->on_addr = (uintptr_t)(b + HOOK_BLK_ON);
	s->reloc = (uintptr_t)(b + HOOK_BLK_HEAD);
	s->count_addr = (uintptr_t)(b + (hook_tramp_count(b, index) ? HOOK_BLK_COUNT :
	    HOOK_BLK_COUNT_STUB));
	__atomic_store_n(s->sw, s->reloc, __ATOMIC_RELAXED);
}

/* See hook.h.  The instruction cache is made coherent with the written
 * blocks first (arm64 keeps the two apart). */
int hook_tramp_seal(const struct hook_region *r)
{
	__builtin___clear_cache((char *)r->base, (char *)r->base + r->code_len);
	return mprotect(r->base, r->code_len, PROT_READ | PROT_EXEC);
}
