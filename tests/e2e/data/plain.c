/*
 * plain.c - target of tests/e2e/engine.sh, built at test time with plain
 * `cc -O2 -g` (no instrumentation flags): the hook engine must patch it.
 *
 * At start, before anything else, known numbers of calls:
 *   st_once 3, st_many 1000, ex_many 700, hid_many 300 (global, hidden).
 * Then a ticker calls st_tick and ex_tick every TICK_MS, and a worker thread
 * calls st_spin in a tight loop, until SECONDS pass or SIGTERM.
 * noipa keeps gcc from inlining, cloning (.constprop) or dropping them.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOIPA  __attribute__((noipa))
#define TICK_MS 5

volatile long sink;
static volatile sig_atomic_t stop;

NOIPA static void st_once(long x) { sink += x; }
NOIPA static void st_many(long x) { sink += x * 3; }
NOIPA static void st_tick(long x) { sink -= x; }
NOIPA static void st_spin(long x) { sink ^= x; }
NOIPA void ex_many(long x) { sink += x + 1; }
NOIPA void ex_tick(long x) { sink += x; }
NOIPA __attribute__((visibility("hidden"))) void hid_many(long x) { sink -= x + 2; }

/* Calls st_spin forever: a thread running hooked code while patching. */
NOIPA static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; !stop; i++)
		st_spin(i);
	return NULL;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 60;
	struct timespec tick = { 0, TICK_MS * 1000000L };
	pthread_t t;

	signal(SIGTERM, on_term);
	for (long i = 0; i < 3; i++)
		st_once(i);
	for (long i = 0; i < 1000; i++)
		st_many(i);
	for (long i = 0; i < 700; i++)
		ex_many(i);
	for (long i = 0; i < 300; i++)
		hid_many(i);
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	for (long i = 0; !stop && i < seconds * 1000L / TICK_MS; i++) {
		st_tick(i);
		ex_tick(i);
		nanosleep(&tick, NULL);
	}
	stop = 1;
	pthread_join(t, NULL);
	return 0;
}
