/*
 * startup - a program whose start has known parts, for the startup
 * collector's tests: it links libhs-slowinit.so, whose constructor sleeps
 * 200 ms, and dlopens libhs-plugin.so (next to it), whose constructor
 * sleeps 150 ms; then waits once in poll() (its "event loop") and exits.
 * It prints what it measured itself, with its own clock:
 *   slowinit_ctor_ns=N dlopen_ns=N plugin_ctor_ns=N
 * Options: --slow MS and --plugin MS change the two sleeps (they reach the
 * libraries through HS_SLOWINIT_MS / HS_PLUGIN_MS), --stay MS waits that
 * long in poll() before exiting.
 */
#include <dlfcn.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t slowinit_ctor_ns(void);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
	uint64_t (*plugin_ns)(void);
	int stay = 0;
	uint64_t t0, t1;
	void *h;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--stay") == 0)
			stay = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--plugin") == 0)
			setenv("HS_PLUGIN_MS", argv[i + 1], 1);
		else {
			fprintf(stderr, "usage: startup [--plugin MS] [--stay MS] (set "
			    "HS_SLOWINIT_MS before start for the linked library)\n");
			return 2;
		}
	}
	if (n <= 0 || (slash = strrchr((path[n] = '\0', path), '/')) == NULL) {
		fprintf(stderr, "startup: cannot find my own path\n");
		return 1;
	}
	strcpy(slash + 1, "libhs-plugin.so");
	t0 = now_ns();
	h = dlopen(path, RTLD_NOW);
	t1 = now_ns();
	if (h == NULL || (plugin_ns = (uint64_t (*)(void))dlsym(h, "plugin_ctor_ns")) == NULL) {
		fprintf(stderr, "startup: %s\n", dlerror());
		return 1;
	}
	printf("slowinit_ctor_ns=%llu dlopen_ns=%llu plugin_ctor_ns=%llu\n",
	    (unsigned long long)slowinit_ctor_ns(), (unsigned long long)(t1 - t0),
	    (unsigned long long)plugin_ns());
	fflush(stdout);
	poll(NULL, 0, stay);
	return 0;
}
