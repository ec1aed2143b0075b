/*
 * tinyfuncs.c - a CPU-bound target with known exact call counts and many
 * tiny hot functions, for the overhead budget's tests (tests/e2e/budget-*.sh).
 * Each of ITER rounds calls work_0..work_9 once (each spins for its own,
 * well separated, self time: 40, 38, ... 22 units) and dispatch once, which
 * calls tiny_00..tiny_39 REPS times each through a table: a few ns each,
 * millions of calls a second, together more time than work_9 but each far
 * less.  So the ten functions with the most self time are work_0..work_9,
 * unless a caller's self time absorbs children that are no longer timed.
 * Exact counts: work_N and dispatch ITER, tiny_NN ITER * REPS.
 * Deterministic: the same calls in the same order on every run.
 *   tinyfuncs [ITER]   (default 6000, about 3 s uninstrumented)
 */
#include <stdio.h>
#include <stdlib.h>

#define NT    40
#define REPS  250
#define UNIT  1000                /* spin iterations per unit */

static volatile unsigned sink;

/* Spin for n units (a macro: its time is its caller's self time). */
#define SPIN(n) do { \
	unsigned s_ = sink; \
	for (long k_ = 0; k_ < (long)(n) * UNIT; k_++) \
		s_ = s_ * 1103515245u + 12345u; \
	sink = s_; \
} while (0)

#define TINY(j) __attribute__((noinline)) int tiny_##j(int x) \
	{ return (x * (2 * 1##j + 3)) ^ (x >> 3) ^ (1##j * 7919); }
TINY(00) TINY(01) TINY(02) TINY(03) TINY(04) TINY(05) TINY(06) TINY(07) TINY(08) TINY(09)
TINY(10) TINY(11) TINY(12) TINY(13) TINY(14) TINY(15) TINY(16) TINY(17) TINY(18) TINY(19)
TINY(20) TINY(21) TINY(22) TINY(23) TINY(24) TINY(25) TINY(26) TINY(27) TINY(28) TINY(29)
TINY(30) TINY(31) TINY(32) TINY(33) TINY(34) TINY(35) TINY(36) TINY(37) TINY(38) TINY(39)

static int (*const volatile table[NT])(int) = {
	tiny_00, tiny_01, tiny_02, tiny_03, tiny_04, tiny_05, tiny_06, tiny_07, tiny_08, tiny_09,
	tiny_10, tiny_11, tiny_12, tiny_13, tiny_14, tiny_15, tiny_16, tiny_17, tiny_18, tiny_19,
	tiny_20, tiny_21, tiny_22, tiny_23, tiny_24, tiny_25, tiny_26, tiny_27, tiny_28, tiny_29,
	tiny_30, tiny_31, tiny_32, tiny_33, tiny_34, tiny_35, tiny_36, tiny_37, tiny_38, tiny_39,
};

__attribute__((noinline)) void dispatch(void)
{
	int acc = (int)sink;

	for (int r = 0; r < REPS; r++)
		for (int j = 0; j < NT; j++)
			acc = table[j](acc);
	sink = (unsigned)acc;
}

#define WORK(i) __attribute__((noinline)) void work_##i(void) { SPIN(40 - 2 * i); }
WORK(0) WORK(1) WORK(2) WORK(3) WORK(4) WORK(5) WORK(6) WORK(7) WORK(8) WORK(9)

int main(int argc, char **argv)
{
	long iter = argc > 1 ? atol(argv[1]) : 6000;

	if (iter <= 0) {
		fprintf(stderr, "usage: tinyfuncs [ITER > 0]\n");
		return 2;
	}
	for (long i = 0; i < iter; i++) {
		work_0(); work_1(); work_2(); work_3(); work_4();
		work_5(); work_6(); work_7(); work_8(); work_9();
		dispatch();
	}
	printf("tinyfuncs: %ld rounds, %u\n", iter, sink);
	return 0;
}
