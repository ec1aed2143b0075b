/*
 * test-timing-vec.c - tm_vec_call (collectors/timing/timing_vec.c) gives back the
 * vector registers as they were, whatever the function it calls does to
 * them: xmm0 (an argument register), xmm8 (a scratch register -fipa-ra
 * callers may rely on) and the upper half of ymm9 (AVX, when the CPU has
 * it), through XSAVE and through the FXSAVE fallback.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "timing_int.h"

extern unsigned tm_vec_size;

/* The function called with the state saved: wipes the registers (ymm9
 * only when test_vec_avx). */
void *test_vec_clobber(void);
int test_vec_avx;
/* Loads known values, calls tm_vec_call(test_vec_clobber), stores what the
 * registers hold after it into out[0..5]: xmm0, xmm8 (low, high), ymm9's
 * upper half (2 words, AVX only: avx != 0). */
void test_vec_probe(uint64_t *out, int avx);

__asm__(
	".text\n"
	".globl test_vec_clobber\n"
	"test_vec_clobber:\n"
	"	pxor %xmm0, %xmm0\n pxor %xmm8, %xmm8\n"
	"	cmpl $0, test_vec_avx(%rip)\n"
	"	jz 1f\n"
	"	vpxor %ymm9, %ymm9, %ymm9\n vzeroupper\n"
	"1:	movl $42, %eax\n"
	"	ret\n"
	".globl test_vec_probe\n"
	"test_vec_probe:\n"
	"	pushq %rbx\n pushq %r12\n pushq %r13\n"  /* rsp: 0 mod 16 + 8 */
	"	subq $8, %rsp\n"
	"	movq %rdi, %rbx\n movl %esi, %r12d\n"
	"	movabsq $0x1111222233334444, %rax\n movq %rax, %xmm0\n"
	"	movabsq $0x5555666677778888, %rax\n movq %rax, %xmm8\n pinsrq $1, %rax, %xmm8\n"
	"	testl %r12d, %r12d\n jz 2f\n"
	"	movabsq $0x9999aaaabbbbcccc, %rax\n movq %rax, %xmm1\n"
	"	vpbroadcastq %xmm1, %ymm9\n"
	"2:	leaq test_vec_clobber(%rip), %rdi\n"
	"	call tm_vec_call\n"
	"	movq %xmm0, 0(%rbx)\n"
	"	movq %xmm8, 8(%rbx)\n pextrq $1, %xmm8, %rax\n movq %rax, 16(%rbx)\n"
	"	testl %r12d, %r12d\n jz 3f\n"
	"	vextracti128 $1, %ymm9, %xmm1\n"
	"	movq %xmm1, 24(%rbx)\n pextrq $1, %xmm1, %rax\n movq %rax, 32(%rbx)\n vzeroupper\n"
	"3:	addq $8, %rsp\n popq %r13\n popq %r12\n popq %rbx\n"
	"	ret\n"
);

/* Both save paths keep every register the callee wiped. */
static void test_vec_kept(void **state)
{
	int avx = __builtin_cpu_supports("avx2");

	(void)state;
	tm_vec_init();
	for (int pass = 0; pass < 2; pass++) {
		uint64_t out[5] = { 0 };

		if (pass == 1)
			tm_vec_size = 0;        /* the FXSAVE fallback (no upper ymm) */
		test_vec_avx = avx && pass == 0;
		test_vec_probe(out, test_vec_avx);
		assert_int_equal(out[0], 0x1111222233334444ull);
		assert_int_equal(out[1], 0x5555666677778888ull);
		assert_int_equal(out[2], 0x5555666677778888ull);
		if (avx && pass == 0) {
			assert_int_equal(out[3], 0x9999aaaabbbbccccull);
			assert_int_equal(out[4], 0x9999aaaabbbbccccull);
		}
	}
	tm_vec_init();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vec_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
