/*
 * dlcycle.c - target of tests/e2e/engine-dlclose.sh (built at test time with
 * plain `cc -O2`): for ROUNDS rounds, dlopen each library named on the
 * command line in turn, call its function plug(i) 100 times, dlclose it.
 * The libraries are different builds, so one loaded after another was
 * closed often lands at the same address.  Prints "sum=S rounds=R".
 * DLCYCLE_HOLD_MS=N: the last library stays loaded N ms after its calls
 * (the agent reports, naming the functions, while it is mapped).
 *   dlcycle ROUNDS LIB...
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[1]) : 0, sum = 0;

	if (rounds <= 0) {
		fprintf(stderr, "usage: dlcycle ROUNDS LIB...\n");
		return 2;
	}
	for (long r = 0; r < rounds; r++)
		for (int k = 2; k < argc; k++) {
			void *h = dlopen(argv[k], RTLD_NOW);
			long (*plug)(long);

			if (h == NULL) {
				fprintf(stderr, "dlcycle: %s\n", dlerror());
				return 1;
			}
			*(void **)&plug = dlsym(h, "plug");
			if (plug == NULL)
				return 1;
			for (long i = 0; i < 100; i++)
				sum += plug(i);
			if (r == rounds - 1 && k == argc - 1 && getenv("DLCYCLE_HOLD_MS") != NULL) {
				long ms = atol(getenv("DLCYCLE_HOLD_MS"));
				struct timespec t = { ms / 1000, ms % 1000 * 1000000 };

				nanosleep(&t, NULL);
			}
			if (dlclose(h) != 0)
				return 1;
		}
	printf("sum=%ld rounds=%ld\n", sum, rounds);
	return 0;
}
