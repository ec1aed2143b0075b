/*
 * nop.c - target of tests/e2e/engine-nop.sh, built at test time with
 * `clang -O2 -fpatchable-function-entry=5`: every function starts with one
 * 5-byte NOP listed in __patchable_function_entries, so the hook engine
 * uses its compiler-assisted back-end (hook_nop.c).
 *
 *   nop DIR
 * 4 threads call st_a, st_b (static) and ex_c (exported) in rounds of
 * A_N, B_N, C_N calls, over and over (while the test toggles the level),
 * until DIR/pause exists; then each finishes its round and parks, and the
 * program writes DIR/parked.  When DIR/go exists each thread does exactly
 * one more round; then DIR/done is written and the program waits for
 * DIR/exit (or SIGTERM, or 120 s).  So the last round's counts are 4 * A_N, 4 * B_N and
 * 4 * C_N.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NTHREADS 4
#define A_N 1000
#define B_N 300
#define C_N 77

volatile long sink;
static const char *dir;
static volatile int parked;

NOINLINE static void st_a(long x) { __atomic_fetch_add(&sink, x, __ATOMIC_RELAXED); }
NOINLINE static long st_b(long x) { __asm__ volatile("" ::: "memory"); return x * 3 + sink; }
NOINLINE void ex_c(long x) { __atomic_fetch_xor(&sink, x, __ATOMIC_RELAXED); }

/* One round of known counts. */
NOINLINE static void round_once(long t)
{
	for (long i = 0; i < A_N; i++)
		st_a(i + t);
	for (long i = 0; i < B_N; i++)
		sink += st_b(i);
	for (long i = 0; i < C_N; i++)
		ex_c(i);
}

/* Does DIR/name exist? */
static int there(const char *name)
{
	char p[4096];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* Create DIR/name. */
static void touch(const char *name)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f == NULL || fclose(f) != 0) {
		perror(p);
		exit(1);
	}
}

/* Rounds until DIR/pause, then park, then one round after DIR/go. */
static void *worker(void *arg)
{
	long t = (long)arg;

	while (!there("pause"))
		round_once(t);
	__atomic_fetch_add(&parked, 1, __ATOMIC_SEQ_CST);
	while (!there("go"))
		usleep(1000);
	round_once(t);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];

	if (argc != 2) {
		fprintf(stderr, "usage: nop DIR\n");
		return 2;
	}
	dir = argv[1];
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i) != 0)
			return 1;
	while (__atomic_load_n(&parked, __ATOMIC_SEQ_CST) < NTHREADS)
		usleep(1000);
	touch("parked");
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	touch("done");
	for (int i = 0; i < 120000 && !there("exit"); i++)
		usleep(1000);
	return 0;
}
