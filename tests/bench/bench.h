/*
 * bench.h - what the per-call benchmarks of tests/bench share: the
 * thread's CPU clock and the median of a few runs' figures.
 */
#ifndef HOOKSCOPE_BENCH_H
#define HOOKSCOPE_BENCH_H

#include <stdlib.h>
#include <time.h>

/* CPU time of this thread in ns. */
static inline double bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n), n odd (v is sorted in place). */
static inline double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, bench_cmp_double);
	return v[n / 2];
}

#endif
