/*
 * loop-epoll.c - a raw epoll event loop (epoll_wait on a timerfd) running
 * the actions of loop-work.h; the first one 1.5 s after start.
 */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "loop-work.h"

/* Arm the timer ms from now. */
static void loop_arm(int tfd, int ms)
{
	struct itimerspec it = { .it_value = { ms / 1000, (ms % 1000) * 1000000L } };

	timerfd_settime(tfd, 0, &it, NULL);
}

int main(int argc, char **argv)
{
	struct loop_plan p = { argv + 1, argc - 1, 0, 0 };
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep = epoll_create1(0), tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	uint64_t ticks;

	ev.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	loop_arm(tfd, 1500);
	for (;;) {
		int n = epoll_wait(ep, &out, 1, -1), next;

		if (n <= 0)
			continue;
		if (read(tfd, &ticks, sizeof ticks) < 0)
			continue;
		if ((next = loop_step(&p)) > 0)
			loop_arm(tfd, next);
	}
}
