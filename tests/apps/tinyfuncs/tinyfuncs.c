/*
 * tinyfuncs.c - a CPU-bound target with known exact call counts and many
 * tiny hot functions, for the overhead budget's tests (tests/e2e/budget-*.sh).
 * Each of ITER rounds calls work_0..work_9 once (each spins for its own,
 * well separated, self time: 40, 38, ... 22 units) and dispatch once, which
 * calls tiny_00..tiny_39 REPS times each: a few ns each, millions of calls
 * a second, together more time than work_0 but each far less than work_9,
 * and dispatch's own time far less than work_9's.  So the ten functions with the most self time are work_0..work_9,
 * unless a caller's self time absorbs children that are no longer timed.
 * Exact counts: work_N and dispatch ITER, tiny_NN ITER * REPS.
 * Deterministic: the same calls in the same order on every run.
 *   tinyfuncs [ITER]   (default 6000, about 3 s uninstrumented)
 */
#include <stdio.h>
#include <stdlib.h>

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

/* A tiny function: a few dependent multiplies, a few ns. */
#define TINY(j) __attribute__((noinline)) unsigned tiny_##j(unsigned x) \
	{ x = x * (2 * 1##j + 3) + 1; x ^= x >> 7; return x * 40503 + 1##j; }
TINY(00) TINY(01) TINY(02) TINY(03) TINY(04) TINY(05) TINY(06) TINY(07) TINY(08) TINY(09)
TINY(10) TINY(11) TINY(12) TINY(13) TINY(14) TINY(15) TINY(16) TINY(17) TINY(18) TINY(19)
TINY(20) TINY(21) TINY(22) TINY(23) TINY(24) TINY(25) TINY(26) TINY(27) TINY(28) TINY(29)
TINY(30) TINY(31) TINY(32) TINY(33) TINY(34) TINY(35) TINY(36) TINY(37) TINY(38) TINY(39)

#define C4(a, b, c, d) acc = tiny_##a(acc); acc = tiny_##b(acc); acc = tiny_##c(acc); acc = tiny_##d(acc);

/* Direct calls: dispatch's own time is little more than the calls. */
__attribute__((noinline)) void dispatch(void)
{
	unsigned acc = sink;

	for (int r = 0; r < REPS; r++) {
		C4(00, 01, 02, 03) C4(04, 05, 06, 07) C4(08, 09, 10, 11) C4(12, 13, 14, 15)
		C4(16, 17, 18, 19) C4(20, 21, 22, 23) C4(24, 25, 26, 27) C4(28, 29, 30, 31)
		C4(32, 33, 34, 35) C4(36, 37, 38, 39)
	}
	sink = acc;
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
