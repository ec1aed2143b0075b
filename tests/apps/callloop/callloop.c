/*
 * callloop.c - benchmark target: THREADS threads each call one tiny
 * instrumented function N times and report the time per call.
 * Built with -finstrument-functions like every app; without the agent the
 * hooks are glibc's empty stubs, so the difference is the agent's cost.
 *   callloop [N [THREADS]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hookscope.h"

static long iterations = 20000000;
static volatile int sink;

/* The function being timed: as small as a real function gets. */
__attribute__((noinline)) static int leaf(int x)
{
	return x * 3 + 1;
}

HOOKSCOPE_NO_INSTRUMENT static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

HOOKSCOPE_NO_INSTRUMENT static void *loop(void *arg)
{
	int acc = 0;

	(void)arg;
	for (long i = 0; i < iterations; i++)
		acc += leaf((int)i);
	sink = acc;
	return NULL;
}

HOOKSCOPE_NO_INSTRUMENT int main(int argc, char **argv)
{
	int threads = 1;
	pthread_t tid[64];
	double t0, t1;

	if (argc > 1)
		iterations = atol(argv[1]);
	if (argc > 2)
		threads = atoi(argv[2]);
	if (iterations <= 0 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: callloop [N>0 [THREADS 1-64]]\n");
		return 2;
	}
	t0 = now_s();
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, loop, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	t1 = now_s();
	printf("calls=%ld threads=%d ns_per_call=%.2f\n", iterations * threads, threads,
	    (t1 - t0) * 1e9 / (double)iterations);
	return 0;
}
