/*
 * demo.c - the demo target of hookscope: a program whose work shape is known
 * in advance, so the figures the agent reports can be checked exactly.
 *
 * Built with -finstrument-functions and linked -rdynamic (Makefile).  Every
 * function below is timed except those marked HOOKSCOPE_NO_INSTRUMENT; idle
 * time is spent in those (and in libc), so the counts stay exact.
 *
 * Usage: demo [--cycles K] [--period-ms P] [--exit] [--stall-ms MS] [--render HZ] [--threads] [--ipc]
 *   --cycles K     run K cycles (default: forever), then print "demo: done"
 *   --period-ms P  one cycle every P ms (default 100)
 *   --exit         exit after the cycles (default: idle forever)
 *   --stall-ms MS  after the first cycle, make one call of stuck_work that
 *                  takes MS ms (sleeping, untimed inside), then go on with
 *                  the next cycle: a function stuck in a long call
 *   --render HZ    also "render" on a thread of its own: a frame every
 *                  1000/HZ ms through hookscope_frame_named("demo"), every
 *                  30th one 60 ms late (a slow frame: jank in the FPS panel)
 *   --power S      first the power scenario for S seconds (demo_power.c): a
 *                  wakelock taken and released, a sensor enabled and leaked
 *   --threads      also the threads scenario (demo_threads.c): short-lived
 *                  threads per task and a hand-written pool of two workers
 *   --ipc          first the IPC scenario (demo_ipc.c) on the main thread:
 *                  requests to a helper process over a unix socket, every
 *                  4th answer 250 ms late (for the cycles' time, or forever)
 *   --scenario NAME[:SECONDS]  instead of all the above: the story of
 *                  scenario.c (tour, all, hot, jank, block, threads, ipc,
 *                  power; list prints them)
 *   --loop MS      also an event loop on a thread named "demo-loop" (loop.c)
 *                  whose timer fires every MS ms and runs a 300 ms callback,
 *                  alternately sleeping and spinning: UI-thread blocks when
 *                  it is watched (hookscoped run --ui-thread demo-loop)
 *
 * Exact calls of the instrumented functions (a call counts when it returns):
 *   per cycle:      slow_work 1      busy ~1 ms: the hottest by total and self
 *                   fast_hash 1050   1000 from main + 5 from each parse_record
 *                   parse_record 10
 *                   worker_step 20   on the worker thread
 *   once per run:   parse_args 1; stuck_work 1 with --stall-ms (0 until it
 *                   returns: meanwhile its time shows as running time)
 *   never returns:  main, worker_main (worker thread): 0 calls
 *   so after K cycles: slow_work K, fast_hash 1050 K, parse_record 10 K,
 *   worker_step 20 K.  There is no per-cycle function on purpose: its
 *   inclusive time would exceed slow_work's.  main and worker_main never
 *   return (main leaves through exit(), the worker is never joined), so no
 *   inclusive time is ever charged to them: their time so far shows as
 *   running time only.
 * The main thread waits for the worker at the end of each cycle, so all
 * counts are complete when "demo: done" is printed.  The render thread
 * (--render, off by default) adds render_frame calls and never ends.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hookscope.h"
#include "../apptime.h"

#define DEMO_FAST_CALLS    1000   /* fast_hash calls from main per cycle */
#define DEMO_RECORDS       10     /* parse_record calls per cycle */
#define DEMO_HASH_PER_REC  5      /* fast_hash calls per parse_record */
#define DEMO_WORKER_STEPS  20     /* worker_step calls per cycle */
#define DEMO_SLOW_NS       1000000 /* slow_work busy time */
#define DEMO_SLOW_EVERY    30     /* --render: every 30th frame is slow */
#define DEMO_SLOW_FRAME_MS 60     /* ... and comes this late */

volatile uint64_t demo_sink;      /* keeps results alive */
int demo_loop_start(long *ms);    /* loop.c: --loop */
static sem_t demo_go, demo_done;  /* main -> worker, worker -> main */
static int demo_threads_on;       /* --threads */
int demo_threads_start(void);     /* demo_threads.c */
static int demo_ipc_on;           /* --ipc */
void demo_ipc_scenario(double seconds);   /* demo_ipc.c */
void demo_ipc_helper_main(const char *fd) __attribute__((noreturn));
void demo_power_scenario(double seconds);   /* demo_power.c */
int demo_scenario_run(const char *name);   /* scenario.c: --scenario */
static const char *demo_scenario;

