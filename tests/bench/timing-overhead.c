/*
 * timing-overhead.c - what one hooked call costs the target.
 *
 * The functions below call the -finstrument-functions hooks by hand, exactly
 * as the compiler's instrumentation does, so this file needs no special
 * build flags.  Without the agent the hooks are glibc's empty ones; with
 * LD_PRELOAD=libhookscope.so they are the agent's.  Prints ns per call for
 * a leaf call (the hooks' full cost as the caller sees it) and per child of
 * a parent making 5 calls, each minus the same call without hooks.
 *
 *   build/bench/timing-overhead [calls]          # glibc's empty hooks
 *   LD_PRELOAD=build/libhookscope.so HOOKSCOPE_SOCKET=/nonexistent \
 *       build/bench/timing-overhead [calls]      # the agent's hooks
 *
 * Median of 7 runs.  Threads: runs the leaf loop in 1 and in 2 threads to
 * show that threads do not slow each other down (no shared writes).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 7

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static long bench_calls = 5000000;

/* An empty function with the hooks, as -finstrument-functions makes it. */
__attribute__((noinline)) static uint64_t leaf_hooked(uint64_t x)
{
	__cyg_profile_func_enter((void *)(uintptr_t)leaf_hooked, __builtin_return_address(0));
	__asm__ __volatile__("" : "+r"(x));
	__cyg_profile_func_exit((void *)(uintptr_t)leaf_hooked, __builtin_return_address(0));
	return x + 1;
}

/* The same function without hooks. */
__attribute__((noinline)) static uint64_t leaf_plain(uint64_t x)
{
	__asm__ __volatile__("" : "+r"(x));
	return x + 1;
}

/* A parent of five hooked leaves, itself hooked. */
__attribute__((noinline)) static uint64_t parent_hooked(uint64_t x)
{
	__cyg_profile_func_enter((void *)(uintptr_t)parent_hooked, __builtin_return_address(0));
	for (int i = 0; i < 5; i++)
		x = leaf_hooked(x);
	__cyg_profile_func_exit((void *)(uintptr_t)parent_hooked, __builtin_return_address(0));
	return x;
}

/* The same parent and leaves without hooks. */
__attribute__((noinline)) static uint64_t parent_plain(uint64_t x)
{
	for (int i = 0; i < 5; i++)
		x = leaf_plain(x);
	return x;
}

/* Monotonic clock in ns. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ns per call of fn over n calls. */
static double bench_loop(uint64_t (*fn)(uint64_t), long n)
{
	volatile uint64_t sink;
	uint64_t x = 0, t0 = now_ns();

	for (long i = 0; i < n; i++)
		x = fn(x);
	sink = x;
	(void)sink;
	return (double)(now_ns() - t0) / (double)n;
}

/* Sort helper for the median. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median over RUNS of (hooked - plain) ns per call, divided by per. */
static double bench_median(uint64_t (*hooked)(uint64_t), uint64_t (*plain)(uint64_t),
    long n, int per)
{
	double d[RUNS];

	for (int r = 0; r < RUNS; r++)
		d[r] = (bench_loop(hooked, n) - bench_loop(plain, n)) / per;
	qsort(d, RUNS, sizeof d[0], cmp_double);
	return d[RUNS / 2];
}

/* Thread body: the leaf loop; returns ns per hooked call (minus plain). */
static void *bench_thread(void *arg)
{
	double *out = arg;

	*out = bench_median(leaf_hooked, leaf_plain, bench_calls, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	double two[2];

	if (argc > 1)
		bench_calls = atol(argv[1]) > 0 ? atol(argv[1]) : bench_calls;
	printf("timing-overhead: %ld calls per run, median of %d runs\n", bench_calls, RUNS);
	printf("  leaf call, 1 thread:        %6.1f ns per call over an unhooked call\n",
	    bench_median(leaf_hooked, leaf_plain, bench_calls, 1));
	printf("  parent + 5 children:        %6.1f ns per hooked call\n",
	    bench_median(parent_hooked, parent_plain, bench_calls / 5, 6));
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, bench_thread, &two[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("  leaf call, 2 threads:       %6.1f / %.1f ns per call\n", two[0], two[1]);
	return 0;
}
