/*
 * scenario.c - the demo's story (demo --scenario NAME; `make demo
 * SCENARIO=NAME`): a UI-like main thread (an event loop in poll() on a
 * 100 Hz timer that presents a frame per tick, the thread the daemon watches
 * for blocks by default) that shows one performance problem at a time, each
 * announced on the demo's output first so an audience knows what to look for.
 *
 * The table below is the list of problems; "tour" (the default of make demo)
 * plays each in turn (20 s each; NAME:SECONDS changes that) and starts again; "all" plays every one at once (the
 * overview tests and the README capture use it).  The ipc and power rows
 * call demo_ipc_scenario() / demo_power_scenario() (demo_ipc.c,
 * demo_power.c); when such a call returns early, the loop
 * goes on for the rest of the row's time.
 */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "hookscope.h"
#include "../apptime.h"

#define SCN_SECONDS     20      /* each row of the tour */
#define SCN_TICK_NS     10000000ull   /* 100 Hz: well inside the 60 Hz budget */
#define SCN_JANK_EVERY  30      /* jank: every 30th frame... */
#define SCN_JANK_MS     70      /* ...takes this long */
#define SCN_BLOCK_EVERY 2000    /* block: every 2 s ... */
#define SCN_BLOCK_MS    400     /* ... the UI thread waits this long */
#define SCN_BURST_EVERY 3000    /* threads: every 3 s ... */
#define SCN_BURST       24      /* ... this many threads at once */

void demo_ipc_scenario(double seconds);     /* demo_ipc.c */
void demo_power_scenario(double seconds);   /* demo_power.c */

enum { SCN_HOT = 1, SCN_JANK = 2, SCN_BLOCK = 4, SCN_BURST_ON = 8 };

volatile uint64_t scn_sink;

/* Busy for ns of wall time (the work the timed functions below do);
 * inlined, so a stack sampled meanwhile names the function doing it. */
static inline __attribute__((always_inline)) void scn_busy(uint64_t ns)
{
	uint64_t end = app_now_ns() + ns, x = 7;

	while (app_now_ns() < end)
		for (int i = 0; i < 64; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	scn_sink += x;
}

/* The hot function: a checksum over a "document" on every frame, 3 ms. */
__attribute__((noinline)) void recompute_checksums(void)
{
	scn_busy(3000000);
}

/* An ordinary frame's drawing: 300 us. */
__attribute__((noinline)) void draw_frame(void)
{
	scn_busy(300000);
}

/* The janky frame: a layout pass redone from scratch, 70 ms. */
__attribute__((noinline)) void relayout_everything(void)
{
	scn_busy(SCN_JANK_MS * 1000000ull);
}

/* The UI block: a synchronous read of a slow "file" on the UI thread. */
__attribute__((noinline)) void load_config_sync(void)
{
	app_sleep_until(app_now_ns() + SCN_BLOCK_MS * 1000000ull);
}

/* A burst thread's work: 2 ms. */
__attribute__((noinline)) void decode_image(void)
{
	scn_busy(2000000);
}

/* A burst thread: its work, a while idle (untimed, so its sleep does not
 * rank it among the hot functions), then it ends. */
HOOKSCOPE_NO_INSTRUMENT void *burst_task(void *arg)
{
	decode_image();
	app_sleep_until(app_now_ns() + (300 + (uint64_t)(uintptr_t)arg * 20) * 1000000ull);
	return NULL;
}

/* The thread burst: one thread per "image" to decode, all at once. */
__attribute__((noinline)) void spawn_decoders(void)
{
	for (uintptr_t i = 0; i < SCN_BURST; i++) {
		pthread_t t;
		pthread_attr_t at;

		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, burst_task, (void *)i) == 0)
			pthread_setname_np(t, "decoder");
		pthread_attr_destroy(&at);
	}
}

/* The UI event loop for `seconds` with the problems in mask. */
static HOOKSCOPE_NO_INSTRUMENT void scn_loop(double seconds, unsigned mask)
{
	struct itimerspec it = { { 0, (long)SCN_TICK_NS }, { 0, (long)SCN_TICK_NS } };
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct pollfd p = { .fd = tfd, .events = POLLIN };
	uint64_t start = app_now_ns(), end = start + (uint64_t)(seconds * 1e9), ticks;
	uint64_t next_block = start + SCN_BLOCK_EVERY * 1000000ull / 2;
	uint64_t next_burst = start + 500000000ull;
	static uint64_t frame;

	if (tfd < 0 || timerfd_settime(tfd, 0, &it, NULL) < 0) {
		perror("demo: timerfd");
		exit(1);
	}
	while (app_now_ns() < end) {
		if (poll(&p, 1, 1000) <= 0 || read(tfd, &ticks, sizeof ticks) != sizeof ticks)
			continue;
		if (mask & SCN_HOT)
			recompute_checksums();
		if ((mask & SCN_JANK) && ++frame % SCN_JANK_EVERY == 0)
			relayout_everything();
		else
			draw_frame();
		hookscope_note_frame_named("ui");
		if ((mask & SCN_BLOCK) && app_now_ns() >= next_block) {
			load_config_sync();
			next_block = app_now_ns() + SCN_BLOCK_EVERY * 1000000ull;
		}
		if ((mask & SCN_BURST_ON) && app_now_ns() >= next_burst) {
			spawn_decoders();
			next_burst = app_now_ns() + SCN_BURST_EVERY * 1000000ull;
		}
	}
	close(tfd);
}

