/*
 * alloc-loop.c - what a malloc+free pair costs (make bench): the median
 * over 7 runs of CPU ns per pair of a loop that frees one of 64 live blocks
 * and allocates another of 16-143 bytes (glibc's tcache and fastbins).
 * tests/bench/run.sh runs it alone, with a preloaded library that only
 * starts an idle thread (tests/bench/floor/idle-thread.c: glibc's allocator
 * then takes its multi-threaded paths), and under the agent at level 0 with
 * memory off (its wrappers passing every call through) and sampled.
 *   HS_BENCH_ALLOC_PAIRS (default 5000000).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

int main(void)
{
	long n = getenv("HS_BENCH_ALLOC_PAIRS") ? atol(getenv("HS_BENCH_ALLOC_PAIRS")) : 5000000;
	void *live[64] = { 0 };
	double per[7];

	if (n <= 0) {
		fprintf(stderr, "alloc-loop: HS_BENCH_ALLOC_PAIRS must be a positive count\n");
		return 1;
	}
	for (int r = 0; r < 7; r++) {
		double t0 = bench_cpu_ns();

		for (long i = 0; i < n; i++) {
			free(live[i & 63]);
			if ((live[i & 63] = malloc(16 + (size_t)(i & 127))) == NULL)
				return 1;
		}
		per[r] = (bench_cpu_ns() - t0) / (double)n;
	}
	for (int k = 0; k < 64; k++)
		free(live[k]);
	printf("%8.1f ns per malloc+free\n", bench_median(per, 7));
	return 0;
}
