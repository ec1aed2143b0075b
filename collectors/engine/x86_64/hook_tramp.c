/*
 * hook_tramp.c - the x86-64 blocks and the three assembly stubs (the
 * regions that hold the blocks are the engine's, hook_region.c: within
 * rel32 reach of their module, HOOK_REACH).
 *
 * hook_enter_common is called by an enabled block before the function runs,
 * hook_exit_common is jumped to by the block when the function returned
 * (hook.h has the block and why calls are made that way).  Both keep every
 * general register and align the stack for the C call; vector registers
 * are left alone by the C half, except in sanitizer builds (HOOK_VEC).
 */
#include <string.h>
#include <sys/mman.h>

#include "hook.h"
#include "timing.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HOOK_SAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HOOK_SAN 1
#endif
#endif

/* Every call-clobbered general register: gcc's -fipa-ra lets a caller keep
 * values in the scratch registers a local callee is known not to touch, so
 * the stubs leave all of them as they found them (9 pushes, 72 bytes). */
#define HOOK_SAVE \
	"	pushq %rax\n pushq %rcx\n pushq %rdx\n pushq %rsi\n pushq %rdi\n" \
	"	pushq %r8\n pushq %r9\n pushq %r10\n pushq %r11\n"
#define HOOK_RESTORE \
	"	popq %r11\n popq %r10\n popq %r9\n popq %r8\n popq %rdi\n" \
	"	popq %rsi\n popq %rdx\n popq %rcx\n popq %rax\n"

#ifdef HOOK_SAN
/* The sanitizer runtimes the C half calls into use vector registers. */
#define HOOK_VEC "256"
#define HOOK_VEC_SAVE \
	"	subq $256, %rsp\n" \
	"	movdqu %xmm0, 0(%rsp)\n movdqu %xmm1, 16(%rsp)\n" \
	"	movdqu %xmm2, 32(%rsp)\n movdqu %xmm3, 48(%rsp)\n" \
	"	movdqu %xmm4, 64(%rsp)\n movdqu %xmm5, 80(%rsp)\n" \
	"	movdqu %xmm6, 96(%rsp)\n movdqu %xmm7, 112(%rsp)\n" \
	"	movdqu %xmm8, 128(%rsp)\n movdqu %xmm9, 144(%rsp)\n" \
	"	movdqu %xmm10, 160(%rsp)\n movdqu %xmm11, 176(%rsp)\n" \
	"	movdqu %xmm12, 192(%rsp)\n movdqu %xmm13, 208(%rsp)\n" \
	"	movdqu %xmm14, 224(%rsp)\n movdqu %xmm15, 240(%rsp)\n"
#define HOOK_VEC_RESTORE \
	"	movdqu 0(%rsp), %xmm0\n movdqu 16(%rsp), %xmm1\n" \
	"	movdqu 32(%rsp), %xmm2\n movdqu 48(%rsp), %xmm3\n" \
	"	movdqu 64(%rsp), %xmm4\n movdqu 80(%rsp), %xmm5\n" \
	"	movdqu 96(%rsp), %xmm6\n movdqu 112(%rsp), %xmm7\n" \
	"	movdqu 128(%rsp), %xmm8\n movdqu 144(%rsp), %xmm9\n" \
	"	movdqu 160(%rsp), %xmm10\n movdqu 176(%rsp), %xmm11\n" \
	"	movdqu 192(%rsp), %xmm12\n movdqu 208(%rsp), %xmm13\n" \
	"	movdqu 224(%rsp), %xmm14\n movdqu 240(%rsp), %xmm15\n" \
	"	addq $256, %rsp\n"
#else
#define HOOK_VEC "0"
#define HOOK_VEC_SAVE ""
#define HOOK_VEC_RESTORE ""
#endif

/* hook_enter_common: [rsp] = blk + HOOK_BLK_ENTERED (its return address),
 * [rsp+8] = the caller's return address (the slot); rsp is 16-byte aligned
 * (the function's entry alignment, 8 mod 16, plus the block's call).  9
 * pushes + 8 + HOOK_VEC realign it for the C call.  A call not timed
 * returns to blk + HOOK_BLK_HEAD instead (add to the return address: a
 * mispredicted return, on a rare path). */
