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
#include <time.h>

/* CPU time of this thread in ns. */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

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
		double t0 = cpu_ns();

		for (long i = 0; i < n; i++) {
			free(live[i & 63]);
			if ((live[i & 63] = malloc(16 + (size_t)(i & 127))) == NULL)
				return 1;
		}
		per[r] = (cpu_ns() - t0) / (double)n;
	}
	for (int k = 0; k < 64; k++)
		free(live[k]);
	qsort(per, 7, sizeof per[0], cmp);
	printf("%8.1f ns per malloc+free\n", per[3]);
	return 0;
}
