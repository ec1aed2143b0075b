/*
 * dlmain.c - target of tests/e2e/engine-libcalls.sh (built at test time with
 * plain `cc -O2`): calls its own main_wait every 5 ms until the file argv[2]
 * exists (the test creates it once main_wait shows as timed: the engine has
 * patched), then dlopens the library named by argv[1] (and libm, a system
 * library the engine must leave alone), calls dl_once 3 times and dl_many
 * 1000 times, then dl_tick every 5 ms until SIGTERM or argv[3] seconds.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
volatile long main_sink;

/* Called while waiting for the go file: shows the program is patched. */
__attribute__((noipa)) void main_wait(long x) { main_sink += x; }

/* SIGTERM ends the ticker. */
static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Sleep ms milliseconds. */
static void nap(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	void (*once)(long), (*many)(long), (*tick)(long);
	void *h, *m;
	long secs = argc > 3 ? atol(argv[3]) : 60;

	if (argc < 3) {
		fprintf(stderr, "usage: dlmain LIBRARY GO-FILE [SECONDS]\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	for (long i = 0; access(argv[2], F_OK) != 0; i++) {
		if (stop || i > secs * 200)
			return 1;
		main_wait(i);
		nap(5);
	}
	m = dlopen("libm.so.6", RTLD_NOW);
	h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL || m == NULL) {
		fprintf(stderr, "dlmain: %s\n", dlerror());
		return 1;
	}
	once = (void (*)(long))dlsym(h, "dl_once");
	many = (void (*)(long))dlsym(h, "dl_many");
	tick = (void (*)(long))dlsym(h, "dl_tick");
	if (once == NULL || many == NULL || tick == NULL) {
		fprintf(stderr, "dlmain: %s: missing dl_once/dl_many/dl_tick\n", argv[1]);
		return 1;
	}
	for (long i = 0; i < 3; i++)
		once(i);
	for (long i = 0; i < 1000; i++)
		many(i);
	for (long i = 0; !stop && i < secs * 200; i++) {
		tick(i);
		nap(5);
	}
	dlclose(h);
	dlclose(m);
	return 0;
}