__asm__(
	".text\n"
	".globl hook_enter_common\n"
	".hidden hook_enter_common\n"
	".type hook_enter_common, @function\n"
	"hook_enter_common:\n"
	HOOK_SAVE
	"	leaq -8(%rsp), %rsp\n"
	HOOK_VEC_SAVE
	"	movq " HOOK_VEC "+80(%rsp), %rdi\n"            /* blk + 12 */
	"	leaq " HOOK_VEC "+88(%rsp), %rsi\n"            /* the slot */
	"	call hook_site_enter\n"
	"	testb %al, %al\n"
	"	jnz 1f\n"
	"	addq $20, " HOOK_VEC "+80(%rsp)\n"             /* to blk + 32 */
	"1:\n"
	HOOK_VEC_RESTORE
	"	leaq 8(%rsp), %rsp\n"
	HOOK_RESTORE
	"	ret\n"
	".size hook_enter_common, .-hook_enter_common\n"
	"\n"
	/* hook_exit_common: rsp = slot + 8, 16-byte aligned (the caller's
	 * alignment after the return).  The real return address goes back
	 * into the slot and is returned to. */
	".globl hook_exit_common\n"
	".hidden hook_exit_common\n"
	".type hook_exit_common, @function\n"
	"hook_exit_common:\n"
	"	leaq -8(%rsp), %rsp\n"                         /* rsp = the slot */
	HOOK_SAVE
	HOOK_VEC_SAVE
	"	leaq " HOOK_VEC "+72(%rsp), %rdi\n"
	"	call hook_site_exit\n"
	"	movq %rax, " HOOK_VEC "+72(%rsp)\n"
	HOOK_VEC_RESTORE
	HOOK_RESTORE
	"	ret\n"
	".size hook_exit_common, .-hook_exit_common\n"
	"\n"
	/* hook_count_common: [rsp] = blk + HOOK_BLK_COUNTED, aligned as for
	 * hook_enter_common; back there (a predicted return). */
	".globl hook_count_common\n"
	".hidden hook_count_common\n"
	".type hook_count_common, @function\n"
	"hook_count_common:\n"
	HOOK_SAVE
	"	leaq -8(%rsp), %rsp\n"
	HOOK_VEC_SAVE
	"	movq " HOOK_VEC "+80(%rsp), %rdi\n"            /* blk + 70 */
	"	call hook_site_count\n"
	HOOK_VEC_RESTORE
	"	leaq 8(%rsp), %rsp\n"
	HOOK_RESTORE
	"	ret\n"
	".size hook_count_common, .-hook_count_common\n"
);

/* Emit op *target(%rip) at p (6 bytes: ff 15 call, ff 25 jmp). */
static void hook_tramp_ind(uint8_t *p, uint8_t op, const void *target)
{
	int32_t rel = (int32_t)((intptr_t)target - (intptr_t)(p + 6));

	p[0] = 0xff;
	p[1] = op;
	memcpy(p + 2, &rel, 4);
}

/* The block's own count at b + HOOK_BLK_COUNT for the site with this index
 * (hook_layout.h); false, writing nothing, where it cannot have one. */
static bool hook_tramp_count(uint8_t *b, uint32_t index)
{
	static const uint8_t code[] = {
		0x50,                                     /* push %rax */
		0x64, 0x48, 0x8b, 0x04, 0x25, 0, 0, 0, 0, /* mov %fs:tpoff, %rax */
		0x48, 0x85, 0xc0,                         /* test %rax, %rax */
		0x74, 0x0a,                               /* je 1f */
		0x48, 0xff, 0x80, 0, 0, 0, 0,             /* incq index*8(%rax) */
		0x58,                                     /* pop %rax */
		0xeb, HOOK_BLK_HEAD - (HOOK_BLK_COUNT + 25),         /* jmp blk+32 */
		0x58,                                     /* 1: pop %rax */
		0xeb, HOOK_BLK_COUNT_STUB - (HOOK_BLK_COUNT + 28),   /* jmp blk+64 */
	};
	_Static_assert(HOOK_BLK_COUNT + sizeof code <= HOOK_BLK_SIZE, "the count fits the block");
	intptr_t off;
	int32_t tls, at = (int32_t)index * 8;

	if (!tm_sc_tpoff(&off) || off != (int32_t)off || index >= TM_SC_MAX)
		return false;
	tls = (int32_t)off;
	memcpy(b + HOOK_BLK_COUNT, code, sizeof code);
	memcpy(b + HOOK_BLK_COUNT_TLS, &tls, 4);
	memcpy(b + HOOK_BLK_COUNT_IDX, &at, 4);
	return true;
}

/* See hook.h (the block layout). */
void hook_tramp_fill(const struct hook_region *r, size_t i, uint32_t index, struct hook_site *s,
    const struct hook_plan *p)
{
	static const uint8_t pop_slot[] = { 0x48, 0x8d, 0x64, 0x24, 0x08 };   /* leaq 8(%rsp), %rsp */
	uint8_t *b = hook_tramp_blk(r, i);
	uintptr_t *common = (uintptr_t *)(r->base + r->code_len);
	int32_t rel = HOOK_BLK_HEAD - HOOK_BLK_RET;
	int32_t back = HOOK_BLK_HEAD - (HOOK_BLK_COUNTED + 5);

	common[0] = (uintptr_t)hook_enter_common;
	common[1] = (uintptr_t)hook_exit_common;
	common[2] = (uintptr_t)hook_count_common;
	hook_tramp_ind(b, 0x25, hook_tramp_switch(r, i));             /* jmp *switch */
	hook_tramp_ind(b + HOOK_BLK_ON, 0x15, &common[0]);            /* call *enter */
	memcpy(b + HOOK_BLK_ENTERED, pop_slot, sizeof pop_slot);
	b[HOOK_BLK_ENTERED + 5] = 0xe8;                                /* call blk+32 */
	memcpy(b + HOOK_BLK_ENTERED + 6, &rel, 4);
	hook_tramp_ind(b + HOOK_BLK_RET, 0x25, &common[1]);           /* jmp *exit */
	memcpy(b + HOOK_BLK_INDEX, &index, 4);
	memcpy(b + HOOK_BLK_HEAD, p->out, p->len);
	hook_tramp_ind(b + HOOK_BLK_COUNT_STUB, 0x15, &common[2]);    /* call *count */
	b[HOOK_BLK_COUNTED] = 0xe9;                                    /* jmp blk+32 */
	memcpy(b + HOOK_BLK_COUNTED + 1, &back, 4);
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

/* See hook.h. */
int hook_tramp_seal(const struct hook_region *r)
{
	return mprotect(r->base, r->code_len, PROT_READ | PROT_EXEC);
}
