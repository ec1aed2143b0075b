/*
 * frames.c - a target that presents frames in a known pattern through
 * hookscope_frame_named(), so the fps collector's figures can be checked
 * exactly (tests/e2e/fps-pattern.sh).
 *
 * Usage: frames [--hz N] [--slow-every K] [--slow-ms MS] [--frames N]
 *               [--threads T] [--budget-ns NS]
 *   Each of T threads presents N frames on its own stream "t0", "t1", ...:
 *   frame i comes 1000/N ms after frame i-1, except every K-th one, which
 *   comes MS ms after it (a slow frame).  Deadlines are absolute, so a late
 *   wake-up does not shift the frames after it.  Defaults: 100 Hz, every
 *   20th frame 60 ms, 401 frames, 1 thread: a 250 ms cycle of 20 frames,
 *   i.e. 80 frames in every second, 20 janks of 2 dropped frames each.
 * At the end each thread prints what it measured itself with the same
 * definitions as hookscope (budget --budget-ns, default 16666667):
 *   "frames: t0 frames 401 jank 20 dropped 40 max_us 60123"
 * then the program waits 300 ms (so the last frames are in a complete
 * 100 ms history bin) and exits.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hookscope.h"
#include "../apptime.h"

#define FRAMES_MAX_THREADS 8

struct frames_cfg {
	long hz, slow_every, slow_ms, frames, threads, budget_ns;
};

struct frames_thread {
	const struct frames_cfg *cfg;
	pthread_t thread;
	char      name[24];
	uint64_t  jank, dropped, max_ns;
};

/* One thread's frames; its own measurement of each frame time. */
static void *frames_main(void *arg)
{
	struct frames_thread *t = arg;
	const struct frames_cfg *c = t->cfg;
	uint64_t budget = (uint64_t)c->budget_ns, next = app_now_ns(), prev = 0;

	for (long i = 0; i < c->frames; i++) {
		uint64_t now;

		if (i > 0) {
			next += (c->slow_every > 0 && i % c->slow_every == 0) ?
			    (uint64_t)c->slow_ms * 1000000u : 1000000000u / (uint64_t)c->hz;
			app_sleep_until(next);
		}
		hookscope_note_frame_named(t->name);
		now = app_now_ns();
		if (prev != 0 && now - prev > budget) {
			t->jank++;
			t->dropped += (now - prev - budget) / budget;
		}
		if (prev != 0 && now - prev > t->max_ns)
			t->max_ns = now - prev;
		prev = now;
	}
	return NULL;
}

/* A positive integer option value, or exit with usage. */
static long frames_number(const char *opt, const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = s != NULL ? strtol(s, &end, 10) : -1;
	if (s == NULL || errno != 0 || *end != '\0' || end == s || v < 0 || v > max) {
		fprintf(stderr, "frames: %s needs a number from 0 to %ld\n", opt, max);
		exit(2);
	}
	return v;
}

/* Options, threads, the report lines. */
int main(int argc, char **argv)
{
	static const char *const opts[] = { "--hz", "--slow-every", "--slow-ms", "--frames",
	    "--threads", "--budget-ns" };
	struct frames_cfg c = { .hz = 100, .slow_every = 20, .slow_ms = 60, .frames = 401,
	    .threads = 1, .budget_ns = 16666667 };
	long *vals[] = { &c.hz, &c.slow_every, &c.slow_ms, &c.frames, &c.threads, &c.budget_ns };
	struct frames_thread th[FRAMES_MAX_THREADS];

	for (int i = 1; i < argc; i += 2) {
		size_t k = 0;

		while (k < sizeof opts / sizeof opts[0] && strcmp(argv[i], opts[k]) != 0)
			k++;
		if (k == sizeof opts / sizeof opts[0]) {
			fprintf(stderr, "frames: unknown option %s\nusage: frames [--hz N] "
			    "[--slow-every K] [--slow-ms MS] [--frames N] [--threads T] "
			    "[--budget-ns NS]\n", argv[i]);
			return 2;
		}
		*vals[k] = frames_number(opts[k], argv[i + 1], 1000000000);
	}
	if (c.hz < 1 || c.threads < 1 || c.threads > FRAMES_MAX_THREADS || c.budget_ns < 1) {
		fprintf(stderr, "frames: --hz, --budget-ns and --threads (at most %d) must "
		    "be at least 1\n", FRAMES_MAX_THREADS);
		return 2;
	}
	printf("frames: pid %d, %s\n", (int)getpid(), hookscope_is_active() ?
	    "hookscope agent active" : "no hookscope agent");
	fflush(stdout);
	memset(th, 0, sizeof th);
	for (long i = 0; i < c.threads; i++) {
		th[i].cfg = &c;
		snprintf(th[i].name, sizeof th[i].name, "t%ld", i);
		if (pthread_create(&th[i].thread, NULL, frames_main, &th[i]) != 0) {
			fprintf(stderr, "frames: cannot start thread %ld\n", i);
			return 1;
		}
	}
	for (long i = 0; i < c.threads; i++) {
		pthread_join(th[i].thread, NULL);
		printf("frames: %s frames %ld jank %llu dropped %llu max_us %llu\n", th[i].name,
		    c.frames, (unsigned long long)th[i].jank, (unsigned long long)th[i].dropped,
		    (unsigned long long)(th[i].max_ns / 1000));
	}
	fflush(stdout);
	app_sleep_until(app_now_ns() + 300000000u);
	return 0;
}