/* A row that is a UI-loop problem. */
static HOOKSCOPE_NO_INSTRUMENT void scn_hot(double s)     { scn_loop(s, SCN_HOT); }
static HOOKSCOPE_NO_INSTRUMENT void scn_jank(double s)    { scn_loop(s, SCN_JANK); }
static HOOKSCOPE_NO_INSTRUMENT void scn_block(double s)   { scn_loop(s, SCN_BLOCK); }
static HOOKSCOPE_NO_INSTRUMENT void scn_threads(double s) { scn_loop(s, SCN_BURST_ON); }

/* The power scenario on a thread of its own ("demo-power"): a leaked
 * wakelock is no UI problem, so the UI thread keeps presenting frames. */
static void *scn_power_main(void *arg)
{
	demo_power_scenario(*(double *)arg);
	return NULL;
}

static HOOKSCOPE_NO_INSTRUMENT void scn_power(double s)
{
	static double secs;
	pthread_t t;

	secs = s;
	if (pthread_create(&t, NULL, scn_power_main, &secs) != 0) {
		demo_power_scenario(s);
		return;
	}
	pthread_setname_np(t, "demo-power");
	scn_loop(s, 0);
	pthread_join(t, NULL);
}

static const struct {
	const char *name;
	const char *announce;             /* what to look for */
	void      (*run)(double seconds);
} scn_table[] = {
	{ "hot", "a hot function: recompute_checksums() burns 3 ms of every 10 ms frame "
	  "(top of the hot functions, by total and self)", scn_hot },
	{ "jank", "janky frames: every 30th frame runs relayout_everything() for 70 ms "
	  "(FPS box: jank count, p99 and max over the budget, dips in the sparkline)", scn_jank },
	{ "block", "a UI block: load_config_sync() stalls the UI thread 400 ms every 2 s "
	  "(blocks box: the block and its top frame; b shows the stack)", scn_block },
	{ "threads", "a thread burst: spawn_decoders() starts 24 threads at once every 3 s "
	  "(threads box: created count and rate jump)", scn_threads },
	{ "ipc", "slow IPC on the UI thread (IPC box: slow synchronous calls)", demo_ipc_scenario },
	{ "power", "a leaked wakelock (power box: demo-leaked held and never released, an IIO "
	  "sensor left on; view 6 flags both LEAK past :threshold hold)", scn_power },
};
#define SCN_N (sizeof scn_table / sizeof scn_table[0])

/* Row of a scenario name, or -1. */
static HOOKSCOPE_NO_INSTRUMENT int scn_find(const char *name)
{
	for (size_t i = 0; i < SCN_N; i++)
		if (strcmp(name, scn_table[i].name) == 0)
			return (int)i;
	return -1;
}

/* Run row i for seconds; the loop fills what it leaves. */
static HOOKSCOPE_NO_INSTRUMENT void scn_row(size_t i, double seconds, const char *prefix)
{
	uint64_t start = app_now_ns();
	double spent;

	printf("demo: %s%s: %s\n", prefix, scn_table[i].name, scn_table[i].announce);
	fflush(stdout);
	scn_table[i].run(seconds);
	spent = (double)(app_now_ns() - start) / 1e9;
	if (spent < seconds - 0.1)
		scn_loop(seconds - spent, 0);
}

/* demo --scenario NAME[:SECONDS] (SECONDS per row, default 20): never
 * returns; "list" prints the names and returns 0, an unknown name 2. */
HOOKSCOPE_NO_INSTRUMENT int demo_scenario_run(const char *arg)
{
	char name[64], prefix[32], *colon, *end;
	double secs = SCN_SECONDS;

	snprintf(name, sizeof name, "%s", arg);
	if ((colon = strchr(name, ':')) != NULL) {
		*colon = '\0';
		secs = strtod(colon + 1, &end);
		if (end == colon + 1 || *end != '\0' || !(secs >= 0.5 && secs <= 3600)) {
			fprintf(stderr, "demo: --scenario %s: seconds must be 0.5 to 3600\n", arg);
			return 2;
		}
	}
	if (strcmp(name, "list") == 0) {
		printf("tour\nall\n");
		for (size_t i = 0; i < SCN_N; i++)
			printf("%s\n", scn_table[i].name);
		return 0;
	}
	if (strcmp(name, "tour") != 0 && strcmp(name, "all") != 0 && scn_find(name) < 0) {
		fprintf(stderr, "demo: unknown scenario '%s' (tour, all", name);
		for (size_t i = 0; i < SCN_N; i++)
			fprintf(stderr, ", %s", scn_table[i].name);
		fprintf(stderr, ")\n");
		return 2;
	}
	printf("demo: pid %d, %s, scenario %s\n", (int)getpid(),
	    hookscope_is_active() ? "hookscope agent active" : "no hookscope agent", name);
	fflush(stdout);
	if (strcmp(name, "all") == 0) {
		printf("demo: all: every problem at once: a hot function, janky frames, UI blocks, "
		    "thread bursts; slow IPC and a wakelock every %.0f s\n", secs);
		fflush(stdout);
		for (;;) {
			scn_loop(secs, SCN_HOT | SCN_JANK | SCN_BLOCK | SCN_BURST_ON);
			scn_row(SCN_N - 2, 2, "");
			scn_row(SCN_N - 1, 2, "");
		}
	}
	if (strcmp(name, "tour") == 0) {
		for (;;)
			for (size_t i = 0; i < SCN_N; i++) {
				snprintf(prefix, sizeof prefix, "[%zu/%zu] ", i + 1, SCN_N);
				scn_row(i, secs, prefix);
			}
	}
	for (;;)
		scn_row((size_t)scn_find(name), secs, "");
}
