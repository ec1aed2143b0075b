/*
 * attachee.c - target of tests/e2e/attach.sh, built with plain `cc -O2 -g`
 * (no hookscope anywhere): THREADS threads repeat a fixed piece of work
 * (static, global and recursive functions, a call through a pointer) and
 * check each round's checksum against the one computed at start, until the
 * file STOPFILE exists.  Then it prints a line that depends only on the
 * work, never on timing, so an observed run must print exactly what an
 * unobserved one prints.
 *   attachee STOPFILE [THREADS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char *stop_file;
static uint64_t expected;

__attribute__((noinline)) static uint64_t at_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

__attribute__((noinline)) uint64_t at_fib(unsigned n)
{
	return n < 2 ? n : at_fib(n - 1) + at_fib(n - 2);
}

__attribute__((noinline)) static uint64_t at_leaf(uint64_t x)
{
	return x * 2654435761u + 1;
}

static uint64_t (*volatile at_indirect)(uint64_t) = at_leaf;

/* One round of work: its checksum is the same every time. */
__attribute__((noinline)) uint64_t at_round(void)
{
	uint64_t h = 1469598103934665603ull;

	for (unsigned i = 0; i < 2000; i++)
		h = at_mix(h, at_indirect(i));
	return at_mix(h, at_fib(16));
}

static void *at_worker(void *arg)
{
	uint64_t *bad = arg;
	struct timespec nap = { 0, 2000000 };

	while (access(stop_file, F_OK) != 0) {
		if (at_round() != expected)
			(*bad)++;
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid[16];
	uint64_t bad[16] = { 0 }, all = 0;
	int n = argc > 2 ? atoi(argv[2]) : 4;

	if (argc < 2 || n < 1 || n > 16) {
		fprintf(stderr, "usage: attachee STOPFILE [THREADS 1-16]\n");
		return 2;
	}
	stop_file = argv[1];
	expected = at_round();
	for (int i = 0; i < n; i++)
		pthread_create(&tid[i], NULL, at_worker, &bad[i]);
	for (int i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		all += bad[i];
	}
	printf("threads=%d checksum=%016llx mismatches=%llu\n", n,
	    (unsigned long long)expected, (unsigned long long)all);
	return all != 0;
}
