/*
 * hook_tramp.c - trampoline regions and the two assembly stubs.
 *
 * A region holds one 64-byte block per site (code, read+exec once written)
 * followed by one 8-byte switch per site (read+write data).  It must lie
 * within rel32 reach of every byte of its module, because the function's jmp
 * rel32 and the relocated prologue's rel32 branches and RIP-relative
 * operands span the two.  It is found with MAP_FIXED_NOREPLACE hints
 * stepping away from the module, below it first (above a PIE executable is
 * where the brk heap grows).
 *
 * hook_entry_common runs between the function's caller and its relocated
 * prologue, hook_return_tramp between the function's return and its caller.
 * Both keep every register (see HOOK_SAVE; x87 and the upper halves of ymm
 * are untouched by the C code they call) and align the stack for the C
 * call.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hook.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define HOOK_REACH   ((uintptr_t)0x7ff00000)   /* a little under 2 GB */
#define HOOK_STEP    ((uintptr_t)0x100000)     /* 1 MB between hints */

/* Save/restore every call-clobbered register: gcc's -fipa-ra lets a caller
 * keep values in the scratch registers a local callee is known not to
 * touch, so the stubs must leave all of them as they found them. */
#define HOOK_SAVE \
	"	pushq %rax\n pushq %rcx\n pushq %rdx\n pushq %rsi\n pushq %rdi\n" \
	"	pushq %r8\n pushq %r9\n pushq %r10\n pushq %r11\n" \
	"	subq $264, %rsp\n" \
	"	movdqu %xmm0, 0(%rsp)\n movdqu %xmm1, 16(%rsp)\n" \
	"	movdqu %xmm2, 32(%rsp)\n movdqu %xmm3, 48(%rsp)\n" \
	"	movdqu %xmm4, 64(%rsp)\n movdqu %xmm5, 80(%rsp)\n" \
	"	movdqu %xmm6, 96(%rsp)\n movdqu %xmm7, 112(%rsp)\n" \
	"	movdqu %xmm8, 128(%rsp)\n movdqu %xmm9, 144(%rsp)\n" \
	"	movdqu %xmm10, 160(%rsp)\n movdqu %xmm11, 176(%rsp)\n" \
	"	movdqu %xmm12, 192(%rsp)\n movdqu %xmm13, 208(%rsp)\n" \
	"	movdqu %xmm14, 224(%rsp)\n movdqu %xmm15, 240(%rsp)\n"
#define HOOK_RESTORE \
	"	movdqu 0(%rsp), %xmm0\n movdqu 16(%rsp), %xmm1\n" \
	"	movdqu 32(%rsp), %xmm2\n movdqu 48(%rsp), %xmm3\n" \
	"	movdqu 64(%rsp), %xmm4\n movdqu 80(%rsp), %xmm5\n" \
	"	movdqu 96(%rsp), %xmm6\n movdqu 112(%rsp), %xmm7\n" \
	"	movdqu 128(%rsp), %xmm8\n movdqu 144(%rsp), %xmm9\n" \
	"	movdqu 160(%rsp), %xmm10\n movdqu 176(%rsp), %xmm11\n" \
	"	movdqu 192(%rsp), %xmm12\n movdqu 208(%rsp), %xmm13\n" \
	"	movdqu 224(%rsp), %xmm14\n movdqu 240(%rsp), %xmm15\n" \
	"	addq $264, %rsp\n" \
	"	popq %r11\n popq %r10\n popq %r9\n popq %r8\n popq %rdi\n" \
	"	popq %rsi\n popq %rdx\n popq %rcx\n popq %rax\n"

/* hook_entry_common: [rsp] = site index (pushed by the block), [rsp+8] =
 * the return address.  9 pushes + 264 keep rsp 16-byte aligned for the
 * call (entry rsp = 8 mod 16, + the index = 0).  The continuation replaces
 * the index and is jumped to through the red zone, which signal frames
 * never touch, so no register carries it. */
