/*
 * pathblock.c - an epoll event loop whose timer callback blocks three calls
 * below itself: main -> loop_run -> on_timer -> handle_request ->
 * parse_body -> store_result, which sleeps (sleep:MS), spins (spin:MS) or
 * prints its own backtrace() (bt), one action per timer tick, 1 s apart,
 * the first 1.5 s after start, then idles until killed ("exit" exits);
 * "bt" alone runs once and exits.  Every
 * function is global and noinline, and a compiler barrier after each call
 * keeps it a real call (no tail call), so the stack is the same whatever
 * the back-end.
 */
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

/* Monotonic ms. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The caller's own stack, one frame a line, addresses left out (ASLR). */
NOINLINE void print_backtrace(void)
{
	void *pc[64];
	int n = backtrace(pc, 64);
	char **s = backtrace_symbols(pc, n);

	for (int i = 0; i < n && s != NULL; i++) {
		char *a = strstr(s[i], " [0x");

		if (a != NULL)
			*a = '\0';
		printf("bt %s\n", s[i]);
	}
	free(s);
	fflush(stdout);
}

/* The frame the block happens in. */
NOINLINE void store_result(const char *act)
{
	int ms = 0;

	if (sscanf(act, "sleep:%d", &ms) == 1) {
		usleep((useconds_t)ms * 1000);
	} else if (sscanf(act, "spin:%d", &ms) == 1) {
		double end = now_ms() + ms;
		volatile unsigned long n = 0;

		while (now_ms() < end)
			n++;
	} else {
		print_backtrace();
	}
	KEEP();
}

NOINLINE void parse_body(const char *act)
{
	store_result(act);
	KEEP();
}

NOINLINE void handle_request(const char *act)
{
	parse_body(act);
	KEEP();
}

/* The event loop's callback. */
NOINLINE void on_timer(const char *act)
{
	handle_request(act);
	KEEP();
}

/* Arm the timer ms from now. */
static void arm(int tfd, int ms)
{
	struct itimerspec it = { .it_value = { ms / 1000, (ms % 1000) * 1000000L } };

	timerfd_settime(tfd, 0, &it, NULL);
}

NOINLINE void loop_run(char **act, int n)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep = epoll_create1(0), tfd = timerfd_create(CLOCK_MONOTONIC, 0), next = 0;
	uint64_t ticks;

	ev.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	arm(tfd, 1500);
	for (;;) {
		if (epoll_wait(ep, &out, 1, -1) <= 0 || read(tfd, &ticks, sizeof ticks) < 0)
			continue;
		if (next >= n)
			continue;
		if (strcmp(act[next], "exit") == 0)
			exit(0);
		on_timer(act[next]);
		printf("pathblock: done %s\n", act[next]);
		fflush(stdout);
		if (++next < n)
			arm(tfd, 1000);
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "bt") == 0) {
		on_timer("bt");
		return 0;
	}
	loop_run(argv + 1, argc - 1);
	return 0;
}