/* sem_wait that survives signals (not timed). */
static HOOKSCOPE_NO_INSTRUMENT void demo_wait(sem_t *s)
{
	while (sem_wait(s) != 0 && errno == EINTR)
		;
}

/* Idle forever after the cycles when --exit was not given. */
static HOOKSCOPE_NO_INSTRUMENT __attribute__((noreturn)) void demo_idle(void)
{
	for (;;)
		pause();
}

/* Cheap work: an integer mix, called 1050 times per cycle. */
__attribute__((noinline)) uint64_t fast_hash(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

/* A record "parse": five hashes. */
__attribute__((noinline)) uint64_t parse_record(int i)
{
	uint64_t h = 0;

	for (int k = 0; k < DEMO_HASH_PER_REC; k++)
		h ^= fast_hash((uint64_t)i * DEMO_HASH_PER_REC + (uint64_t)k);
	return h;
}

/* The expensive function: busy for about 1 ms of wall time. */
__attribute__((noinline)) void slow_work(void)
{
	uint64_t end = app_now_ns() + DEMO_SLOW_NS, x = 1;

	while (app_now_ns() < end)
		for (int i = 0; i < 64; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	demo_sink += x;
}

/* The worker's unit of work: a few microseconds of arithmetic. */
__attribute__((noinline)) uint64_t worker_step(int i)
{
	uint64_t x = (uint64_t)i + 1;

	for (int k = 0; k < 2000; k++)
		x = x * 2862933555777941757ull + 3037000493ull;
	return x;
}

/* The worker thread: 20 steps each time main says go. */
__attribute__((noinline)) void *worker_main(void *arg)
{
	(void)arg;
	for (;;) {
		demo_wait(&demo_go);
		for (int i = 0; i < DEMO_WORKER_STEPS; i++)
			demo_sink += worker_step(i);
		sem_post(&demo_done);
	}
	return NULL;
}

/* One rendered frame's work: a few microseconds of arithmetic. */
__attribute__((noinline)) uint64_t render_frame(long i)
{
	return worker_step((int)(i & 0xff));
}

/* The render thread of --render HZ: steady frames, every 30th one slow. */
__attribute__((noinline)) void *render_main(void *arg)
{
	long hz = *(long *)arg;
	uint64_t next = app_now_ns();

	for (long i = 1;; i++) {
		demo_sink += render_frame(i);
		hookscope_note_frame_named("demo");
		next += i % DEMO_SLOW_EVERY == 0 ? DEMO_SLOW_FRAME_MS * 1000000ull :
		    1000000000ull / (uint64_t)hz;
		app_sleep_until(next);
	}
	return NULL;
}

/* Parse a non-negative integer option value or exit with usage. */
static HOOKSCOPE_NO_INSTRUMENT long demo_number(const char *opt, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = s != NULL ? strtol(s, &end, 10) : -1;
	if (s == NULL || errno != 0 || *end != '\0' || end == s || v < 0) {
		fprintf(stderr, "demo: %s needs a number >= 0\n", opt);
		exit(2);
	}
	return v;
}

/* The stuck call of --stall-ms: MS ms in one call (asleep, so its time is
 * all this function's own and no timed callee is called meanwhile). */
__attribute__((noinline)) void stuck_work(long ms)
{
	app_sleep_until(app_now_ns() + (uint64_t)ms * 1000000u);
}

/* Command line: --cycles K, --period-ms P, --exit, --stall-ms MS. */
__attribute__((noinline)) void parse_args(int argc, char **argv, long *cycles,
    long *period_ms, int *do_exit, long *stall_ms, long *render_hz, long *loop_ms)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cycles") == 0) {
			*cycles = demo_number("--cycles", argv[i + 1]);
			i++;
		} else if (strcmp(argv[i], "--period-ms") == 0) {
			*period_ms = demo_number("--period-ms", argv[i + 1]);
			i++;
		} else if (strcmp(argv[i], "--exit") == 0) {
			*do_exit = 1;
		} else if (strcmp(argv[i], "--stall-ms") == 0) {
			*stall_ms = demo_number("--stall-ms", argv[i + 1]);
			i++;
		} else if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc) {
			demo_scenario = argv[++i];
		} else if (strcmp(argv[i], "--threads") == 0) {
			demo_threads_on = 1;
		} else if (strcmp(argv[i], "--ipc") == 0) {
			demo_ipc_on = 1;
		} else if (strcmp(argv[i], "--ipc-helper") == 0 && i + 1 < argc) {
			demo_ipc_helper_main(argv[i + 1]);   /* demo_ipc.c: never returns */
		} else if (strcmp(argv[i], "--power") == 0) {   /* demo_power.c */
			demo_power_scenario(demo_number("--power", argv[i + 1]));
			i++;
		} else if (strcmp(argv[i], "--loop") == 0) {
			*loop_ms = demo_number("--loop", argv[i + 1]);
			i++;
		} else if (strcmp(argv[i], "--render") == 0) {
			*render_hz = demo_number("--render", argv[i + 1]);
			i++;
		} else {
			fprintf(stderr, "demo: unknown option %s\n"
			    "usage: demo [--cycles K] [--period-ms P] [--exit] "
			    "[--stall-ms MS] [--render HZ] [--threads] [--loop MS] [--ipc] [--power S] [--scenario NAME]\n", argv[i]);
			exit(2);
		}
	}
}

