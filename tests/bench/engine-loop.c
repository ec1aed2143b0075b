/*
 * engine-loop.c - benchmark target of the hook engine: one thread calls one
 * small static function N times and reports the time per call.  Built like
 * every bench program (plain -O2, no instrumentation flags), so only the
 * engine (HOOKSCOPE_ENGINE=1) can time it:
 *   engine-loop [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;

/* The timed function: big enough to patch (5 bytes), as small as that. */
__attribute__((noipa)) static void leaf(long x)
{
	sink += x;
}

/* CLOCK_MONOTONIC in seconds. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	double t0;

	if (n <= 0) {
		fprintf(stderr, "usage: engine-loop [N>0]\n");
		return 2;
	}
	t0 = now_s();
	for (long i = 0; i < n; i++)
		leaf(i);
	printf("calls=%ld ns_per_call=%.2f\n", n, (now_s() - t0) * 1e9 / (double)n);
	return 0;
}
