/*
 * tinyeq.c ITERATIONS - two threads, each calling work() ITERATIONS times;
 * work calls each of two small functions once, so all three are equally hot
 * and each call costs a few nanoseconds: no function is cheap enough to
 * count as the overhead budget's anchor (tests/e2e/budget-probe.sh).  Every
 * function's exact count is 2 x ITERATIONS.  noipa keeps gcc from inlining
 * or cloning.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

/* Each thread's own sum: a shared one would make the threads' calls per
 * ns of CPU depend on whether the other one runs meanwhile. */
static __thread volatile long sink;

/* Straight-line: a loop back into the first bytes would leave it unpatched. */
#define OPS(n) sink += x * n; sink += x + n; sink ^= n; sink -= x; \
	sink += x & n; sink ^= x; sink += n; sink -= x ^ n;
#define F(n) NOIPA void f##n(long x) { OPS(n) OPS(n + 1) }
F(0) F(1)
static void (*const fs[])(long) = { f0, f1 };

NOIPA void work(long i)
{
	for (int k = 0; k < 2; k++)
		fs[(i + k) % 2](i);
}

static void *run(void *arg)
{
	long n = *(long *)arg;

	for (long i = 0; i < n; i++)
		work(i);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	pthread_t th[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, run, &n);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("done %ld\n", 2 * n);
	return 0;
}
