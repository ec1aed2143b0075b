/*
 * engine-loop.c - the benchmark target of `make bench`: THREADS threads each
 * call one small non-inlined function N times; prints the wall time per
 * call of one thread (so 2 threads on 2 CPUs cost the same per call as 1
 * when nothing is shared).
 *   engine-loop [N [THREADS]]
 * The Makefile builds it plain (-O2, no instrumentation flags: only the
 * hook engine can time it); tests/bench/run.sh also builds it with
 * -finstrument-functions (the floor, the agent's own hooks, uftrace) and
 * with clang -fpatchable-function-entry=5 (compiler-assisted sites).  Only
 * leaf is instrumented in those builds.
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
static long iterations = 20000000;

/* The timed function: big enough to patch (5 bytes), as small as that. */
NOIPA static void leaf(long x)
{
	sink += x;
}

/* CLOCK_MONOTONIC in seconds. */
NOINSTR static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One thread's loop. */
NOINSTR static void *loop(void *arg)
{
	(void)arg;
	for (long i = 0; i < iterations; i++)
		leaf(i);
	return NULL;
}

NOINSTR int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t tid[64];
	double t0;

	if (argc > 1)
		iterations = atol(argv[1]);
	if (iterations <= 0 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: engine-loop [N>0 [THREADS 1-64]]\n");
		return 2;
	}
	t0 = now_s();
	if (threads == 1)
		loop(NULL);     /* the main thread, as uninstrumented code would */
	for (int i = 0; threads > 1 && i < threads; i++)
		if (pthread_create(&tid[i], NULL, loop, NULL) != 0) {
			fprintf(stderr, "engine-loop: cannot create thread %d\n", i + 1);
			return 1;
		}
	for (int i = 0; threads > 1 && i < threads; i++)
		pthread_join(tid[i], NULL);
	printf("calls=%ld threads=%d ns_per_call=%.2f\n", iterations * threads, threads,
	    (now_s() - t0) * 1e9 / (double)iterations);
	return 0;
}
