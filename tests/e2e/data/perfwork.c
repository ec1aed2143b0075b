/*
 * perfwork.c - CPU-bound target of tests/e2e/engine-perf.sh: eight static
 * functions with clearly different self costs, so a sampling profiler and
 * the hook engine must agree on the top five.  Per round, in work units
 * (one unit = 1000 steps of a multiply-add chain the compiler cannot fold):
 *   w30 300 (1 call)   w20 200 (2 x 100)   w14 140 (1 call)
 *   w09  90 (3 x 30)   w06  60 (6 x 10)    w03  25 (25 x 1)
 *   w02  15 (15 x 1)   w01  10 (10 x 1)
 * i.e. about 36/24/17/11/7 % for the top five and 3/2/1 % for the rest.
 *   perfwork ROUNDS
 * Built at test time with plain `cc -O2 -g` (no instrumentation flags).
 */
#include <stdio.h>
#include <stdlib.h>

#define UNIT 1000

static volatile unsigned long sink;

/* n units of dependent multiply-adds (a step takes a few cycles). */
#define WORK(n, x) do { \
	for (unsigned long i_ = 0; i_ < (unsigned long)(n) * UNIT; i_++) \
		(x) = (x) * 6364136223846793005ul + 1442695040888963407ul; \
} while (0)

/* noipa: no inlining, no clones (.isra/.constprop names), so both
 * profilers see exactly these eight names. */
#define FN(name) __attribute__((noipa)) static unsigned long name(unsigned long n, unsigned long x)
FN(w30) { WORK(n, x); return x; }
FN(w20) { WORK(n, x); return x; }
FN(w14) { WORK(n, x); return x; }
FN(w09) { WORK(n, x); return x; }
FN(w06) { WORK(n, x); return x; }
FN(w03) { WORK(n, x); return x; }
FN(w02) { WORK(n, x); return x; }
FN(w01) { WORK(n, x); return x; }

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 0;
	unsigned long x = 1;

	if (rounds <= 0) {
		fprintf(stderr, "usage: perfwork ROUNDS\n");
		return 2;
	}
	for (long r = 0; r < rounds; r++) {
		x = w30(300, x);
		for (int i = 0; i < 2; i++)
			x = w20(100, x);
		x = w14(140, x);
		for (int i = 0; i < 3; i++)
			x = w09(30, x);
		for (int i = 0; i < 6; i++)
			x = w06(10, x);
		for (int i = 0; i < 25; i++)
			x = w03(1, x);
		for (int i = 0; i < 15; i++)
			x = w02(1, x);
		for (int i = 0; i < 10; i++)
			x = w01(1, x);
	}
	sink = x;
	printf("rounds=%ld x=%lx\n", rounds, x);
	return 0;
}
