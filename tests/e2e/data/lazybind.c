/*
 * lazybind.c - a UI thread that spends its messages in the dynamic
 * loader's lazy binding: each message, for 150 ms, dlopens liblazy.so
 * (RTLD_LAZY), calls lazy_all (which calls its N functions through its own
 * PLT, each call binding one) and dlcloses it, so a stack sampled during a
 * block is most often inside the loader's resolver.  Waits in poll between
 * messages.  Prints "lazybind: done M" after M messages.
 *   lazybind LIB MESSAGES
 * With -DLAZY_LIB and -DLAZY_N=N, the library instead: f0 .. fN-1 and
 * lazy_all.
 */
#ifdef LAZY_LIB
#define F(n) __attribute__((noinline)) int f##n(int x) { return x + n; }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) \
	F10(n##8) F10(n##9)
F100(1) F100(2) F100(3) F100(4) F100(5) F100(6) F100(7) F100(8) F100(9)
#define C(n) x = f##n(x);
#define C10(n) C(n##0) C(n##1) C(n##2) C(n##3) C(n##4) C(n##5) C(n##6) C(n##7) C(n##8) C(n##9)
#define C100(n) C10(n##0) C10(n##1) C10(n##2) C10(n##3) C10(n##4) C10(n##5) C10(n##6) C10(n##7) \
	C10(n##8) C10(n##9)
int lazy_all(int x)
{
	C100(1) C100(2) C100(3) C100(4) C100(5) C100(6) C100(7) C100(8) C100(9)
	return x;
}
#else
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int msgs = argc > 2 ? atoi(argv[2]) : 10, sum = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: lazybind LIB MESSAGES\n");
		return 2;
	}
	for (int m = 0; m < msgs; m++) {
		double end;

		poll(NULL, 0, 30);
		end = now_ms() + 150;
		while (now_ms() < end) {
			void *h = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
			int (*all)(int);

			if (h == NULL || (all = (int (*)(int))dlsym(h, "lazy_all")) == NULL) {
				fprintf(stderr, "lazybind: %s\n", dlerror());
				return 1;
			}
			sum += all(m);
			dlclose(h);
		}
	}
	poll(NULL, 0, 30);
	printf("lazybind: done %d (%d)\n", msgs, sum);
	fflush(stdout);
	poll(NULL, 0, 60000);     /* stays up until the test has read the figures */
	return 0;
}
#endif
