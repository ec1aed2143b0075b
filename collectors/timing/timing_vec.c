/*
 * timing_vec.c - tm_vec_call(fn): call fn with the whole extended (vector)
 * state saved around it.
 *
 * timing_hot.c, timing_site.c and hook_hot.c are built with -mgeneral-regs-only because the
 * hook engine's stubs save only the general registers (hook.h).  Their rare
 * calls into code that may use vector registers (libc, on a thread's first
 * timed call) go through tm_vec_call, which saves the state -- as glibc's
 * lazy-binding trampoline does -- with XSAVE into an area of tm_vec_size
 * bytes on the stack, or FXSAVE when the CPU or the kernel has no XSAVE
 * (tm_vec_size 0).  The mask leaves out AMX tiles, which a process must
 * request and we never touch.
 */
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "timing_int.h"

#if defined(__x86_64__)
unsigned tm_vec_size __attribute__((visibility("hidden")));
__asm__(
	".text\n"
	".globl tm_vec_call\n"
	".hidden tm_vec_call\n"
	".type tm_vec_call, @function\n"
	"tm_vec_call:\n"
	"	pushq %rbp\n movq %rsp, %rbp\n pushq %rbx\n pushq %r12\n"
	"	movq %rdi, %r12\n"
	"	movl tm_vec_size(%rip), %eax\n"
	"	testl %eax, %eax\n"
	"	jz 1f\n"
	"	subq %rax, %rsp\n andq $-64, %rsp\n"
	"	xorl %ecx, %ecx\n"                  /* the XSAVE header must be zero */
	"	movq %rcx, 512(%rsp)\n movq %rcx, 520(%rsp)\n movq %rcx, 528(%rsp)\n"
	"	movq %rcx, 536(%rsp)\n movq %rcx, 544(%rsp)\n movq %rcx, 552(%rsp)\n"
	"	movq %rcx, 560(%rsp)\n movq %rcx, 568(%rsp)\n"
	"	movl $0xe7, %eax\n xorl %edx, %edx\n xsave64 (%rsp)\n"
	"	call *%r12\n movq %rax, %rbx\n"
	"	movl $0xe7, %eax\n xorl %edx, %edx\n xrstor64 (%rsp)\n"
	"	jmp 2f\n"
	"1:	subq $512, %rsp\n andq $-64, %rsp\n fxsave64 (%rsp)\n"
	"	call *%r12\n movq %rax, %rbx\n"
	"	fxrstor64 (%rsp)\n"
	"2:	movq %rbx, %rax\n"
	"	leaq -16(%rbp), %rsp\n popq %r12\n popq %rbx\n popq %rbp\n"
	"	ret\n"
	".size tm_vec_call, .-tm_vec_call\n"
);

/* The XSAVE area size of the state components the kernel enabled, with
 * room to align it, or 0 for FXSAVE. */
static unsigned tm_vec_probe(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return 0;
	if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d) || b < 576)
		return 0;
	return b + 64;
}

/* See timing.h. */
void tm_vec_init(void)
{
	tm_vec_size = tm_vec_probe();
}
#else
/* See timing.h. */
void tm_vec_init(void)
{
}
#endif
