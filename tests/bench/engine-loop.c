/*
 * engine-loop.c - the benchmark target of `make bench`: THREADS threads each
 * call one small non-inlined function N times; prints the CPU time per call
 * of one thread (the mean over the threads; each thread's own CPU clock,
 * so other processes and the agent's reporter thread taking turns on the
 * CPUs do not count; 2 threads cost the same per call as 1 when nothing is
 * shared) and the wall time per call of one thread.
 *   engine-loop [N [THREADS]]
 * The Makefile builds it plain (-O2, no instrumentation flags: only the
 * hook engine can time it); tests/bench/run.sh also builds it with
 * -finstrument-functions (the floor, the agent's own hooks, uftrace) and
 * with clang -fpatchable-function-entry=5 (compiler-assisted sites).  Only
 * leaf and outer are instrumented in those builds.
 *   HS_LOOP_NESTED=1: the loop calls outer, whose first instruction after
 * its stack adjustment is the call of leaf (the hook engine relocates that
 * call into the site's block), and the figures are per call of either.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINSTR __attribute__((no_instrument_function))
/* noipa keeps gcc from inlining leaf or assuming what it clobbers; clang
 * has no noipa (noinline is its nearest). */
#if defined(__clang__)
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif

static __thread long sink;     /* per thread: threads share nothing */
static long iterations = 20000000;   /* calls per thread */
static int nested;                    /* HS_LOOP_NESTED: through outer */

/* The timed function: big enough to patch (5 bytes), as small as that. */
NOIPA static void leaf(long x)
{
	sink += x;
}

/* A function whose first bytes hold a call (sub $8,%rsp; call leaf). */
NOIPA static void outer(long x)
{
	leaf(x);
	sink++;
}

/* A clock in seconds. */
NOINSTR static double now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One thread's loop; its CPU seconds go to *arg. */
NOINSTR static void *loop(void *arg)
{
	double t0 = now_s(CLOCK_THREAD_CPUTIME_ID);

	if (nested)
		for (long i = 0; i < iterations / 2; i++)
			outer(i);
	else
		for (long i = 0; i < iterations; i++)
			leaf(i);
	*(double *)arg = now_s(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

NOINSTR int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t tid[64];
	double cpu[64], t0, sum = 0;

	if (argc > 1)
		iterations = atol(argv[1]);
	nested = getenv("HS_LOOP_NESTED") != NULL && atoi(getenv("HS_LOOP_NESTED")) != 0;
	if (iterations <= 0 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: engine-loop [N>0 [THREADS 1-64]]\n");
		return 2;
	}
	t0 = now_s(CLOCK_MONOTONIC);
	if (threads == 1)
		loop(&cpu[0]);  /* the main thread, as uninstrumented code would */
	for (int i = 0; threads > 1 && i < threads; i++)
		if (pthread_create(&tid[i], NULL, loop, &cpu[i]) != 0) {
			fprintf(stderr, "engine-loop: cannot create thread %d\n", i + 1);
			return 1;
		}
	for (int i = 0; threads > 1 && i < threads; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < threads; i++)
		sum += cpu[i];
	printf("calls=%ld threads=%d ns_per_call=%.2f wall_ns_per_call=%.2f\n",
	    iterations * threads, threads, sum / threads * 1e9 / (double)iterations,
	    (now_s(CLOCK_MONOTONIC) - t0) * 1e9 / (double)iterations);
	return 0;
}