__asm__(
	".text\n"
	".globl hook_entry_common\n"
	".hidden hook_entry_common\n"
	".type hook_entry_common, @function\n"
	"hook_entry_common:\n"
	HOOK_SAVE
	"	movq 336(%rsp), %rdi\n"          /* 264 + 9 * 8: the index */
	"	leaq 344(%rsp), %rsi\n"          /* the return address slot */
	"	call hook_site_enter\n"
	"	movq %rax, 336(%rsp)\n"          /* the relocated prologue */
	HOOK_RESTORE
	"	leaq 8(%rsp), %rsp\n"
	"	jmp *-8(%rsp)\n"
	".size hook_entry_common, .-hook_entry_common\n"
	"\n"
	/* hook_return_tramp: rsp = slot + 8 (16-byte aligned by the ABI).  The
	 * real return address goes back into the slot, then the same jump
	 * through the red zone. */
	".globl hook_return_tramp\n"
	".hidden hook_return_tramp\n"
	".type hook_return_tramp, @function\n"
	"hook_return_tramp:\n"
	"	leaq -8(%rsp), %rsp\n"           /* keep the slot out of the saves */
	HOOK_SAVE
	"	leaq -8(%rsp), %rsp\n"           /* 16-byte alignment for the call */
	"	leaq 344(%rsp), %rdi\n"          /* 8 + 264 + 9 * 8: the slot */
	"	call hook_site_exit\n"
	"	movq %rax, 344(%rsp)\n"
	"	leaq 8(%rsp), %rsp\n"
	HOOK_RESTORE
	"	leaq 8(%rsp), %rsp\n"
	"	jmp *-8(%rsp)\n"
	".size hook_return_tramp, .-hook_return_tramp\n"
);

/* Round up to a multiple of the page size. */
static size_t hook_tramp_pages(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

/* Try to map len bytes exactly at hint; true on success. */
static bool hook_tramp_try(uintptr_t hint, size_t len, uint8_t **out)
{
	void *p = mmap((void *)hint, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return false;
	if ((uintptr_t)p != hint) {     /* a kernel without NOREPLACE took it as a hint */
		munmap(p, len);
		return false;
	}
	*out = p;
	return true;
}

/* See hook.h. */
int hook_tramp_map(uintptr_t lo, uintptr_t hi, size_t nblk, struct hook_region *r)
{
	size_t code = hook_tramp_pages(nblk * HOOK_BLK_SIZE);
	size_t len = code + hook_tramp_pages((nblk + 1) * sizeof(uintptr_t));
	uintptr_t step = HOOK_STEP, span = (len + step - 1) & ~(step - 1), hint;

	memset(r, 0, sizeof *r);
	if (hi - lo + len >= HOOK_REACH)
		return -1;
	lo &= ~(step - 1);
	/* Below the module: [hint, hint + len) with hi - hint < reach. */
	if (lo > span + step)
		for (hint = lo - span; hint > step && hi - hint < HOOK_REACH; hint -= step)
			if (hook_tramp_try(hint, len, &r->base))
				goto found;
	/* Above it: hint + len - lo < reach. */
	for (hint = (hi + step - 1) & ~(step - 1); hint + len - lo < HOOK_REACH; hint += step)
		if (hook_tramp_try(hint, len, &r->base))
			goto found;
	errno = ENOMEM;
	return -1;
found:
	r->len = len;
	r->code_len = code;
	r->nblk = nblk;
	memset(r->base, 0xcc, code);    /* int3 in every unused byte */
	return 0;
}

/* See hook.h. */
uint8_t *hook_tramp_blk(const struct hook_region *r, size_t i)
{
	return r->base + i * HOOK_BLK_SIZE;
}

/* See hook.h.  The data part starts with the address of the common stub
 * (for the blocks' jmp *), then one switch per block. */
uintptr_t *hook_tramp_switch(const struct hook_region *r, size_t i)
{
	return (uintptr_t *)(r->base + r->code_len) + 1 + i;
}

/* Emit jmp *target(%rip) at p (6 bytes), target an address in the region. */
static void hook_tramp_jmp_ind(uint8_t *p, const void *target)
{
	int32_t rel = (int32_t)((intptr_t)target - (intptr_t)(p + 6));

	p[0] = 0xff;
	p[1] = 0x25;
	memcpy(p + 2, &rel, 4);
}

/* See hook.h. */
void hook_tramp_fill(const struct hook_region *r, size_t i, uint32_t index, struct hook_site *s,
    const struct hook_x86_plan *p)
{
	uint8_t *b = hook_tramp_blk(r, i);
	uintptr_t *common = (uintptr_t *)(r->base + r->code_len);

	*common = (uintptr_t)hook_entry_common;
	hook_tramp_jmp_ind(b, hook_tramp_switch(r, i));        /* jmp *switch */
	b[6] = 0x68;                                            /* push $index */
	memcpy(b + 7, &index, 4);
	hook_tramp_jmp_ind(b + 11, common);                     /* jmp *common */
	memcpy(b + HOOK_BLK_HEAD, p->out, p->len);
	s->blk = b;
	s->sw = hook_tramp_switch(r, i);
	s->on_addr = (uintptr_t)(b + 6);
	s->reloc = (uintptr_t)(b + HOOK_BLK_HEAD);
	__atomic_store_n(s->sw, s->reloc, __ATOMIC_RELAXED);
}

/* See hook.h. */
int hook_tramp_seal(const struct hook_region *r)
{
	return mprotect(r->base, r->code_len, PROT_READ | PROT_EXEC);
}