/* K cycles of the fixed work shape, one per period, then done. */
/* A lookup table kept for the whole run: the memory view's biggest block. */
static unsigned char *volatile demo_table;   /* volatile: the compiler keeps the calloc */

int main(int argc, char **argv)
{
	long cycles = -1, period_ms = 100, stall_ms = 0, render_hz = 0, loop_ms = 0;
	int do_exit = 0;
	pthread_t worker, render;
	uint64_t next;

	parse_args(argc, argv, &cycles, &period_ms, &do_exit, &stall_ms, &render_hz, &loop_ms);
	if (demo_scenario != NULL)
		return demo_scenario_run(demo_scenario);
	if (sem_init(&demo_go, 0, 0) != 0 || sem_init(&demo_done, 0, 0) != 0 ||
	    pthread_create(&worker, NULL, worker_main, NULL) != 0 ||
	    (render_hz > 0 && pthread_create(&render, NULL, render_main, &render_hz) != 0) ||
	    (demo_threads_on && demo_threads_start() != 0) ||
	    (loop_ms > 0 && demo_loop_start(&loop_ms) != 0)) {
		fprintf(stderr, "demo: cannot start the worker or render thread\n");
		return 1;
	}
	demo_table = calloc(4 << 20, 1);
	printf("demo: pid %d, %s, one cycle every %ld ms", (int)getpid(),
	    hookscope_is_active() ? "hookscope agent active" : "no hookscope agent",
	    period_ms);
	if (cycles >= 0)
		printf(", %ld cycles", cycles);
	if (render_hz > 0)
		printf(", rendering at %ld Hz", render_hz);
	if (demo_threads_on)
		printf(", threads scenario");
	printf("\n");
	fflush(stdout);
	if (demo_ipc_on)   /* the cycles' time, or about forever */
		demo_ipc_scenario(cycles >= 0 ? (double)(cycles * period_ms) / 1e3 : 1e9);
	next = app_now_ns();
	for (long c = 0; cycles < 0 || c < cycles; c++) {
		slow_work();
		for (int i = 0; i < DEMO_FAST_CALLS; i++)
			demo_sink += fast_hash((uint64_t)i);
		for (int i = 0; i < DEMO_RECORDS; i++)
			demo_sink += parse_record(i);
		sem_post(&demo_go);
		demo_wait(&demo_done);
		next += (uint64_t)period_ms * 1000000u;
		app_sleep_until(next);
		if (c == 0 && stall_ms > 0) {
			stuck_work(stall_ms);
			next = app_now_ns();   /* no burst of catch-up cycles */
		}
	}
	printf("demo: done\n");
	fflush(stdout);
	if (do_exit)
		exit(0);
	demo_idle();
}
